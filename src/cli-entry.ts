/**
 * Process glue around `main`, and the one place that ends the process. SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT abort the command (the AbortSignal's reason names the signal; exit
 * 130, 143, 129, 131), unless a part takes the signal as its own (Ctrl-C while a pager
 * runs). A second signal (but SIGHUP) ends the process at once, and a command that has not finished a
 * second after the first (blocked opening a FIFO with no writer, say) is ended then
 * (cli-contract.md "Errors and exit codes": honoured within a second, whatever the command
 * is doing). A run whose event loop drains before its command returned — nothing is left
 * that could finish it, which Node would end with exit 0 — is ended with exit 1, code
 * `internal` (the contract: a run never exits 0 unless its command finished). Either way
 * the shutdown registry (`shutdown.ts`) lets the run's parts tidy up and report first.
 * stdout's failures (a closed pipe, a full disk) are `main`'s to report. The process exits
 * only after stdout and stderr are flushed.
 */
import { main as cliMain, type MainDeps } from './cli.js';
import { ExitCode } from './errors.js';
import { flushed, writeLastWords } from './io.js';
import { ENDING_SIGNALS, ShutdownRegistry, type EndingSignal, type ForcedEnd } from './shutdown.js';

/** How often a held process looks again whether it was let go, in ms. */
const HOLD_POLL_MS = 100;

/**
 * Runs the CLI for this process and exits with its code. `main` is the CLI's own; another
 * one shows the glue alone (a test of a command that never returns).
 */
export async function run(
  argv: string[],
  main: (argv: string[], deps: MainDeps) => Promise<number> = cliMain,
): Promise<void> {
  const shutdown = new ShutdownRegistry();
  const controller = new AbortController();
  let returned = false;
  const end = (code: number, how: ForcedEnd): never => {
    // stderr is written synchronously by the hooks (a file, pipe or terminal on Linux).
    const told = shutdown.forceEnd(how);
    if (how.kind === 'stalled' && !told) writeLastWords(`error: ${stalledMessage(how.doing)}`);
    process.exit(code);
  };
  const onSignal = (signal: EndingSignal): void => {
    if (shutdown.signal(signal)) return;
    const code = ENDING_SIGNALS[signal];
    // A second signal ends the run at once (Ctrl-C twice), except a second SIGHUP: a hang-up
    // comes twice by itself (from the terminal and from the shell passing it to its jobs).
    if (controller.signal.aborted && signal !== 'SIGHUP') end(code, { kind: 'signal', signal });
    controller.abort(signal);
    endAfterGrace(() => end(code, { kind: 'signal', signal }));
  };
  // A second after the signal, unless a part holds the process (a pager the person is
  // reading): then a second after it lets go.
  const endAfterGrace = (endNow: () => void): void => {
    setTimeout(() => {
      if (!shutdown.holding()) endNow();
      else waitForRelease(() => endAfterGrace(endNow));
    }, shutdown.graceMs).unref();
  };
  const waitForRelease = (then: () => void): void => {
    setTimeout(() => (shutdown.holding() ? waitForRelease(then) : then()), HOLD_POLL_MS).unref();
  };
  for (const signal of Object.keys(ENDING_SIGNALS) as EndingSignal[]) process.on(signal, onSignal);
  process.on('beforeExit', () => {
    if (!returned) end(ExitCode.failure, { kind: 'stalled', doing: shutdown.doing() });
  });
  const code = await main(argv, { env: process.env, signal: controller.signal, shutdown });
  returned = true;
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** The message of a run that stalled when nothing of it said why (`main` normally does). */
export function stalledMessage(doing: string | undefined): string {
  return `internal error: petstore ended without a result${doing === undefined ? '' : ` while ${doing}`} (nothing was left for it to wait for); this looks like a bug in petstore, please report it`;
}

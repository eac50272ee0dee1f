/**
 * Process glue around `main`, and the one place that ends the process. SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT abort the command (the AbortSignal's reason names the signal; exit
 * 130, 143, 129, 131), unless a part takes the signal as its own (Ctrl-C while a pager
 * runs). A second signal (but SIGHUP) ends the process at once, and a command that has not
 * finished a second after the first (blocked opening a FIFO with no writer, say) is ended
 * then, unless a part holds the process: a pager the person reads, or a bulk create saving
 * its remaining file, which is written in full however long the disk takes (cli-contract.md
 * "Errors and exit codes": sending and fetching stop within a second; what keeps the
 * account true is finished; a second signal cuts that short). A run whose event loop
 * drains before its command returned — nothing is left that could finish it, which Node
 * would end with exit 0 — is ended with exit 1, code `internal` (the contract: a run never
 * exits 0 unless its command finished). Either way the shutdown registry (`shutdown.ts`)
 * lets the run's parts tidy up and report first. stdout's failures (a closed pipe, a full
 * disk) are `main`'s to report. The process exits only after stdout and stderr are flushed.
 */
import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';
import { main as cliMain, stalledMessage, type MainDeps } from './cli.js';
import { ExitCode } from './base/errors.js';
import { flushed, writeLastWords } from './io/io.js';
import { ENDING_SIGNALS, ShutdownRegistry, type EndingSignal, type ForcedEnd } from './base/shutdown.js';

/** How often a held process looks again whether it was let go, in ms. */
const HOLD_POLL_MS = 100;

/** What runs the command: the CLI's own `main`, or another that shows the glue alone. */
export type Main = (argv: string[], deps: MainDeps) => Promise<number>;

/** What the caller of `run` hands the CLI besides argv (bin/petstore.js, the shim). */
export interface RunOptions {
  /** The CLI's own by default; a test of a command that never returns passes another. */
  main?: Main;
  /**
   * Why the shim did not use its code cache (one line), said under `--verbose`: the shim
   * runs before any flag is parsed, so it hands its verdict over instead of reading argv.
   */
  codeCacheNote?: string | undefined;
}

/**
 * Runs the CLI for this process and exits with its code. `options` is RunOptions, or, as
 * before it, the `main` to run alone; `run(argv)` runs the CLI's own (the executable).
 */
export async function run(argv: string[], options: RunOptions | Main = {}): Promise<void> {
  const { main = cliMain, codeCacheNote } = typeof options === 'function' ? { main: options } : options;
  const shutdown = new ShutdownRegistry();
  const controller = new AbortController();
  let returned = false;
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  const exit = (code: number): never => {
    if (controller.signal.reason === 'SIGHUP') letGoOfTerminal(terminals);
    process.exit(code);
  };
  const end = (code: number, how: ForcedEnd): never => {
    // stderr is written synchronously by the hooks (a file, pipe or terminal on Linux).
    const told = shutdown.forceEnd(how);
    // Nothing of the run said why (`main` does, a `Main` of a test may not): one line of its own.
    if (how.kind === 'stalled' && !told) {
      writeLastWords(`error: ${stalledMessage(how.doing)}; this looks like a bug in petstore, please report it`);
    }
    return exit(code);
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
  const code = await main(argv, { env: process.env, signal: controller.signal, shutdown, codeCacheNote });
  returned = true;
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  exit(code);
}

/**
 * Points the descriptors among 0-2 that were a terminal (`fds`) at /dev/null, once that
 * terminal hung up and all was written. Node 20 aborts at exit when it cannot restore a
 * terminal that is gone ("Assertion failed" in node::ResetStdio, nodejs/node#51519; Node 24
 * has the fix, nodejs/node#58200), turning exit 129 into a crash with a native stack trace
 * on stderr; it leaves alone a descriptor that no longer names the file it saw at start-up.
 */
function letGoOfTerminal(fds: number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
      // The lowest free descriptor: the one just closed.
      openSync('/dev/null', fd === 0 ? 'r' : 'w');
    } catch {
      // Nothing better to do on the way out: Node's own check decides then.
    }
  }
}

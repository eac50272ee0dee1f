/**
 * Process glue around `main`: SIGINT and SIGTERM abort the command (the AbortSignal's reason
 * names the signal; exit 130 or 143), a second signal exits at once, and a command that has
 * not finished a second after the first (blocked opening a FIFO with no writer, say) is
 * ended then with the signal's code (cli-contract.md "Errors and exit codes": honoured
 * within a second, whatever the command is doing), after printing what the command set to
 * report in that case (`Context.ifCutShort`: a bulk create's account). stdout's failures (a
 * closed pipe, a full disk) are `main`'s to report. The process exits only after stdout and
 * stderr are flushed.
 */
import { main } from './cli.js';
import { ExitCode } from './errors.js';
import { cutShortRuns, flushed, runningPagers } from './io.js';

/** How long a command may take to stop after the first signal, in ms. */
const STOP_GRACE_MS = 1000;

/** Runs the CLI for this process and exits with its code. */
export async function run(argv: string[]): Promise<void> {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    // Ctrl-C while a pager shows the output is the pager's: it reached it too, and the
    // command is done but for the pager (git's and gh's way).
    if (sig === 'SIGINT' && runningPagers.size > 0) return;
    const code = sig === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    for (const pager of runningPagers) pager.kill('SIGTERM');
    const end = (): never => {
      // stderr is written synchronously here (a file, pipe or terminal on Linux).
      for (const report of cutShortRuns) report();
      process.exit(code);
    };
    if (controller.signal.aborted) end();
    controller.abort(sig);
    setTimeout(end, STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await main(argv, { env: process.env, signal: controller.signal });
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

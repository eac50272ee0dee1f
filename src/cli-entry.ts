/**
 * Process glue around `main`: SIGINT/SIGTERM abort the command (exit 130, a second Ctrl-C
 * exits at once), a closed stdout ends the run quietly with exit 0 (cli-contract.md
 * "Network behaviour"), and the process exits only after stdout and stderr are flushed.
 */
import { main } from './cli.js';

/** Runs the CLI for this process and exits with its code. */
export async function run(argv: string[]): Promise<void> {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.stderr.on('error', () => undefined);
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) process.exit(sig === 'SIGINT' ? 130 : 143);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await main(argv, { env: process.env, signal: controller.signal });
  process.exitCode = code;
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableEnded) {
      resolve();
      return;
    }
    stream.write('', () => {
      resolve();
    });
  });
}

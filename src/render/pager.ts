/**
 * Paging a table that is longer than the screen (cli-contract.md "Output"): on a terminal,
 * the text goes through the pager `Io` chose (`PETSTORE_PAGER`, `PAGER`, `less -FRX`);
 * never when stdout is not a terminal. A pager that exits before reading everything (the
 * user pressed q) is not an error.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import type { Io, PagerChoice } from '../io.js';

/** Lines of `text` (it ends with a newline). */
function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * True when `text` should be paged (when a pager is chosen): stdout is a terminal of known
 * height and the text does not fit in it (one row is kept for the prompt).
 */
export function shouldPage(io: Io, text: string): boolean {
  const rows = io.stdoutRows;
  return io.stdoutIsTTY && rows !== undefined && lineCount(text) > rows - 1;
}

/**
 * Runs the pager with `text` on its stdin and waits for it to exit. Its stdout is the
 * terminal itself when Io's stdout is the process's (the pager draws there); otherwise
 * its output is copied to Io's stdout.
 * @returns false when the pager could not be started, or the shell found no such command
 * (exit 126/127, nothing read): the caller writes the text itself, so nothing is lost.
 */
export async function page(io: Io, pager: PagerChoice, text: string): Promise<boolean> {
  const fd = (io.stdout as { fd?: unknown }).fd;
  const direct = fd === 1;
  const stdio: StdioOptions = ['pipe', direct ? 'inherit' : 'pipe', 'inherit'];
  const child = spawn(pager.command, { shell: true, stdio, env: pager.env });
  if (!direct) child.stdout?.on('data', (d: Buffer) => io.stdout.write(d));
  const started = new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!(await started)) return false;
  // While it runs, Ctrl-C is the pager's: the terminal sends it to both, and petstore waits
  // for the pager (git's and gh's way). Any other signal, or a forced end, is passed on to
  // it, so it is never left behind on the terminal.
  const unregister = io.shutdown.add({
    onSignal: (signal) => {
      if (signal === 'SIGINT') return true;
      child.kill('SIGTERM');
      return false;
    },
    onForcedEnd: () => {
      child.kill('SIGTERM');
      return false;
    },
    doing: () => 'waiting for the pager to exit',
  });
  try {
    // The pager may quit before it has read everything: its closed stdin is not our error.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(text);
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    return code !== 126 && code !== 127;
  } finally {
    unregister();
  }
}

/**
 * Io: the one door to stdout, stderr and stdin (STYLE.md "Output"). Commands never touch
 * `process.stdout` directly, so tests can hand in their own streams (a `PassThrough` with
 * TTY flags and a width) and the colour decision is made once.
 */
import { accessSync, constants as fsConstants } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { EnvVars } from './config/env.js';
import { InterruptedError } from './errors.js';
import { ShutdownRegistry, type Shutdown } from './shutdown.js';

/** Colour functions; identity functions when colour is off. */
export interface Colors {
  enabled: boolean;
  bold: (s: string) => string;
  dim: (s: string) => string;
  red: (s: string) => string;
  green: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
}

/** Streams, TTY flags, terminal widths and the colour decision for one CLI run. */
export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Width of stdout's terminal in columns; undefined when stdout is not a terminal. */
  stdoutColumns: number | undefined;
  /** Width of stderr's terminal in columns; undefined when stderr is not a terminal. */
  stderrColumns: number | undefined;
  /** Height of stdout's terminal in rows; undefined when stdout is not a terminal. */
  stdoutRows: number | undefined;
  /**
   * The first error stdout reported (EPIPE when its reader went away, ENOSPC on a full
   * disk, ...), or undefined. Writers learn of it through their write callbacks as well.
   */
  stdoutError: () => NodeJS.ErrnoException | undefined;
  /**
   * The pager for text longer than the screen (cli-contract.md "Output"), decided on first
   * call: undefined when stdout is not a terminal or paging is turned off.
   */
  pager: () => PagerChoice | undefined;
  /** Colour for data on stdout. */
  colorOut: Colors;
  /** Colour for messages on stderr. */
  colorErr: Colors;
  /**
   * The process's shutdown registry (`shutdown.ts`, driven by `cli-entry.ts`): what a
   * pager, a temp file or a command's account does at a signal or a forced end.
   */
  shutdown: Shutdown;
}

const identity = (s: string): string => s;

/** A pager: a shell command line and the environment to run it with. */
export interface PagerChoice {
  command: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Picks the pager gh's way: `PETSTORE_PAGER`, else `PAGER`, else `less -FRX` when `less`
 * is on PATH (`-F` quits at once when the text fits, `-R` passes colour, `-X` leaves it on
 * the screen). `cat` turns paging off; an empty variable counts as unset (the registry's
 * rule). `LESS=FRX` is set for a `less` the user named without options of their own. The
 * pager's environment has no secrets of petstore's. Undefined when stdout is not a terminal.
 */
function choosePager(env: EnvVars, stdoutIsTTY: boolean): PagerChoice | undefined {
  if (!stdoutIsTTY) return undefined;
  const named = env.get('PETSTORE_PAGER') ?? env.get('PAGER');
  if (named !== undefined) {
    const command = named.trim();
    if (command === '' || command === 'cat') return undefined;
    return { command, env: env.forChild({ LESS: env.get('LESS') ?? 'FRX' }) };
  }
  const less = (env.get('PATH') ?? '').split(':').some((dir) => dir !== '' && isExecutable(`${dir}/less`));
  return less ? { command: 'less -FRX', env: env.forChild() } : undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until `stream` has taken everything written to it so far (a write's callback runs
 * once the data before it is flushed); errors are left to the stream's own handlers.
 */
export function flushed(stream: Writable): Promise<void> {
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

/** Colour functions that change nothing. */
export const noColors: Colors = {
  enabled: false,
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
};

/**
 * Decides whether a stream gets colour, following cli-contract.md "Output":
 * `--no-color`, `NO_COLOR` (non-empty, no-color.org), `CLICOLOR=0`, `TERM=dumb` and
 * `FORCE_COLOR=0|false` turn it off; `FORCE_COLOR` / `CLICOLOR_FORCE` turn it on for a
 * non-TTY; otherwise colour follows `isTTY`. chalk ignores NO_COLOR, so we decide here.
 */
export function wantsColor(isTTY: boolean, env: EnvVars, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  const force = env.get('FORCE_COLOR');
  if (force === false) return false;
  if (env.isSet('NO_COLOR')) return false;
  if (force === true || env.get('CLICOLOR_FORCE') === true) return true;
  if (env.get('CLICOLOR') === false) return false;
  if (env.get('TERM') === 'dumb') return false;
  return isTTY;
}

/**
 * Builds chalk-backed colour functions; chalk is loaded only when colour is on, so piped
 * runs never pay for it.
 */
export async function loadColors(enabled: boolean): Promise<Colors> {
  if (!enabled) return noColors;
  const { Chalk } = await import('chalk');
  // Level 1 (16 colours) is enough for four hues and works on every terminal.
  const c = new Chalk({ level: 1 });
  return {
    enabled: true,
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    green: (s) => c.green(s),
    yellow: (s) => c.yellow(s),
    cyan: (s) => c.cyan(s),
  };
}

/** A stream's terminal width (or height), when it is a terminal that reports one. */
function sizeOf(
  stream: { isTTY?: boolean; columns?: number; rows?: number },
  key: 'columns' | 'rows',
): number | undefined {
  const size = stream[key];
  return stream.isTTY === true && typeof size === 'number' && size > 0 ? size : undefined;
}

/**
 * Builds an Io over any three streams; a stream's `isTTY` and `columns` say whether it is
 * a terminal and how wide (as on `process.stdout`). `env` and `noColorFlag` decide colour.
 * `shutdown` is the process's registry (a fresh one, which nothing drives, by default).
 */
export async function createIo(
  streams: {
    stdout: Writable & { isTTY?: boolean; columns?: number; rows?: number };
    stderr: Writable & { isTTY?: boolean; columns?: number };
    stdin: Readable & { isTTY?: boolean };
  },
  env: EnvVars,
  noColorFlag: boolean,
  shutdown: Shutdown = new ShutdownRegistry(),
): Promise<Io> {
  const stdoutIsTTY = streams.stdout.isTTY === true;
  const stderrIsTTY = streams.stderr.isTTY === true;
  const [colorOut, colorErr] = await Promise.all([
    loadColors(wantsColor(stdoutIsTTY, env, noColorFlag)),
    loadColors(wantsColor(stderrIsTTY, env, noColorFlag)),
  ]);
  // Failures of stdout are handled where it is written (write callbacks, `cli.ts`); the
  // listener keeps an 'error' event from becoming an uncaught exception and remembers it.
  let stdoutError: NodeJS.ErrnoException | undefined;
  let pager: { choice: PagerChoice | undefined } | undefined;
  streams.stdout.on('error', (err: NodeJS.ErrnoException) => {
    stdoutError ??= err;
  });
  streams.stderr.on('error', () => undefined);
  return {
    stdout: streams.stdout,
    stderr: streams.stderr,
    stdin: streams.stdin,
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: streams.stdin.isTTY === true,
    stdoutColumns: sizeOf(streams.stdout, 'columns'),
    stderrColumns: sizeOf(streams.stderr, 'columns'),
    stdoutRows: sizeOf(streams.stdout, 'rows'),
    stdoutError: () => stdoutError,
    pager: () => (pager ??= { choice: choosePager(env, stdoutIsTTY) }).choice,
    colorOut,
    colorErr,
    shutdown,
  };
}

/** Builds the Io of the real process from its streams, environment and shutdown registry. */
export function processIo(env: EnvVars, noColorFlag: boolean, shutdown?: Shutdown): Promise<Io> {
  return createIo({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, env, noColorFlag, shutdown);
}

/**
 * Stops iterating at once when `signal` aborts, even while a read is pending (reading a FIFO
 * nobody writes to does not end on its own).
 * @throws InterruptedError for the signal that aborted the run.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await settleOrAbort(it.next(), signal);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a read blocked in the OS (a FIFO without a writer) may never settle.
    void it.return?.();
  }
}

/**
 * `pending`'s outcome, or InterruptedError as soon as `signal` aborts (a read from a FIFO
 * nobody writes to, a write to a stdout nobody reads: neither ends on its own). A rejection
 * of `pending` after the abort is ignored. The abort listener is removed each time: racing
 * against one long-lived promise instead would keep every value ever raced (each race
 * leaves a reaction on it), a chunk of input per read.
 */
export function settleOrAbort<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    pending.catch(() => undefined);
    return Promise.reject(InterruptedError.from(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(InterruptedError.from(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * Runs the CLI in the test process through `main(argv, {env, io, signal})`, with real
 * streams (PassThrough) that can claim to be terminals of a given width, against a real
 * sandbox or test server. Same result shape and secret check as `runCli` (which spawns the
 * built CLI), so a test that needs no process of its own (signals, pipes, TTYs in tmux, the
 * fast path, start-up) runs here in a few milliseconds instead of ~110.
 */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import { EnvVars } from '../../src/config/env.js';
import { prescan } from '../../src/global-options.js';
import { createIo } from '../../src/io/io.js';
import type { Shutdown } from '../../src/base/shutdown.js';
import { baseEnv, expectNoSecret, registeredSecrets, type CliResult } from './run-cli.js';
import { tempDir } from './temp-config.js';

/** Options of one in-process run. */
export interface MainOptions {
  /** Extra environment (on top of PATH and LANG); `HOME` defaults to the config dir. */
  env?: Record<string, string | undefined>;
  /** stdin's content; without it stdin is empty (closed at once). */
  input?: string | Buffer;
  /** A stdin stream of the test's own (e.g. one that never ends). */
  stdin?: Readable;
  /** Which streams claim to be terminals: `true` for all three. */
  tty?: boolean | { stdout?: boolean; stderr?: boolean; stdin?: boolean };
  /** The terminals' width in columns (default 80). */
  columns?: number;
  /** The terminals' height in rows (default: none known, so nothing is paged). */
  rows?: number;
  /** Aborts the run, as Ctrl-C does. */
  signal?: AbortSignal;
  /** Values that must never appear in stdout or stderr. `env.PETSTORE_API_KEY` is always added. */
  secrets?: string[];
  /** Called with stdout and stderr as they are written (for tests that react mid-run). */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /**
   * The run's clock (`MainDeps.now`); TEST_NOW when omitted, so what depends on the date
   * (getPet's removal on 2030-12-05, days remaining) gives the same result every year.
   */
  now?: () => Date;
  /**
   * The shutdown registry the run's parts register with (`src/base/shutdown.ts`); a test that
   * passes a `ShutdownRegistry` can play `cli-entry.ts` and end the run by force.
   */
  shutdown?: Shutdown;
  /** The run's current directory (where a remaining file of stdin goes); default: the config dir, else a new temp dir. */
  cwd?: string;
  /**
   * stdout is read only once this settles, and every write waits until it is read: a slow
   * reader (a pager, a terminal scrolled back). The run's output is what it wrote, read
   * after it returned if need be.
   */
  stdoutReadFrom?: Promise<void>;
}

/** The date in-process runs see unless a test sets its own: before getPet's removal. */
export const TEST_NOW = '2026-11-23T12:00:00Z';

type TtyStream<T> = T & { isTTY?: boolean; columns?: number; rows?: number };

function sink(tty: boolean, columns: number, rows?: number, highWaterMark?: number): TtyStream<PassThrough> {
  const s: TtyStream<PassThrough> = new PassThrough(highWaterMark === undefined ? {} : { highWaterMark });
  if (tty) {
    s.isTTY = true;
    s.columns = columns;
    if (rows !== undefined) s.rows = rows;
  }
  return s;
}

/**
 * Runs `petstore ...args` in-process and resolves with its exit code and output. Asserts
 * that no secret appears in the output, as `runCli` does.
 */
export async function runMain(args: string[], opts: MainOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = { ...baseEnv() };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  env.HOME = env.HOME ?? env.PETSTORE_CONFIG_DIR ?? '/nonexistent';
  const tty = typeof opts.tty === 'object' ? opts.tty : { stdout: opts.tty, stderr: opts.tty, stdin: opts.tty };
  const columns = opts.columns ?? 80;
  const stdout = sink(tty.stdout === true, columns, opts.rows, opts.stdoutReadFrom === undefined ? undefined : 1);
  const stderr = sink(tty.stderr === true, columns);
  const stdin: TtyStream<Readable> = opts.stdin ?? Readable.from(opts.input === undefined ? [] : [opts.input]);
  if (tty.stdin === true) stdin.isTTY = true;
  let out = '';
  let err = '';
  const readStdout = (): void => {
    stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      opts.onOutput?.('stdout', d);
    });
  };
  if (opts.stdoutReadFrom === undefined) readStdout();
  else void opts.stdoutReadFrom.then(readStdout);
  stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    opts.onOutput?.('stderr', d);
  });
  const io = await createIo({ stdout, stderr, stdin }, new EnvVars(env), prescan(args).noColor, opts.shutdown);
  const started = Date.now();
  const code = await main(args, {
    env,
    io,
    signal: opts.signal,
    now: opts.now ?? (() => new Date(TEST_NOW)),
    cwd: opts.cwd ?? env.PETSTORE_CONFIG_DIR ?? tempDir('petstore-cwd-'),
  });
  if (opts.stdoutReadFrom !== undefined) {
    await opts.stdoutReadFrom;
    // Written before the run returned, still held: it flows out a chunk per turn.
    while (stdout.writableLength > 0 || stdout.readableLength > 0) await new Promise((r) => setImmediate(r));
  }
  const secrets = [...registeredSecrets(), ...(opts.secrets ?? [])];
  if (env.PETSTORE_API_KEY !== undefined && env.PETSTORE_API_KEY.length >= 6) secrets.push(env.PETSTORE_API_KEY);
  expectNoSecret(args, secrets, out, err);
  return { code, signal: null, stdout: out, stderr: err, ms: Date.now() - started };
}

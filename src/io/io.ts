/**
 * Io: the one door to the terminal (STYLE.md "Output", gh's `IOStreams`). It owns stdout,
 * stderr and stdin, and everything drawn on them: the one writer of records (stdout, or the
 * pager while one runs), the one writer of messages (errors, warnings, notes, `--verbose`
 * lines, the lines naming the environment a command talks to), which decides text or JSON
 * in one place (`io/messages.ts`) and masks every key the run used (`usedKeys`), the
 * progress line (`io/progress.ts`: erased before any other line and drawn again after it)
 * and the pager (`io/pager.ts`: started, fed, waited for, never left behind). Commands call
 * it; nothing else writes to stdout or stderr (checked by test/unit/architecture.test.ts).
 * Tests hand in their own streams (a `PassThrough` with TTY flags and a width).
 */
import { accessSync, constants as fsConstants } from 'node:fs';
import { isatty } from 'node:tty';
import type { Readable, Writable } from 'node:stream';
import type { EnvVars } from '../config/env.js';
import { OutputError } from '../base/errors.js';
import { usedKeys } from '../base/mask.js';
import {
  kindOf,
  messageForm,
  renderError,
  renderMessage,
  type ErrorMessage,
  type Message,
  type MessagePolicy,
  type TextStyle,
} from './messages.js';
import type { PagerChoice, RunningPager } from './pager.js';
import { ProgressLine, type Progress } from './progress.js';
import { ShutdownRegistry, type Shutdown } from '../base/shutdown.js';

export type { ErrorMessage } from './messages.js';
export type { Progress } from './progress.js';

/** Colour functions; identity functions when colour is off. */
export interface Colors {
  enabled: boolean;
  bold: (s: string) => string;
  dim: (s: string) => string;
  red: (s: string) => string;
  green: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
  /** The remote environment a command talks to (`Io.target`, `Io.summary`): neither a warning's yellow nor an error's red. */
  magenta: (s: string) => string;
}

/** Streams' TTY flags, terminal sizes, colours, and the writers of one CLI run. */
export interface Io {
  /** Standard input (read by `--with-token`, `--from-file -`, prompts), made on first use. */
  readonly stdin: Readable;
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
   * disk, ...), or undefined. Writers learn of it through `out` as well.
   */
  stdoutError: () => NodeJS.ErrnoException | undefined;
  /** Colour for data on stdout. */
  colorOut: Colors;
  /** Colour for messages on stderr. */
  colorErr: Colors;
  /**
   * The process's shutdown registry (`shutdown.ts`, driven by `cli-entry.ts`): what a
   * pager, a temp file or a command's account does at a signal or a forced end.
   */
  shutdown: Shutdown;

  /**
   * Writes records (data) to stdout, or into the pager while one runs, and waits until
   * they were taken (memory stays flat however much is written). On a terminal the
   * progress line is erased first and drawn again after.
   * @throws OutputError when stdout cannot be written (EPIPE: its reader went away; ENOSPC, EIO).
   */
  out(data: string | Uint8Array): Promise<void>;
  /**
   * Writes text to stdout at once, not waiting (help and the version, for commander's
   * synchronous callbacks); a failure is found by `flush` and `stdoutError`.
   */
  outNow(text: string): void;
  /**
   * True when output of `lines` lines is longer than stdout's terminal (one row is kept
   * for the prompt) and a pager is chosen (cli-contract.md "Output"): then `startPager`.
   */
  wouldPage(lines: number): boolean;
  /**
   * No pager is started for the rest of the run, whatever `wouldPage` would say:
   * `--no-pager` was given; or `pets create` prints a record of what was written, and its
   * account must be seen (cli-contract.md "Output": `pets create` never starts a pager).
   */
  disablePager(): void;
  /**
   * Starts the pager when `wouldPage` allows (at most one per run; `out` writes into it
   * from then on). True when one runs.
   */
  startPager(): Promise<boolean>;
  /**
   * Ends the pager's input and waits for the person to quit it; a no-op without one. A
   * pager that could not run the command it was given (exit 126, 127) gets its text
   * written to stdout instead.
   */
  stopPager(): Promise<void>;
  /** Waits until stdout and stderr have taken everything written so far. */
  flush(): Promise<void>;

  /** The progress line on stderr's terminal (nothing at all when stderr is not one). */
  progress: Progress;

  /**
   * Tells the message writer whether the run's output is JSON (`--output json|ndjson`,
   * `--json`, `--jq`): with it, messages are JSON objects when stderr is not a terminal
   * (`io/messages.ts` `messageForm`).
   */
  setJsonOutput(json: boolean): void;
  /** Whether errors are written as JSON objects now. */
  jsonErrors(): boolean;
  /**
   * `--quiet`: from now on warnings and notes are dropped (cli-contract.md "Global flags");
   * errors, accounts, and the lines naming the environment of a write are written still.
   */
  setQuiet(quiet: boolean): void;
  /** Writes an error, as text or one JSON object. */
  error(e: ErrorMessage): void;
  /**
   * Writes `warning: message` (once per message), wrapped so that no line is wider than
   * 80 columns, the terminal, or `wrap`; or one JSON object. Nothing with `--quiet`.
   */
  warn(message: string, opts?: { wrap?: number }): void;
  /**
   * Writes a note (dim), only when stderr is a terminal (notes are for people), or
   * always with `always` (what a script must learn too, such as a file petstore removed).
   * Nothing with `--quiet`.
   */
  note(message: string, opts?: { always?: boolean }): void;
  /**
   * Names the remote environment the command talks to and its host (`describeTarget`),
   * as `env: production (api.example.com)` in magenta, only when stderr is a terminal
   * (cli-contract.md "Environments": a colour neither dim nor red; nothing off a terminal).
   */
  target(target: string): void;
  /**
   * Writes a write's summary line, `message in TARGET`, in magenta, only when
   * stderr is a terminal (cli-contract.md "Environments": a write names its target in its
   * summary line; off a terminal nothing extra is printed).
   */
  summary(message: string, target: string): void;
  /** Writes any other message: a `--verbose` line, jq's `debug`, a key command's stderr, a served request. */
  message(m: Message): void;
  /**
   * The streams an interactive prompt reads and draws on (stdin, stderr); the progress
   * line is erased first.
   */
  prompt(): { input: Readable; output: Writable };
}

const identity = (s: string): string => s;

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
  magenta: identity,
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
  // Level 1 (16 colours) is enough for five hues and works on every terminal.
  const c = new Chalk({ level: 1 });
  return {
    enabled: true,
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    green: (s) => c.green(s),
    yellow: (s) => c.yellow(s),
    cyan: (s) => c.cyan(s),
    magenta: (s) => c.magenta(s),
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

/** A stream that may be a terminal (as `process.stdout` is). */
type TtyWritable = Writable & { isTTY?: boolean; columns?: number; rows?: number; fd?: unknown };

/**
 * Builds an Io over any three streams; a stream's `isTTY` and `columns` say whether it is
 * a terminal and how wide (as on `process.stdout`). `env` and `noColorFlag` decide colour;
 * `PETSTORE_MESSAGES` the form of messages (a value it does not allow is `main`'s usage
 * error, and counts as unset here). `shutdown` is the process's registry (a fresh one,
 * which nothing drives, by default).
 */
export async function createIo(
  streams: IoStreams,
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
  let forced: 'json' | 'text' | undefined;
  try {
    forced = env.get('PETSTORE_MESSAGES');
  } catch {
    forced = undefined;
  }
  return new StreamIo(streams, { colorOut, colorErr, shutdown, forced, pager: () => choosePager(env, stdoutIsTTY) });
}

/**
 * The three streams of an Io. `stdin` is read on first use (a getter may make it then), so
 * its terminal flag can be given as `stdinIsTTY`; else it is `stdin.isTTY`.
 */
export interface IoStreams {
  stdout: TtyWritable;
  stderr: TtyWritable;
  readonly stdin: Readable & { isTTY?: boolean };
  stdinIsTTY?: boolean;
}

/** What `createIo` decided for a StreamIo. */
interface StreamIoChoices {
  colorOut: Colors;
  colorErr: Colors;
  shutdown: Shutdown;
  forced: 'json' | 'text' | undefined;
  /** The pager, chosen on first need. */
  pager: () => PagerChoice | undefined;
}

/** The Io over three streams (`createIo`). */
class StreamIo implements Io {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  readonly colorOut: Colors;
  readonly colorErr: Colors;
  readonly shutdown: Shutdown;
  readonly progress: ProgressLine;
  private readonly stdout: TtyWritable;
  private readonly stderr: TtyWritable;
  private readonly policy: MessagePolicy;
  private readonly choosePager: () => PagerChoice | undefined;
  private pagerChoice: { choice: PagerChoice | undefined } | undefined;
  private pager: RunningPager | undefined;
  private pagerDisabled = false;
  /** What was written into the pager, in case it turns out not to run (exit 126, 127). */
  private paged: (string | Uint8Array)[] = [];
  private firstStdoutError: NodeJS.ErrnoException | undefined;
  private readonly warned = new Set<string>();
  private quiet = false;

  constructor(
    private readonly streams: IoStreams,
    choices: StreamIoChoices,
  ) {
    this.stdout = streams.stdout;
    this.stderr = streams.stderr;
    this.stdoutIsTTY = streams.stdout.isTTY === true;
    this.stderrIsTTY = streams.stderr.isTTY === true;
    this.stdinIsTTY = streams.stdinIsTTY ?? streams.stdin.isTTY === true;
    this.colorOut = choices.colorOut;
    this.colorErr = choices.colorErr;
    this.shutdown = choices.shutdown;
    this.choosePager = choices.pager;
    this.policy = { forced: choices.forced, jsonOutput: false, stderrIsTTY: this.stderrIsTTY };
    // stderr is written synchronously on a terminal (Linux), so the line is where it was drawn.
    this.progress = new ProgressLine(
      (t) => this.stderr.write(usedKeys.mask(t)),
      this.stderrIsTTY,
      this.stderrColumns,
      () => performance.now(),
    );
    // Failures of stdout are reported where it is written (`out`, `cli.ts`); the listener
    // keeps an 'error' event from becoming an uncaught exception and remembers it.
    streams.stdout.on('error', (err: NodeJS.ErrnoException) => {
      this.firstStdoutError ??= err;
    });
    streams.stderr.on('error', () => undefined);
  }

  get stdin(): Readable {
    return this.streams.stdin;
  }

  stdoutError = (): NodeJS.ErrnoException | undefined => this.firstStdoutError;

  async out(data: string | Uint8Array): Promise<void> {
    if (this.pager !== undefined && !this.pager.done) {
      this.paged.push(data);
      return this.pager.write(data);
    }
    const failed = this.firstStdoutError;
    if (failed !== undefined) throw new OutputError(failed);
    if (data.length === 0) return;
    let written: Promise<void> | undefined;
    // Records on the terminal the progress line is on would run into it.
    const write = (): void => {
      written = new Promise<void>((resolve, reject) => {
        this.stdout.write(data, (err) => {
          if (err === null || err === undefined) resolve();
          else reject(new OutputError(this.firstStdoutError ?? err));
        });
      });
    };
    if (this.stdoutIsTTY) this.progress.around(write);
    else write();
    await written;
  }

  // Read when asked: a terminal resized while a command runs (`pets watch`'s table) is seen.
  get stdoutColumns(): number | undefined {
    return sizeOf(this.stdout, 'columns');
  }

  get stderrColumns(): number | undefined {
    return sizeOf(this.stderr, 'columns');
  }

  get stdoutRows(): number | undefined {
    return sizeOf(this.stdout, 'rows');
  }

  outNow(text: string): void {
    this.stdout.write(text);
  }

  wouldPage(lines: number): boolean {
    const rows = this.stdoutRows;
    if (this.pagerDisabled || !this.stdoutIsTTY || rows === undefined || lines <= rows - 1) return false;
    return (this.pagerChoice ??= { choice: this.choosePager() }).choice !== undefined;
  }

  disablePager(): void {
    this.pagerDisabled = true;
  }

  async startPager(): Promise<boolean> {
    if (this.pager !== undefined) return !this.pager.done;
    const choice = this.pagerChoice?.choice;
    if (choice === undefined) return false;
    const { RunningPager } = await import('./pager.js');
    // The pager draws on the terminal itself when stdout is the process's; else (tests)
    // what it prints is copied to stdout.
    const direct = this.stdout.fd === 1;
    this.progress.clear();
    this.pager = await RunningPager.start(choice, this.shutdown, direct ? undefined : (d) => void this.stdout.write(d));
    return this.pager !== undefined;
  }

  async stopPager(): Promise<void> {
    const pager = this.pager;
    if (pager === undefined) return;
    const code = await pager.finish();
    const text = this.paged;
    this.paged = [];
    this.pager = undefined;
    // The shell found no such command: the text is written as it is, so nothing is lost.
    if (code === 126 || code === 127) for (const d of text) await this.out(d);
  }

  flush(): Promise<void> {
    return Promise.all([flushed(this.stdout), flushed(this.stderr)]).then(() => undefined);
  }

  setJsonOutput(json: boolean): void {
    this.policy.jsonOutput = json;
  }

  jsonErrors(): boolean {
    return messageForm(this.policy, 'error') === 'json';
  }

  error(e: ErrorMessage): void {
    this.line(renderError(e, messageForm(this.policy, 'error'), this.style()));
  }

  setQuiet(quiet: boolean): void {
    this.quiet = quiet;
  }

  warn(message: string, opts?: { wrap?: number }): void {
    if (this.quiet || this.warned.has(message)) return;
    this.warned.add(message);
    this.message({ level: 'warning', message, wrap: opts?.wrap });
  }

  note(message: string, opts?: { always?: boolean }): void {
    if (this.quiet) return;
    if (this.stderrIsTTY || opts?.always === true) this.message({ level: 'note', message });
  }

  target(target: string): void {
    if (this.stderrIsTTY) this.message({ level: 'target', target });
  }

  summary(message: string, target: string): void {
    if (this.stderrIsTTY) this.message({ level: 'summary', message, target });
  }

  message(m: Message): void {
    this.line(renderMessage(m, messageForm(this.policy, kindOf(m)), this.style()));
  }

  prompt(): { input: Readable; output: Writable } {
    this.progress.clear();
    return { input: this.stdin, output: this.stderr };
  }

  /**
   * Writes whole lines on stderr, below the progress line's place, with every key the run
   * used masked (`usedKeys`: cli-contract.md "Errors and exit codes"): every message passes
   * here, so whatever a server echoed (its Error message, a header in `--verbose`) is masked
   * in both forms, text and JSON.
   */
  private line(text: string): void {
    this.progress.around(() => this.stderr.write(usedKeys.mask(text)));
  }

  private style(): TextStyle {
    const c = this.colorErr;
    return { columns: this.stderrColumns, yellow: c.yellow, red: c.red, dim: c.dim, target: c.magenta };
  }
}

/**
 * Writes the last words of a process that is being ended (`cli-entry.ts`, when nothing of
 * the run said why) on its stderr, synchronously.
 */
export function writeLastWords(line: string): void {
  process.stderr.write(`${usedKeys.mask(line)}\n`);
}

/**
 * Builds the Io of the real process from its streams, environment and shutdown registry.
 * `process.stdin` is made only when a command reads it: making it loads Node's file and
 * socket stream modules (about 5 ms), which a `pets list` never needs.
 */
export function processIo(env: EnvVars, noColorFlag: boolean, shutdown?: Shutdown): Promise<Io> {
  const streams: IoStreams = {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdin() {
      return process.stdin;
    },
    stdinIsTTY: isatty(0),
  };
  return createIo(streams, env, noColorFlag, shutdown);
}

/**
 * The CLI's entry: `main(argv, deps)` runs one command and returns its exit code. This is
 * the one place where errors become exit codes and messages (cli-contract.md "Errors and
 * exit codes"); commands throw, they never exit.
 */
import {
  ApiError,
  CliError,
  ExitCode,
  InterruptedError,
  OutputError,
  UsageError,
  errorFields,
  exitCodeFor,
} from './base/errors.js';
import { EnvVars } from './config/env.js';
import { createContext, sayCodeCacheNote, type RunState } from './factory.js';
import { prescan, toGlobalOptions, valueFlags } from './global-options.js';
import { parseFields } from './base/flag-values.js';
import { processIo, type ErrorMessage, type Io } from './io/io.js';
import { buildProgram } from './program.js';
import { describeApiError, escapeForTerminal, escapeKeepingLines } from './text/escape.js';
import type { ForcedEnd, Shutdown } from './base/shutdown.js';

/** Inputs of one run; tests pass their own. */
export interface MainDeps {
  /** The process's environment (read only through the registry: `config/env.ts`). */
  env: NodeJS.ProcessEnv;
  /** Defaults to the process's streams. */
  io?: Io;
  /** Aborted on Ctrl-C (or SIGTERM). */
  signal?: AbortSignal;
  /**
   * The clock: what `ctx.now()` answers (deprecation dates, the Sunset of getPet). Defaults
   * to the real one; tests pass another to run on a given day.
   */
  now?: () => Date;
  /**
   * The process's shutdown registry (`cli-entry.ts` drives it); given `io`, the Io's own
   * is used instead.
   */
  shutdown?: Shutdown;
  /** The current directory (where files without a place of their own go); the process's by default. */
  cwd?: string;
  /** Why the shim's code cache was not used (`cli-entry.ts` RunOptions): said once under `--verbose`. */
  codeCacheNote?: string | undefined;
}

/**
 * Runs the CLI with `argv` (without `node` and the script). Returns the exit code;
 * never throws, never calls `process.exit`.
 */
export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const env = new EnvVars(deps.env);
  // The tree comes first: argv is read with its flags that take a value, and the Io (its
  // colour) is made from what argv says. Commander's output reaches the Io only while it parses.
  const built = buildProgram(
    () => state.io,
    (flags) => createContext(state, toGlobalOptions(flags, env)),
  );
  const scan = prescan(argv, valueFlags(built.program));
  const io = deps.io ?? (await processIo(env, scan.noColor, deps.shutdown));
  const state: RunState = {
    io,
    env,
    signal: deps.signal ?? new AbortController().signal,
    now: deps.now ?? (() => new Date()),
    cwd: deps.cwd ?? process.cwd(),
    cleanups: [],
    verbose: false,
    codeCacheNote: deps.codeCacheNote,
  };
  io.setJsonOutput(scan.json);
  // cli-contract.md "Output": `--no-pager` turns the pager off for any command, help included.
  if (scan.noPager) io.disablePager();
  let code: number;
  const report = (err: unknown): number =>
    reportError(err, state, (e) => fromCommander(e, scan.afterJson, built.failedCommand(), spacedDryRun(scan.argv)));
  const unregister = io.shutdown.add({
    onForcedEnd: (end) => reportForcedEnd(end, state, report),
    doing: () => {
      const words = built.running();
      return words === undefined ? undefined : `running \`petstore ${words.join(' ')}\``;
    },
  });
  try {
    // A value PETSTORE_MESSAGES does not allow is a usage error, like any variable's.
    env.get('PETSTORE_MESSAGES');
    built.program.hook('preAction', () => sayCodeCacheNote(state, built.program.opts().verbose === true));
    if (scan.refused !== undefined) throw scan.refused;
    await built.program.parseAsync(scan.argv, { from: 'user' });
    await writeHelp(built.takeHelp(), io);
    code = built.exitCode() ?? ExitCode.ok;
    // The person reads a paged table to the end; then what was written last may fail
    // only once it is flushed (a full disk, a closed pipe).
    await io.stopPager();
    await io.flush();
    const failed = io.stdoutError();
    if (failed !== undefined) throw new OutputError(failed);
  } catch (err) {
    // Help ends the parse with commander's own error (`commander.helpDisplayed`, exit 0).
    await writeHelp(built.takeHelp(), io).catch(() => undefined);
    // A pager petstore started is waited for before the error is said, so that it stands
    // below what the pager showed (cli-contract.md "Errors and exit codes").
    await io.stopPager().catch(() => undefined);
    code = report(err);
  } finally {
    unregister();
    for (const fn of state.cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // Cleanup failures must not mask the command's own result.
      }
    }
  }
  return code;
}

/**
 * Writes help (or the version) that commander wrote during the parse (`Program.takeHelp`):
 * on a terminal, help longer than the screen goes through the pager, which is waited for
 * (cli-contract.md "Output"); otherwise, and with `--no-pager`, straight to stdout.
 */
async function writeHelp(text: string | undefined, io: Io): Promise<void> {
  if (text === undefined) return;
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (io.wouldPage(lines) && (await io.startPager())) {
    await io.out(text);
    await io.stopPager();
    return;
  }
  io.outNow(text);
}

/**
 * What the run says when the process is ended before its command returned (`cli-entry.ts`):
 * after a signal, what the command set to report then (`Context.atForcedEnd`: a bulk
 * create's account, an incomplete list), else the interruption itself, so that stderr
 * always says why the run ended; when nothing was left that could finish it, an internal
 * error naming what it was doing, with that report's account. Always says something: true.
 */
function reportForcedEnd(end: ForcedEnd, state: RunState, report: (err: unknown) => number): boolean {
  const last = state.lastWords?.();
  if (end.kind === 'signal') {
    report(last ?? new InterruptedError(end.signal));
    return true;
  }
  const account = last instanceof CliError ? last : undefined;
  report(
    new CliError(stalledMessage(end.doing), {
      exitCode: ExitCode.failure,
      code: 'internal',
      hint: [account?.message, account?.hint, BUG_REPORT].filter((line) => line !== undefined).join('\n'),
      details: account?.details,
    }),
  );
  return true;
}

/**
 * What a run that stalled says (its event loop drained before its command returned;
 * `doing`, what it was doing then, from the shutdown registry): here, and from `cli-entry.ts`
 * when nothing of the run said it.
 */
export function stalledMessage(doing: string | undefined): string {
  return `internal error: petstore ended without a result${doing === undefined ? '' : ` while ${doing}`} (nothing was left for it to wait for)`;
}

/** What an internal error asks of the person who meets it. */
const BUG_REPORT = 'This looks like a bug in petstore; please report it.';

/** The shape of commander's own errors (`commander.unknownOption`, ...). */
interface CommanderErrorLike {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(err: unknown): err is CommanderErrorLike {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('commander.')
  );
}

/**
 * Whether `curl` follows a bare `--dry-run` (which `prescan` wrote `--dry-run=`) before any
 * `--`: the curl form asked for with a space, which is the flag and then an argument.
 */
function spacedDryRun(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const words = end < 0 ? argv : argv.slice(0, end);
  return words.some((w, i) => w === '--dry-run=' && words[i + 1] === 'curl');
}

/** A word that looks like a field list, as gh's `--json` takes it: `id` or `id,name,status`. */
const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(?:,[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Turns commander's own error into a UsageError whose hint points at the nearest help
 * (`petstore pets --help` for `petstore pets lst`; `failedAt` is the command that raised
 * it). A field list after `--json` (`fields`, the word after it) that names something not a
 * field (`--json id,nme`), which commander sees as an extra argument or an unknown command,
 * is reported as such; so is `--dry-run curl` (`dryRunCurl`), written with a space.
 */
function fromCommander(
  err: CommanderErrorLike,
  fields: string | undefined,
  failedAt: string[] | undefined,
  dryRunCurl = false,
): UsageError {
  if (err.code === 'commander.excessArguments' && dryRunCurl) {
    return new UsageError(
      '--dry-run takes its value only after =: `--dry-run curl` is the flag, then an argument',
      'For the curl command, write --dry-run=curl.',
    );
  }
  if (err.code === 'commander.excessArguments' || err.code === 'commander.unknownCommand') {
    if (fields !== undefined && FIELD_LIST.test(fields) && !(failedAt ?? []).includes(fields)) {
      if (err.code === 'commander.excessArguments' || err.message.includes(`'${fields}'`)) {
        try {
          parseFields(fields, '--json');
        } catch (fieldError) {
          if (fieldError instanceof UsageError) return fieldError;
        }
      }
    }
  }
  const help = `Run \`${['petstore', ...(failedAt ?? [])].join(' ')} --help\` for usage.`;
  if (err.code === 'commander.help') return new UsageError('missing command', help);
  return new UsageError(err.message.replace(/^error: /, ''), help);
}

/**
 * Prints an error the contract's way (through Io, which decides text or JSON) and returns
 * its exit code; `translate` turns commander's own errors into UsageErrors.
 */
function reportError(thrown: unknown, state: RunState, translate: (err: CommanderErrorLike) => UsageError): number {
  let err = thrown;
  // Whatever a signal made the command throw is the interruption, unless it says more.
  const plain = !(err instanceof CliError) || (err instanceof InterruptedError && err.account === undefined);
  if (state.signal.aborted && plain) err = InterruptedError.from(state.signal);
  // cli-contract.md "Network behaviour": a read command whose reader went away (`| head -1`)
  // ends quietly with exit 0; write commands turn this into an account of their own.
  if (err instanceof OutputError && err.errno === 'EPIPE') return ExitCode.ok;
  if (isCommanderError(err)) {
    // --help, --version, and help shown because a command word is missing (`petstore pets`).
    if (err.exitCode === 0 || err.code === 'commander.help') return ExitCode.ok;
    err = translate(err);
  }
  state.io.error(errorMessage(err, state));
  return exitCodeFor(err);
}

/** What Io writes for an error: its JSON fields and its text form. */
function errorMessage(err: unknown, state: RunState): ErrorMessage {
  if (!(err instanceof CliError)) {
    const e = err instanceof Error ? err : new Error(String(err));
    return {
      ...errorFields(e),
      text: `internal error: ${escapeForTerminal(e.message)}`,
      after: [
        BUG_REPORT,
        state.verbose && e.stack !== undefined ? e.stack : 'Run again with --verbose to see the stack trace.',
      ],
    };
  }
  const { hint, ...fields } = errorFields(err);
  if (err instanceof InterruptedError) return { ...fields, interrupted: { note: err.account } };
  // The terminal echoed Ctrl-C as `^C` where the cursor was: the report starts on a line of
  // its own, or its first line would run two columns past the width.
  const afterEcho = state.signal.aborted && state.signal.reason !== 'SIGTERM' && state.io.stderrIsTTY;
  // A server's Error code and message are one line of text it chose: every control, bidi and
  // format character is escaped, so it can neither drive the terminal nor forge a line.
  const text = err instanceof ApiError ? describeApiError(err) : undefined;
  return {
    ...fields,
    // The request id the support desk asks for closes the error's own line (`requestIdOf`
    // already escaped it).
    text: err.requestId === undefined ? text : `${text ?? escapeKeepingLines(err.message)} (request ${err.requestId})`,
    hint,
    newLine: afterEcho,
  };
}

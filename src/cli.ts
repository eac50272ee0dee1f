/**
 * The CLI's entry: `main(argv, deps)` runs one command and returns its exit code. This is
 * the one place where errors become exit codes and messages (cli-contract.md "Errors and
 * exit codes"); commands throw, they never exit.
 */
import { ApiError, CliError, ExitCode, InterruptedError, OutputError, UsageError, exitCodeFor } from './errors.js';
import { createContext, type RunState } from './factory.js';
import { toGlobalOptions } from './global-options.js';
import { processIo, type Io } from './io.js';
import { escapeForTerminal, escapeJsonText, escapeKeepingLines } from './render/escape.js';

/** Inputs of one run; tests pass their own. */
export interface MainDeps {
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
}

/**
 * Runs the CLI with `argv` (without `node` and the script). Returns the exit code;
 * never throws, never calls `process.exit`.
 */
export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const io = deps.io ?? (await processIo(deps.env, argv.includes('--no-color')));
  const state: RunState = {
    io,
    env: deps.env,
    signal: deps.signal ?? new AbortController().signal,
    now: deps.now ?? (() => new Date()),
    cleanups: [],
    jsonErrors: guessJsonErrors(argv),
    warned: new Set(),
    verbose: false,
  };
  let code: number;
  try {
    const { buildProgram } = await import('./program.js');
    // With --output json|ndjson, stderr carries only the one JSON error object, so the
    // help commander prints for a missing command word is left out (cli-contract.md "Errors").
    const { program, exitCode } = buildProgram(
      io,
      (flags) => createContext(state, toGlobalOptions(flags, deps.env)),
      () => state.jsonErrors,
    );
    await program.parseAsync(argv, { from: 'user' });
    code = exitCode() ?? ExitCode.ok;
    // What was written last may fail only once it is flushed (a full disk, a closed pipe).
    await flushed(io);
    const failed = io.stdoutError();
    if (failed !== undefined) throw new OutputError(failed);
  } catch (err) {
    code = reportError(err, state);
  } finally {
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

/** Waits until stdout has taken everything written so far (errors are read from `io.stdoutError`). */
function flushed(io: Io): Promise<void> {
  return new Promise((resolve) => {
    if (io.stdout.destroyed || io.stdout.writableEnded) {
      resolve();
      return;
    }
    io.stdout.write('', () => {
      resolve();
    });
  });
}

/** `--output json|ndjson` or `--json` anywhere in argv (before `--`). */
function guessJsonErrors(argv: string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--json' || a === '--output=json' || a === '--output=ndjson' || a === '-ojson' || a === '-ondjson')
      return true;
    if ((a === '--output' || a === '-o') && (argv[i + 1] === 'json' || argv[i + 1] === 'ndjson')) return true;
  }
  return false;
}

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

/** Prints an error the contract's way and returns its exit code. */
function reportError(thrown: unknown, state: RunState): number {
  const { io } = state;
  let err = thrown;
  if (state.signal.aborted && !(err instanceof CliError && !(err instanceof InterruptedError))) {
    err = InterruptedError.from(state.signal);
  }
  // cli-contract.md "Network behaviour": a read command whose reader went away (`| head -1`)
  // ends quietly with exit 0; write commands turn this into an account of their own.
  if (err instanceof OutputError && err.errno === 'EPIPE') return ExitCode.ok;
  if (isCommanderError(err)) {
    if (err.exitCode === 0) return ExitCode.ok; // --help, --version
    // Help shown because a command word is missing (`petstore pets`): a usage error, already explained.
    if (err.code === 'commander.help' && !state.jsonErrors) return ExitCode.usage;
    err =
      err.code === 'commander.help'
        ? new UsageError('missing command', 'Run `petstore --help` for usage.')
        : new UsageError(err.message.replace(/^error: /, ''), 'Run `petstore --help` for usage.');
  }
  const code = exitCodeFor(err);
  if (state.jsonErrors) {
    const body =
      err instanceof CliError
        ? { code: err.code, message: err.message, status: err.status, ...err.details }
        : { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 0 };
    io.stderr.write(escapeJsonText(JSON.stringify(body)) + '\n');
    return code;
  }
  const red = io.colorErr.red;
  if (err instanceof InterruptedError) {
    io.stderr.write('\n');
    return code;
  }
  if (!(err instanceof CliError)) {
    const e = err instanceof Error ? err : new Error(String(err));
    io.stderr.write(
      `${red('error:')} internal error: ${escapeKeepingLines(e.message)}\nThis looks like a bug in petstore; please report it.\n`,
    );
    if (state.verbose && e.stack !== undefined) io.stderr.write(`${e.stack}\n`);
    else io.stderr.write('Run again with --verbose to see the stack trace.\n');
    return code;
  }
  // A server's Error code and message are one line of text it chose: every control, bidi and
  // format character is escaped, so it can neither drive the terminal nor forge a line.
  const message =
    err instanceof ApiError
      ? `${escapeForTerminal(err.message)} (${escapeForTerminal(err.code)}, HTTP ${err.status})`
      : escapeKeepingLines(err.message);
  io.stderr.write(`${red('error:')} ${message}\n`);
  if (err.hint !== undefined) io.stderr.write(`${escapeKeepingLines(err.hint)}\n`);
  return code;
}

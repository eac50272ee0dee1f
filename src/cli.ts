/**
 * The CLI's entry: `main(argv, deps)` runs one command and returns its exit code. This is
 * the one place where errors become exit codes and messages (cli-contract.md "Errors and
 * exit codes"); commands throw, they never exit.
 */
import { ApiError, CliError, ExitCode, InterruptedError, UsageError, exitCodeFor } from './errors.js';
import { parseGlobalOptions, type Api, type Context, type GlobalOptions } from './context.js';
import { processIo, type Io } from './io.js';
import type { Connection, LoadConfig } from './config/settings.js';

/** Inputs of one run; tests pass their own. */
export interface MainDeps {
  env: NodeJS.ProcessEnv;
  /** Defaults to the process's streams. */
  io?: Io;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
}

/** State shared between `main` and the context it builds. */
interface RunState {
  io: Io;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  cleanups: (() => Promise<void> | void)[];
  globals: GlobalOptions | undefined;
  /** Output mode guessed from argv before parsing, for errors raised while parsing. */
  jsonErrors: boolean;
  warned: Set<string>;
}

/**
 * Runs the CLI with `argv` (without `node` and the script). Returns the exit code;
 * never throws, never calls `process.exit`.
 */
export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const noColorFlag = argv.includes('--no-color');
  const io = deps.io ?? (await processIo(deps.env, noColorFlag));
  const state: RunState = {
    io,
    env: deps.env,
    signal: deps.signal ?? new AbortController().signal,
    cleanups: [],
    globals: undefined,
    jsonErrors: guessJsonErrors(argv),
    warned: new Set(),
  };
  let code: number;
  try {
    const { buildProgram } = await import('./program.js');
    // With --output json|ndjson, stderr carries only the one JSON error object, so the
    // help commander prints for a missing command word is left out (cli-contract.md "Errors").
    const programIo: Io = { ...io, stderr: { write: (s: string) => (state.jsonErrors ? true : io.stderr.write(s)) } };
    const program = buildProgram(programIo, (raw) => createContext(state, parseGlobalOptions(raw, deps.env)));
    await program.parseAsync(argv, { from: 'user' });
    code = ExitCode.ok;
    const returned = (program as { petstoreExitCode?: number }).petstoreExitCode;
    if (returned !== undefined) code = returned;
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

function createContext(state: RunState, globals: GlobalOptions): Context {
  state.globals = globals;
  state.jsonErrors = globals.output === 'json' || globals.output === 'ndjson';
  const { io, env } = state;
  let configPromise: ReturnType<LoadConfig> | undefined;
  const loadConfig: LoadConfig = () => {
    configPromise ??= import('./config/store.js').then((m) => m.loadConfigStore(env, (msg) => ctx.warn(msg)));
    return configPromise;
  };
  let apiPromise: Promise<Api> | undefined;
  const ctx: Context = {
    io,
    env,
    globals,
    signal: state.signal,
    loadConfig,
    connect: () => (apiPromise ??= connect(ctx)),
    defer: (fn) => state.cleanups.push(fn),
    // With --output json|ndjson every stderr line is one JSON object, so a script can parse
    // stderr line by line; the error, when there is one, is the last line.
    warn: (message) => {
      if (state.warned.has(message)) return;
      state.warned.add(message);
      if (state.jsonErrors) io.stderr.write(JSON.stringify({ level: 'warning', message }) + '\n');
      else io.stderr.write(`${io.colorErr.yellow('warning:')} ${message}\n`);
    },
    note: (message) => {
      if (!io.stderrIsTTY) return;
      if (state.jsonErrors) io.stderr.write(JSON.stringify({ level: 'note', message }) + '\n');
      else io.stderr.write(`${io.colorErr.dim(message)}\n`);
    },
    renderMode: () => (globals.output === 'table' ? (io.stdoutIsTTY ? 'table' : 'tsv') : globals.output),
  };
  return ctx;
}

async function connect(ctx: Context): Promise<Api> {
  const { lacksVersionSegment, resolveEnvironment, resolveRemote } = await import('./config/settings.js');
  const { globals, env } = ctx;
  const environment = await resolveEnvironment(globals.env, env, ctx.loadConfig);
  let connection: Connection;
  if (environment.value === 'sandbox') {
    if (globals.baseUrl !== undefined) {
      throw new UsageError('--base-url cannot be used with the sandbox environment: the sandbox runs inside petstore');
    }
    const [{ startSandbox }, { SandboxStore }, { sandboxDataFile }] = await Promise.all([
      import('./sandbox/server.js'),
      import('./sandbox/store.js'),
      import('./config/paths.js'),
    ]);
    const store = new SandboxStore(sandboxDataFile(env));
    // Read before serving: unreadable data is then a ConfigError (exit 2, its path and the
    // reset hint) instead of a 500 from the embedded server (exit 1).
    await store.read();
    const sandbox = await startSandbox({ store });
    ctx.defer(() => sandbox.close());
    // PETSTORE_BASE_URL and PETSTORE_API_KEY are for remote environments; the embedded
    // server's own URL and key are used so a real key never goes to it.
    connection = {
      environment,
      baseUrl: { value: sandbox.baseUrl, source: 'sandbox', from: 'sandbox' },
      apiKey: { value: sandbox.apiKey, source: 'sandbox', from: 'sandbox' },
    };
  } else {
    connection = await resolveRemote(environment, globals.baseUrl, env, ctx.loadConfig);
    // The API's paths start after the version segment (spec §9); without it every call
    // would likely answer 404, which reads like "no such pet".
    if (lacksVersionSegment(connection.baseUrl.value)) {
      ctx.warn(
        `base URL ${connection.baseUrl.value} (from ${connection.baseUrl.from}) does not end with the version segment /v1`,
      );
    }
    if (environment.value === 'staging') ctx.note(`env: staging (${connection.baseUrl.value})`);
  }
  const [{ HttpTransport }, { PetstoreClient }] = await Promise.all([
    import('./http/transport.js'),
    import('./api/client.js'),
  ]);
  const transport = new HttpTransport({
    apiKey: connection.apiKey.value,
    timeoutMs: globals.timeoutMs,
    retries: globals.retries,
    signal: ctx.signal,
    log: globals.verbose ? (line) => ctx.io.stderr.write(`${line}\n`) : undefined,
  });
  ctx.defer(() => transport.close());
  return { client: new PetstoreClient(transport, connection.baseUrl.value), transport, connection };
}

/** Prints an error the contract's way and returns its exit code. */
function reportError(err: unknown, state: RunState): number {
  const { io } = state;
  if (state.signal.aborted && !(err instanceof CliError && err.exitCode !== ExitCode.interrupted)) {
    err = new InterruptedError();
  }
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
        ? { code: err.code, message: err.message, status: err.status }
        : { code: 'internal', message: (err as Error)?.message ?? String(err), status: 0 };
    io.stderr.write(JSON.stringify(body) + '\n');
    return code;
  }
  const red = io.colorErr.red;
  if (err instanceof InterruptedError) {
    io.stderr.write('\n');
    return code;
  }
  if (err instanceof ApiError) {
    io.stderr.write(`${red('error:')} ${err.message} (${err.code}, HTTP ${err.status})\n`);
  } else if (err instanceof CliError) {
    io.stderr.write(`${red('error:')} ${err.message}\n`);
  } else {
    const e = err instanceof Error ? err : new Error(String(err));
    io.stderr.write(
      `${red('error:')} internal error: ${e.message}\nThis looks like a bug in petstore; please report it.\n`,
    );
    if (state.globals?.verbose === true && e.stack !== undefined) io.stderr.write(`${e.stack}\n`);
    else io.stderr.write('Run again with --verbose to see the stack trace.\n');
    return code;
  }
  if (err.hint !== undefined) io.stderr.write(`${err.hint}\n`);
  return code;
}

function isCommanderError(err: unknown): err is { code: string; exitCode: number; message: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('commander.')
  );
}

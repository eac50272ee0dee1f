/**
 * Builds the Context of one run (gh's `cmdutil.Factory`): messages on stderr, the lazily
 * loaded config store, settings resolution, the transport factory, and `connect()`, which
 * starts the embedded sandbox when it is selected and builds the API client. Everything
 * heavy is imported on first use, so `--help` and usage errors load none of it.
 */
import type { ClientHints } from './client/client.js';
import type {
  Api,
  ConnectOptions,
  Context,
  LifecycleContext,
  SettingsContext,
  TerminalContext,
  TransportChoices,
} from './context.js';
import type { RemoteEnvName } from './config/environments.js';
import {
  lacksVersionSegment,
  requireEnvironment,
  requireRemote,
  resolveSettings,
  type ConfigReader,
  type Connection,
  type LoadConfig,
  type RunKeyCommand,
  type Settings,
} from './config/settings.js';
import { UsageError } from './base/errors.js';
import type { GlobalOptions } from './global-options.js';
import type { KeySource } from './http/key-refresh.js';
import type { HttpTransport } from './http/transport.js';
import type { JqFilter } from './render/jq.js';
import type { RecordOutput } from './render/output.js';
import { describeTarget } from './render/target.js';
import { wasmFlagsSet } from './base/shim.js';
import { suggestCommand } from './base/suggest.js';
import { formatCount } from './text/count.js';

/**
 * What one run shares between `main` and its Context: the Context's Io, environment, clock,
 * directory (`MainDeps`) and signal, and what `main` keeps of the command.
 */
export interface RunState
  extends Pick<TerminalContext, 'io'>, Pick<SettingsContext, 'env' | 'now' | 'cwd'>, Pick<LifecycleContext, 'signal'> {
  /** Run in reverse order when the command ends. */
  cleanups: (() => Promise<void> | void)[];
  /** Whether `--verbose` was given (for the stack of an unexpected error). */
  verbose: boolean;
  /** What to report if the process is ended before the command returns (`Context.atForcedEnd`). */
  lastWords?: () => unknown;
  /** Why the shim's code cache was not used (`MainDeps.codeCacheNote`); cleared once said. */
  codeCacheNote?: string | undefined;
}

/**
 * Says why the shim's code cache was not used (`RunState.codeCacheNote`), once, as a
 * `--verbose` line, when `--verbose` (`verboseFlag`: given) or PETSTORE_DEBUG is in effect. Called as
 * any command's action starts (commander's preAction), so before its own `--verbose` lines,
 * and for commands without a Context (`version`) too.
 */
export function sayCodeCacheNote(state: RunState, verboseFlag: boolean): void {
  if (state.codeCacheNote === undefined) return;
  if (!verboseFlag && debugLevel(state.env.get('PETSTORE_DEBUG')) === undefined) return;
  state.io.message({ level: 'verbose', message: state.codeCacheNote });
  state.codeCacheNote = undefined;
}

/** Builds the Context of a command from the run's state and its global options. */
export function createContext(state: RunState, globals: GlobalOptions): Context {
  state.io.setJsonOutput(globals.output === 'json' || globals.output === 'ndjson');
  state.io.setQuiet(globals.quiet);
  state.verbose = globals.verbose || debugLevel(state.env.get('PETSTORE_DEBUG')) !== undefined;
  const { io, env } = state;
  let configPromise: Promise<ConfigReader> | undefined;
  const loadConfig: LoadConfig = () => {
    configPromise ??= import('./config/store.js').then((m) => m.loadConfigStore(env, (msg) => ctx.warn(msg)));
    return configPromise;
  };
  const keyCommands = keyCommandRunner(state);
  const runKeyCommand = keyCommands.run;
  let apiPromise: Promise<Api> | undefined;
  let resolving: Promise<Resolved> | undefined;
  let outputPromise: Promise<RecordOutput> | undefined;
  // The environment the run resolved to, once it has (for suggested commands).
  let resolvedEnv: string | undefined;
  // cli-contract.md "Environments": a variable given way to by --env is named (Io says a warning once).
  const warnIgnored = (settings: Settings): void => {
    const remote = settings.remotes.find((r) => r.selected);
    if (remote === undefined || remote.ignored.length === 0) return;
    // Short enough for one line of 80 columns with most names.
    ctx.warn(`--env ${remote.name} wins over ${remote.ignored.join(' and ')}`);
  };
  const ctx: Context = {
    io,
    env,
    globals,
    signal: state.signal,
    now: state.now,
    cwd: state.cwd,
    loadConfig,
    settings: async (scope, opts) => {
      const settings = await resolveSettings(
        { envFlag: globals.env, baseUrlFlag: globals.baseUrl, env, loadConfig, runKeyCommand },
        { scope, keys: opts?.keys },
      );
      if (settings.environment.ok) resolvedEnv = settings.environment.value;
      warnIgnored(settings);
      return settings;
    },
    suggest: (words) =>
      suggestCommand(words, {
        env: resolvedEnv ?? globals.env,
        envFlag: globals.env !== undefined,
        baseUrlFlag: globals.baseUrl,
      }),
    // --jq starts alongside, and a write waits for jq's check: a bad expression fails before
    // its request. A read's leaves at once (jq takes longer to start than the request to
    // send), and its answer is dropped when the expression is refused (the runner's verdict).
    connect: (options) =>
      (apiPromise ??= Promise.all([
        (resolving ??= resolveConnection(ctx, keyCommands.rereadable, options?.dryRun === true)).then(
          async (resolved) => {
            const { client, connection, retryPolicy } = await openApi(ctx, resolved, options ?? {});
            return { client, connection, retryPolicy };
          },
        ),
        globals.jq === undefined || options?.reads === true ? undefined : ctx.recordOutput().then((o) => o.jq?.check()),
      ]).then(([api]) => api)),
    connectCall: async (options) =>
      openApi(ctx, await (resolving ??= resolveConnection(ctx, keyCommands.rereadable)), options, 'caller'),
    createTransport: (apiKey, choices = {}) => openTransport(state, globals, apiKey, choices),
    defer: (fn) => state.cleanups.push(fn),
    shutdown: io.shutdown,
    atForcedEnd: (report) => {
      state.lastWords = report;
      return () => {
        if (state.lastWords === report) state.lastWords = undefined;
      };
    },
    warn: (message, opts) => io.warn(message, opts),
    note: (message, opts) => io.note(message, opts),
    // Said once, honoured always: only when no format was asked for does the terminal decide.
    output: globals.outputExplicit ? globals.output : io.stdoutIsTTY ? 'table' : 'tsv',
    recordOutput: () => (outputPromise ??= openRecordOutput(ctx, state)),
  };
  return ctx;
}

/**
 * The run's RecordOutput. With `--jq`, jq (a worker thread) is started here (the runner
 * starts this as the command starts; a write's `connect` then waits for its check of the
 * expression, `JqFilter.check`), and stopped when the command ends.
 */
async function openRecordOutput(
  ctx: Pick<Context, 'io' | 'output' | 'globals'>,
  state: RunState,
): Promise<RecordOutput> {
  let jq: JqFilter | undefined;
  const expression = ctx.globals.jq;
  if (expression !== undefined) {
    const opening = import('./render/jq.js').then(({ JqFilter }) =>
      JqFilter.open(expression, state.signal, ctx.globals.timeoutMs),
    );
    // Registered at once: the command may end (a usage error) while jq is still starting.
    state.cleanups.push(async () => {
      await (await opening.catch(() => undefined))?.close();
    });
    jq = await opening;
  }
  return {
    io: ctx.io,
    mode: ctx.output,
    fields: ctx.globals.fields,
    jq,
    jqMessage: (line) => ctx.io.message({ level: 'debug', message: line }),
  };
}

/**
 * The run's `apiKeyCommand`s (cli-contract.md "Environments": once per run, and once more
 * after a 401, at most once a minute): `run` runs an environment's at most once, `rereadable`
 * gives the key it printed as a key the transports may have it run again for after a 401
 * (one per environment, shared by every transport of the run). Each runs without petstore's
 * secrets in its environment; its stderr is shown line by line, escaped (as Io writes every
 * message: text, or JSON objects), its first 64 KiB, then a warning saying how many bytes
 * were dropped.
 */
function keyCommandRunner(state: RunState): {
  run: RunKeyCommand;
  rereadable: (name: RemoteEnvName, key: string) => Promise<KeySource | undefined>;
} {
  const runs = new Map<RemoteEnvName, { command: string; key: Promise<string> }>();
  const keys = new Map<RemoteEnvName, Promise<KeySource>>();
  const runOnce = async (name: RemoteEnvName, command: string): Promise<string> => {
    const setting = `${name}.apiKeyCommand`;
    const m = await import('./config/key-command.js');
    return m.runKeyCommand(
      { command, setting },
      {
        env: state.env.forChild(),
        signal: state.signal,
        onStderrLine: (line) => state.io.message({ level: 'stderr', from: setting, message: line }),
        onStderrDropped: (dropped) =>
          state.io.warn(
            `${setting} wrote more on stderr than the ${m.MAX_RELAYED_STDERR_BYTES / 1024} KiB shown; the other ${formatCount(dropped)} bytes were dropped`,
          ),
      },
    );
  };
  // Run again after a 401: a failure is said as a warning, and the 401 stands (exit 4).
  const rerun = (name: RemoteEnvName, command: string): Promise<string | undefined> =>
    runOnce(name, command).catch((err: unknown) => {
      if (!state.signal.aborted)
        state.io.warn(`${err instanceof Error ? err.message : String(err)} (run again after a 401)`);
      return undefined;
    });
  return {
    run: (name, command) => {
      let run = runs.get(name);
      if (run === undefined) {
        run = { command, key: runOnce(name, command) };
        runs.set(name, run);
      }
      return run.key;
    },
    rereadable: async (name, key) => {
      const run = runs.get(name);
      if (run === undefined) return undefined;
      let source = keys.get(name);
      if (source === undefined) {
        source = import('./http/key-refresh.js').then(
          (m) => new m.RereadableKey(key, () => rerun(name, run.command), state.now),
        );
        keys.set(name, source);
      }
      return source;
    },
  };
}

/** The connection a run resolved once: the environment, and the embedded sandbox's failures. */
interface Resolved {
  connection: Connection;
  sandboxFailure: (() => Error | undefined) | undefined;
  /** The key's source when it may be read again after a 401 (an `apiKeyCommand`'s). */
  rereadKey?: KeySource | undefined;
}

/**
 * Resolves the selected environment (starting the embedded sandbox when it is selected) and
 * names a remote one on a terminal.
 */
async function resolveConnection(
  ctx: Context,
  rereadable: (name: RemoteEnvName, key: string) => Promise<KeySource | undefined>,
  dryRun = false,
): Promise<Resolved> {
  const settings = await ctx.settings('selected', dryRun ? { keys: 'unread' } : undefined);
  const environment = requireEnvironment(settings);
  if (environment.value === 'sandbox') {
    const { baseUrl, apiKey, failure } = await startEmbeddedSandbox(ctx);
    // The sandbox is petstore's own play store: nothing there is worth a question; and it
    // honours Idempotency-Key (docs/sandbox.md).
    return {
      connection: { environment, baseUrl, apiKey, confirmWrites: false, idempotencyKeys: true },
      sandboxFailure: failure,
    };
  }
  // The API's paths start after the version segment (spec §9); without it every call
  // would likely answer 404, which reads like "no such pet". Said before any key error,
  // since the URL is what to fix first.
  const connection = requireRemote(settings, (baseUrl) => {
    if (lacksVersionSegment(baseUrl.value)) {
      ctx.warn(`base URL ${baseUrl.value} (from ${baseUrl.from}) does not end with the version segment /v1`);
    }
  });
  // Every remote environment, production included, is named on a terminal before
  // anything is sent (cli-contract.md "Environments"): a run meant for staging that goes
  // to production is seen at once. `Io.target` prints nothing off a terminal.
  ctx.io.target(describeTarget(connection));
  // Only a key command's key is read again: PETSTORE_API_KEY and the stored key would give the same.
  const { apiKey } = connection;
  const rereadKey =
    apiKey.source === 'command' && !dryRun ? await rereadable(environment.value, apiKey.value) : undefined;
  return { connection, sandboxFailure: undefined, rereadKey };
}

/** A client of `resolved` on a transport of its own, opened now (its deadline counts from now). */
async function openApi(
  ctx: Context,
  resolved: Resolved,
  options: ConnectOptions,
  lifetime: 'run' | 'caller' = 'run',
): Promise<Api & { close: () => Promise<void> }> {
  const { connection, sandboxFailure } = resolved;
  const sandbox = connection.environment.value === 'sandbox';
  const [transport, { PetstoreClient }] = await Promise.all([
    // The key the run has now: a call opened after a 401 replaced it starts with the new one.
    ctx.createTransport(resolved.rereadKey?.current() ?? connection.apiKey.value, {
      ...options,
      rereadKey: resolved.rereadKey,
      // The embedded sandbox announces its idle timeout (`Keep-Alive: timeout=5`, which undici
      // honours with a margin) and closes no connection sooner: no request can meet a
      // connection it is closing, so connections are kept whatever a remote server needs.
      connectionReuse: sandbox ? 'keep-alive' : options.connectionReuse,
      direct: sandbox,
      unreachableHint: sandbox ? undefined : unreachableHint(connection),
      serverFailure: sandboxFailure,
      lifetime,
    }),
    import('./client/client.js'),
  ]);
  if (lifetime === 'run') boundJq(ctx, transport.commandDeadline);
  return {
    client: new PetstoreClient(transport, connection.baseUrl.value, clientHints(ctx, connection)),
    connection,
    retryPolicy: transport.policy,
    close: () => transport.close(),
  };
}

/**
 * `--jq` runs under `--timeout` (cli-contract.md "Network behaviour"): the command's one
 * deadline, the clock its requests run on, when there is one; otherwise (a bulk create,
 * whose `--timeout` bounds each record's request) each run of the filter has `--timeout`
 * of its own, as it had from the start. A bad expression's error is `connect`'s to report
 * (or, for a read, the runner's).
 */
function boundJq(ctx: Pick<Context, 'globals' | 'recordOutput'>, deadline: AbortSignal | undefined): void {
  if (ctx.globals.jq === undefined || deadline === undefined) return;
  // Not awaited: a read's request must not wait for jq to start. This reaction is attached
  // before the command's own `await ctx.recordOutput()`, so it runs first: no run of the
  // filter starts unbounded.
  ctx.recordOutput().then(
    (output) => output.jq?.boundBy(deadline),
    () => undefined,
  );
}

/**
 * Where the base URL came from, in words a user can act on: the flag, the variable, or the
 * config key with the command that changes it.
 */
function baseUrlSource({ baseUrl }: Connection): string {
  if (baseUrl.source === 'flag') return '--base-url';
  if (baseUrl.source === 'env') return 'PETSTORE_BASE_URL';
  return `${baseUrl.from} in the config file (\`petstore config set ${baseUrl.from} URL\` changes it)`;
}

/** The line under "cannot reach HOST": the base URL and where it came from. */
function unreachableHint(connection: Connection): string {
  return `Check that the server is up and that ${connection.baseUrl.value} is right; it comes from ${baseUrlSource(connection)}.`;
}

/** The hints under API errors, naming this run's environment and where its key and URL came from. */
function clientHints(ctx: Pick<SettingsContext, 'suggest'>, connection: Connection): Partial<ClientHints> {
  const { environment, apiKey } = connection;
  if (environment.value === 'sandbox')
    return { notFoundPet: `List the pets that exist with \`${ctx.suggest('pets list')}\`.` };
  const login = ctx.suggest('auth login');
  return {
    unauthorized:
      apiKey.source === 'env'
        ? `The key in PETSTORE_API_KEY was refused: check it, or unset it and log in with \`${login}\`.`
        : apiKey.source === 'command'
          ? `The key printed by ${apiKey.from} was refused: check what the command prints (\`petstore config get ${apiKey.from}\`).`
          : `The stored ${environment.value} key was refused. Log in again with \`${login}\`, or set PETSTORE_API_KEY.`,
    notFoundPet: `List the pets that exist with \`${ctx.suggest('pets list')}\`.`,
    notFoundPath: `The base URL has no /pets: check that ${connection.baseUrl.value} ends with the version segment /v1; it comes from ${baseUrlSource(connection)}.`,
  };
}

/**
 * Starts the embedded sandbox on 127.0.0.1 (stopped when the command ends) and returns its
 * base URL and key, and what made one of its requests fail, if anything did.
 * `PETSTORE_SANDBOX_WITHOUT_GET_PET=1` makes it play the API after getPet's removal (410
 * Gone). Its key is the data file's, kept across runs, or `PETSTORE_SANDBOX_KEY`. `PETSTORE_BASE_URL` and `PETSTORE_API_KEY` are for remote environments: the
 * embedded server's own URL and key are used, so a real key never goes to it. The store
 * waits for its lock as long as the command's `--timeout`.
 * @throws UsageError with `--base-url`; ConfigError when the data cannot be read (read
 * before serving, so it is exit 2 with its path and the problem, not a 500).
 */
async function startEmbeddedSandbox(
  ctx: Pick<Context, 'globals' | 'env' | 'note' | 'signal' | 'defer'>,
): Promise<Pick<Connection, 'baseUrl' | 'apiKey'> & { failure: () => Error | undefined }> {
  if (ctx.globals.baseUrl !== undefined) {
    throw new UsageError('--base-url cannot be used with the sandbox environment: the sandbox runs inside petstore');
  }
  const [{ startSandbox }, { SandboxStore, asCliError }, { sandboxDataFile }, { sandboxKey }] = await Promise.all([
    import('./sandbox/server.js'),
    import('./sandbox/store.js'),
    import('./config/paths.js'),
    import('./sandbox/key-file.js'),
  ]);
  const store = new SandboxStore(sandboxDataFile(ctx.env), {
    waitMs: ctx.globals.timeoutMs,
    onWait: (message) => ctx.note(message),
    signal: ctx.signal,
  });
  let apiKey: string;
  try {
    await store.read();
    // The data file's own key (or PETSTORE_SANDBOX_KEY), the one `sandbox serve` prints.
    apiKey = sandboxKey(store.file, ctx.env.get('PETSTORE_SANDBOX_KEY'));
  } catch (err) {
    await store.close();
    throw asCliError(err);
  }
  // What made the embedded server answer a request with 500, taken (and forgotten) by the
  // transport as that request's answer arrives: one request at a time goes to it.
  let failure: Error | undefined;
  const sandbox = await startSandbox({
    store,
    apiKey,
    withoutGetPet: ctx.env.get('PETSTORE_SANDBOX_WITHOUT_GET_PET') === true,
    onError: (err) => (failure ??= err instanceof Error ? err : new Error('internal error in the sandbox server')),
  });
  ctx.defer(() => sandbox.close());
  return {
    baseUrl: { ok: true, value: sandbox.baseUrl, source: 'sandbox', from: 'sandbox' },
    apiKey: { ok: true, value: sandbox.apiKey, source: 'sandbox', from: 'sandbox' },
    failure: () => {
      const taken = failure;
      failure = undefined;
      return taken;
    },
  };
}

/**
 * Opens the run's transport for `apiKey`: the run's deadline, retries, Ctrl-C signal,
 * proxies (unless `choices.direct`) and the `--verbose` / `PETSTORE_DEBUG` log on stderr,
 * each line escaped; closed when the command ends.
 * @throws ConfigError when the key holds characters a header cannot carry.
 */
async function openTransport(
  state: RunState,
  globals: GlobalOptions,
  apiKey: string | undefined,
  choices: TransportChoices,
): Promise<HttpTransport> {
  const [{ HttpTransport }, { proxyFromEnv }] = await Promise.all([
    import('./http/transport.js'),
    import('./config/network.js'),
    wasmFlagsSet(),
  ]);
  const { io, env } = state;
  const debug = debugLevel(env.get('PETSTORE_DEBUG'));
  const transport = await HttpTransport.open({
    apiKey,
    rereadKey: choices.rereadKey,
    timeoutMs: globals.timeoutMs,
    retries: globals.retries,
    signal: choices.interrupt ?? state.signal,
    connections: choices.connections,
    connectionReuse: choices.connectionReuse,
    // Header values and bodies are the server's text: escaped like every other
    // (cli-contract.md "Errors and exit codes"); each line is written whole.
    log: globals.verbose || debug !== undefined ? (line) => io.message({ level: 'verbose', message: line }) : undefined,
    logBodies: debug === 'api',
    deadlinePer: choices.deadlinePer,
    refusals: choices.refusals,
    proxy: choices.direct === true ? undefined : proxyFromEnv(env),
    unreachableHint: choices.unreachableHint,
    serverFailure: choices.serverFailure,
    progress: io.progress,
  });
  // One for a call of its caller's (`connectCall`) is closed by that caller.
  if (choices.lifetime !== 'caller') state.cleanups.push(() => transport.close());
  return transport;
}

/**
 * `PETSTORE_DEBUG` (gh's `GH_DEBUG`): `api` (in a comma-separated list) shows every request
 * and answer as `--verbose` does, with their bodies (credentials redacted); any other value
 * but `0` or `false` is `--verbose`. Undefined when unset.
 */
function debugLevel(value: string | undefined): 'api' | 'verbose' | undefined {
  if (value === undefined || ['0', 'false'].includes(value.toLowerCase())) return undefined;
  return value
    .toLowerCase()
    .split(',')
    .some((v) => v.trim() === 'api')
    ? 'api'
    : 'verbose';
}

/**
 * The context handed to every command (gh's factory, vercel's client object): Io, the
 * parsed global options, the environment, the Ctrl-C signal, and lazily built pieces
 * (config store, settings, API client, transport, embedded sandbox) so a command pays only
 * for what it uses. Built by `factory.ts`; this module holds the types alone.
 */
import type { PetstoreClient } from './client/client.js';
import type { EnvVars } from './config/env.js';
import type { Connection, LoadConfig, Settings } from './config/settings.js';
import type { GlobalOptions } from './global-options.js';
import type { KeySource } from './http/key-refresh.js';
import type { RetryPolicy } from './http/retry.js';
import type { HttpTransport } from './http/transport.js';
import type { Io } from './io/io.js';
import type { RecordOutput } from './render/output.js';
import type { RenderMode } from './render/pets.js';
import type { Shutdown } from './base/shutdown.js';

/** What `connect()` gives a command. */
export interface Api {
  client: PetstoreClient;
  connection: Connection;
  /** The run's retry policy (`--retries`), for a command that sends a refused request again itself. */
  retryPolicy: RetryPolicy;
}

/** How `connect()` builds the transport. */
export interface ConnectOptions {
  /**
   * `true` for a command that only reads (GET): `connect` does not wait for jq's verdict on
   * the `--jq` expression, so the request leaves while jq starts (cli-contract.md "Output": a
   * read may send its request while the expression is checked). The command must still
   * await `recordOutput()` before it prints; a bad expression is then exit 2 with nothing
   * printed, its answer dropped. By default (any write) `connect` waits: nothing is sent.
   */
  reads?: boolean;
  /**
   * `true` for a dry run (cli-contract.md "Commands", `--dry-run`): the key's source is
   * checked as for a real run, but an `apiKeyCommand` is not run (`UNREAD_KEY` stands in for
   * its key), and nothing may be sent.
   */
  dryRun?: boolean;
  /** `request`: `--timeout` bounds each request (a bulk create) instead of the whole command. */
  deadlinePer?: 'command' | 'request';
  /**
   * `caller`: a 429 comes back at once (an ApiError with status 429 and its headers) for
   * the command to send again after `Api.retryPolicy.afterRefusal`; by default the
   * transport sends it again itself.
   */
  refusals?: 'transport' | 'caller';
  /** Requests in flight at once (a bulk create's `--concurrency`): that many connections; default 1. */
  connections?: number;
  /**
   * `fresh`: a new connection for every request to a remote server (a bulk create's POSTs;
   * `TransportOptions`); the embedded sandbox always keeps its connections.
   */
  connectionReuse?: 'keep-alive' | 'fresh';
  /**
   * What aborts requests under way: by default the run's signal (at once on Ctrl-C); a bulk
   * create passes its own, to wait for the answers of requests already sent.
   */
  interrupt?: AbortSignal;
}

/** What `createTransport` may be told beyond the key. */
export interface TransportChoices extends ConnectOptions {
  /** Connect directly, ignoring the proxy variables (the embedded sandbox on 127.0.0.1). */
  direct?: boolean;
  /** The line shown under "cannot reach": where the base URL came from. */
  unreachableHint?: string;
  /** The embedded sandbox's own failure during the request just answered (see TransportOptions). */
  serverFailure?: (() => Error | undefined) | undefined;
  /** `caller`: the caller closes the transport (one call's); by default it is closed when the command ends. */
  lifetime?: 'run' | 'caller';
  /** Where a key refused with a 401 may be replaced (an `apiKeyCommand`'s; see TransportOptions). */
  rereadKey?: KeySource | undefined;
}

/** The terminal side of a run: where records and messages go, and how pets are printed. */
export interface TerminalContext {
  io: Io;
  /** The render mode: the `--output` asked for; without one, `table` on a terminal and `tsv` otherwise. */
  output: RenderMode;
  /**
   * How this run prints records (pets, and `api`'s answers): the render mode and `--fields`
   * of pets, and the `--jq` filter, which the first call starts (the runner makes that call
   * as the command starts, and `connect` waits for jq's check of the expression, so a bad
   * one is refused before anything is sent, unless the command only reads:
   * `ConnectOptions.reads`; then its first run of the filter is the check).
   * @throws Error when jq cannot start; InterruptedError on a signal while it starts.
   */
  recordOutput(): Promise<RecordOutput>;
  /**
   * Writes `warning: message` on stderr (once per message). The text form is wrapped at
   * word boundaries so that no line, the `warning: ` prefix included, is wider than 80
   * columns, the terminal's width when narrower, or `wrap` when given and narrower still;
   * the JSON form (`--output json|ndjson`) keeps the message whole.
   */
  warn(message: string, opts?: { wrap?: number }): void;
  /**
   * Writes a note on stderr (wrapped as warnings are), only when stderr is a terminal (notes
   * are for people), or always with `always` (what a script must learn too, such as a file
   * petstore removed).
   */
  note(message: string, opts?: { always?: boolean }): void;
}

/** What a run was told: its flags, environment variables, clock, directory and settings. */
export interface SettingsContext {
  /** The run's environment variables: read them with `env.get('NAME')` (declared in `config/env-vars.ts`). */
  env: EnvVars;
  globals: GlobalOptions;
  /** The current time (the real clock unless `main` was given another). */
  now: () => Date;
  /** The current directory (where a file with no place of its own goes: a remaining file of stdin). */
  cwd: string;
  /** The config store, loaded on first call. */
  loadConfig: LoadConfig;
  /**
   * Resolves environment, base URL and key with their sources (never throws for a missing
   * or bad value; see `config/settings.ts`). Scope `all` adds the environment not selected;
   * `keys: false` leaves keys unresolved, so no `apiKeyCommand` runs; `keys: 'unread'` finds
   * the key's source without running one. A key command runs at
   * most once per run, however often this is called.
   * @throws InterruptedError when Ctrl-C ends a key command.
   */
  settings(scope: 'selected' | 'all', opts?: { keys?: boolean | 'unread' }): Promise<Settings>;
  /**
   * A command to suggest in a hint: `petstore` + the flags that send it where this run went
   * (`--env NAME` unless production was chosen by default, `--base-url URL` when given) +
   * `words`, e.g. `ctx.suggest('pets list')` → `petstore --env staging pets list`.
   */
  suggest(words: string): string;
}

/** How a run reaches the API: the client and transports, built on first use. */
export interface ApiContext {
  /**
   * Resolves the selected environment, starts the sandbox if it is selected, and builds the
   * client (at most once; the first call's options count); with `--jq`, also waits until the
   * expression compiled, but for a command that only reads (`options.reads`).
   * @throws UsageError, ConfigError, AuthError when the environment cannot be used; UsageError
   * for a `--jq` expression that does not compile.
   */
  connect(options?: ConnectOptions): Promise<Api>;
  /**
   * A client of the same connection `connect` resolves (environment, base URL, key, the
   * embedded sandbox, each resolved once per run) on a transport of its own, opened now:
   * `--timeout` counts from this call, `options.interrupt` aborts its requests. For a
   * command that answers many calls, each bounded on its own (`petstore mcp`); the caller
   * closes it (`close`) when its call is done.
   * @throws what `connect` throws.
   */
  connectCall(options: ConnectOptions): Promise<Api & { close: () => Promise<void> }>;
  /**
   * A transport with the run's deadline, retries, signal, proxies and `--verbose` log,
   * sending `apiKey` (closed when the command ends).
   * @throws ConfigError when the key holds characters a header cannot carry.
   */
  createTransport(apiKey: string | undefined, options?: TransportChoices): Promise<HttpTransport>;
}

/** How a run ends: its Ctrl-C signal, work at its end, and what it reports if ended by force. */
export interface LifecycleContext {
  /** Aborted on Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT); its reason names the signal. */
  signal: AbortSignal;
  /** Registers work to run when the command ends (close servers, sockets). */
  defer(fn: () => Promise<void> | void): void;
  /**
   * The process's shutdown registry (`shutdown.ts`, `Io.shutdown`): parts register what to
   * do at a signal or when the process is ended before the command returns (remove a temp
   * file, kill a pager).
   */
  shutdown: Shutdown;
  /**
   * Sets what the command reports if the process is ended before it returns (a second after
   * a signal, a second signal, or a run with nothing left to wait for; `cli-entry.ts`):
   * `report` runs synchronously and returns the error to report in the command's place
   * (`undefined` for none). Returns the function that clears it again.
   */
  atForcedEnd(report: () => unknown): () => void;
}

/**
 * Everything a command's run may use: the four sides above. A run resolves what its parts
 * need once and hands them the one side they use (`Pick<Context, ...>` or plain values),
 * never the whole Context.
 */
export interface Context extends TerminalContext, SettingsContext, ApiContext, LifecycleContext {}

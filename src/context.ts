/**
 * The context handed to every command (gh's factory, vercel's client object): Io, the
 * parsed global options, the environment, the Ctrl-C signal, and lazily built pieces
 * (config store, API client, embedded sandbox) so a command pays only for what it uses.
 */
import type { PetstoreClient } from './api/client.js';
import { ExitCode } from './errors.js';
import type { HttpTransport } from './http/transport.js';
import { parseOutput, parseRetries, parseTimeoutSeconds, type OutputFormat } from './input.js';
import type { Io } from './io.js';
import type { RenderMode } from './render/pets.js';
import type { Connection, LoadConfig } from './config/settings.js';

/** Global options after parsing (cli-contract.md "Global flags"). */
export interface GlobalOptions {
  env: string | undefined;
  baseUrl: string | undefined;
  output: OutputFormat;
  /** Whether `--output`/`--json` was given explicitly. */
  outputExplicit: boolean;
  /** The whole command's deadline in ms (`--timeout SECONDS`, default 30 s). */
  timeoutMs: number;
  /** Retries of idempotent requests (`--retries`, default 2). */
  retries: number;
  verbose: boolean;
  /** What asked to refuse deprecated operations: the flag, the variable, or nothing. */
  failOnDeprecated: '--fail-on-deprecated' | 'PETSTORE_FAIL_ON_DEPRECATED' | undefined;
  noColor: boolean;
}

/** Default `--timeout`, in seconds (cli-contract.md "Network behaviour"). */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Default `--retries`. */
export const DEFAULT_RETRIES = 2;

/**
 * Parses commander's raw global option values.
 * @throws UsageError for a bad `--output`, `--timeout` or `--retries`.
 */
export function parseGlobalOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  const str = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  const outputRaw = raw.json === true ? 'json' : str('output');
  const fod = env.PETSTORE_FAIL_ON_DEPRECATED;
  return {
    env: str('env'),
    baseUrl: str('baseUrl'),
    output: outputRaw === undefined ? 'table' : parseOutput(outputRaw),
    outputExplicit: outputRaw !== undefined,
    timeoutMs:
      str('timeout') === undefined ? DEFAULT_TIMEOUT_SECONDS * 1000 : parseTimeoutSeconds(str('timeout') as string),
    retries: str('retries') === undefined ? DEFAULT_RETRIES : parseRetries(str('retries') as string),
    verbose: raw.verbose === true,
    failOnDeprecated:
      raw.failOnDeprecated === true
        ? '--fail-on-deprecated'
        : fod !== undefined && fod !== '' && fod !== '0' && fod !== 'false'
          ? 'PETSTORE_FAIL_ON_DEPRECATED'
          : undefined,
    noColor: raw.color === false,
  };
}

/** What `connect()` gives a command. */
export interface Api {
  client: PetstoreClient;
  transport: HttpTransport;
  connection: Connection;
}

/** Everything a command may use. */
export interface Context {
  io: Io;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The config store, loaded on first call. */
  loadConfig: LoadConfig;
  /** Resolves environment, base URL and key, starts the sandbox if selected, builds the client. */
  connect(): Promise<Api>;
  /** Registers work to run when the command ends (close servers, sockets). */
  defer(fn: () => Promise<void> | void): void;
  /** Writes `warning: message` on stderr. */
  warn(message: string): void;
  /** Writes a note on stderr, only when stderr is a terminal (notes are for people). */
  note(message: string): void;
  /** The render mode: the chosen `--output`, with `table` becoming `tsv` when stdout is not a TTY. */
  renderMode(): RenderMode;
}

/** The exit code a command returns when it has nothing special to say. */
export const OK = ExitCode.ok;

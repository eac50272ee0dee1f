/**
 * The CLI's error classes, the one list of machine-readable error codes, and the one
 * mapping from error to exit code (cli-contract.md, "Errors and exit codes").
 *
 * Every expected failure is a `CliError`: it carries the exit code, a machine code (one of
 * `ERROR_CODES`, or the server's own Error `code` for an `ApiError`), the HTTP status (0
 * when no HTTP answer was involved) and an optional hint printed on its own line. Anything
 * else reaching `cli.ts` is a bug (exit 1, code `internal`).
 */
import { ENDING_SIGNALS, type EndingSignal } from './shutdown.js';

/** Exit codes of the contract's table. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  network: 3,
  auth: 4,
  notFound: 5,
  rejected: 6,
  // The signals' codes (128 + the signal's number, the shell's convention) from shutdown.ts.
  /** SIGHUP, 129: a terminal or ssh session that went away. */
  hungUp: ENDING_SIGNALS.SIGHUP,
  /** SIGINT, 130. */
  interrupted: ENDING_SIGNALS.SIGINT,
  /** SIGQUIT, 131. */
  quit: ENDING_SIGNALS.SIGQUIT,
  /** SIGTERM, 143. */
  terminated: ENDING_SIGNALS.SIGTERM,
} as const;

/**
 * Every machine-readable code petstore itself reports (`{"code": …}` on stderr with
 * `--output json|ndjson`); scripts depend on them, so docs/errors.md lists exactly these
 * (checked by test/unit/errors.test.ts). A server's own Error `code` passes through
 * `ApiError` unchanged and is not in this list.
 */
export const ERROR_CODES = [
  'usage',
  'config',
  'auth',
  'key_command',
  'network',
  'timeout',
  'tls',
  'proxy',
  'invalid_response',
  'output',
  'interrupted',
  'input_changed',
  'already_sent',
  'state',
  'max_pages',
  'not_in_list',
  'not_found',
  'not_in_first_page',
  'not_set',
  'not_confirmed',
  'listen',
  'jq',
  'jq_input_too_large',
  'jq_timeout',
  'internal',
] as const;

/** A machine-readable code of petstore's own. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a code means and the exit codes it comes with, the usual one first. */
export interface ErrorCodeInfo {
  readonly exit: readonly number[];
  /** One short sentence (docs/errors.md "Error codes" says more). */
  readonly meaning: string;
}

/** The signals' exit codes, SIGINT's first. */
const SIGNAL_EXITS = [ExitCode.interrupted, ExitCode.terminated, ExitCode.hungUp, ExitCode.quit];

/**
 * Each of ERROR_CODES with its exit codes and meaning, for `help --json`; docs/errors.md's
 * table gives the same exit codes (test/unit/errors.test.ts compares them).
 */
export const ERROR_CODE_INFO: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  usage: { exit: [ExitCode.usage], meaning: 'A bad command, flag or value; nothing was sent.' },
  config: {
    exit: [ExitCode.usage],
    meaning: 'No base URL, or a config, sandbox or state file or folder that cannot be used; nothing was sent.',
  },
  auth: { exit: [ExitCode.auth], meaning: 'No API key for the environment.' },
  key_command: { exit: [ExitCode.auth], meaning: "The environment's apiKeyCommand gave no key." },
  network: { exit: [ExitCode.network], meaning: 'Connection refused or reset, DNS failure, an answer cut off.' },
  timeout: { exit: [ExitCode.network], meaning: 'The --timeout deadline passed.' },
  tls: { exit: [ExitCode.network], meaning: 'The server could not be reached securely (TLS).' },
  proxy: { exit: [ExitCode.network], meaning: 'The proxy refused or failed the tunnel; nothing reached the API.' },
  invalid_response: {
    exit: [ExitCode.failure, ExitCode.rejected, ExitCode.auth, ExitCode.notFound],
    meaning: 'An answer that breaks the API contract (exit 6, 4, 5 for a 400, 401, 404).',
  },
  output: { exit: [ExitCode.failure], meaning: 'stdout cannot be written.' },
  interrupted: { exit: SIGNAL_EXITS, meaning: 'Stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT.' },
  input_changed: {
    exit: [ExitCode.failure],
    meaning: 'pets create --from-file: the input changed after it was checked.',
  },
  already_sent: {
    exit: [ExitCode.usage],
    meaning: 'pets create --from-file: an earlier run of the same input stopped partway or is under way.',
  },
  state: { exit: [ExitCode.failure], meaning: "pets create --from-file: the run's journal could not be written." },
  max_pages: { exit: [ExitCode.failure], meaning: 'Stopped at --max-pages while the server links to more.' },
  not_in_list: { exit: [ExitCode.notFound], meaning: 'pets get through the list: the pet is on no page.' },
  not_found: {
    exit: [ExitCode.notFound],
    meaning: "MCP get_pet: no such pet, by getPet's 404 or a search of listPets (the error's lookup says which).",
  },
  not_in_first_page: {
    exit: [ExitCode.notFound],
    meaning: 'pets get through the list: not on the one full page the server offers.',
  },
  not_set: { exit: [ExitCode.failure], meaning: 'config get of a key that has no value and no default.' },
  not_confirmed: {
    exit: [ExitCode.usage],
    meaning: 'A write to an environment with confirmWrites was not confirmed; nothing was sent.',
  },
  listen: { exit: [ExitCode.failure], meaning: 'sandbox serve cannot listen on the address.' },
  jq: { exit: [ExitCode.failure], meaning: 'The --jq filter stopped at run time.' },
  jq_input_too_large: { exit: [ExitCode.failure], meaning: 'Too much JSON for one --jq run over the whole list.' },
  jq_timeout: { exit: [ExitCode.failure], meaning: 'The --jq filter was still running when --timeout ran out.' },
  internal: { exit: [ExitCode.failure], meaning: 'A bug in petstore.' },
};

/**
 * Codes a bulk create's account gives one record (its `unknown` list, docs/commands.md
 * "pets create") beside those of ERROR_CODES: never the code of a run's error.
 */
export const RECORD_CODES = {
  unknown: 'A record an earlier run sent whose answer it never recorded: it may have been created.',
} as const;

/** A server's own Error `code` (spec §7 leaves its values open), kept apart from `ErrorCode`. */
export type ServerErrorCode = string & { readonly __server: true };

/** Base class of expected failures: message for people, `code`/`status` for scripts. */
export class CliError extends Error {
  readonly exitCode: number;
  /** One of `ERROR_CODES`, or for an `ApiError` the server's Error `code`. */
  readonly code: ErrorCode | ServerErrorCode;
  readonly status: number;
  readonly hint: string | undefined;
  /** Fields added to the JSON error object (`--output json|ndjson`), e.g. a bulk create's account. */
  readonly details: Record<string, unknown> | undefined;
  /** The server's request id of the answer this failure stands for (sanitized), also in `details.requestId`. */
  readonly requestId: string | undefined;

  /**
   * @param message one line for people (what failed and why).
   * @param opts `exitCode` (the contract's table), `code` (one of ERROR_CODES), `status` (the
   * HTTP status, 0 when none), `hint` (a line on how to fix it), `cause`, and `details`
   * (extra fields of the JSON error object), `requestId` (the answer's request id, already
   * escaped and bounded: `requestIdOf` in http/headers.ts; added to `details`).
   */
  constructor(
    message: string,
    opts: {
      exitCode: number;
      code: ErrorCode | ServerErrorCode;
      status?: number;
      hint?: string | undefined;
      cause?: unknown;
      details?: Record<string, unknown> | undefined;
      requestId?: string | undefined;
    },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CliError';
    this.exitCode = opts.exitCode;
    this.code = opts.code;
    this.status = opts.status ?? 0;
    this.hint = opts.hint;
    this.requestId = opts.requestId;
    this.details = opts.requestId === undefined ? opts.details : { ...opts.details, requestId: opts.requestId };
  }
}

/**
 * The class of an error made of a message and an optional hint, with a fixed exit code and
 * code (`name` is its class's name, as messages and stacks show it).
 */
function hintedError(name: string, exitCode: number, code: ErrorCode) {
  return class extends CliError {
    constructor(message: string, hint?: string) {
      super(message, { exitCode, code, hint });
      this.name = name;
    }
  };
}

/** What a failure reports to a script: `{code, message, status}`, its hint and extra fields. */
export interface ErrorFields {
  code: string;
  message: string;
  status: number;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/**
 * The fields petstore reports for `err` (cli-contract.md "Errors and exit codes"): a
 * CliError's own; anything else is a bug, code `internal` with status 0.
 */
export function errorFields(err: unknown): ErrorFields {
  if (!(err instanceof CliError)) {
    return { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 0 };
  }
  return { code: err.code, message: err.message, status: err.status, hint: err.hint, details: err.details };
}

/** A bad command, flag or value; nothing was sent (exit 2, code `usage`). */
export class UsageError extends hintedError('UsageError', ExitCode.usage, 'usage') {}

/** Missing base URL, unreadable or malformed config (exit 2, code `config`). */
export class ConfigError extends hintedError('ConfigError', ExitCode.usage, 'config') {}

/** No API key for the environment (exit 4, code `auth`); a 401 answer is an `ApiError`. */
export class AuthError extends hintedError('AuthError', ExitCode.auth, 'auth') {}

/** Connection refused or reset, DNS failure (exit 3, code `network`). */
export class NetworkError extends CliError {
  constructor(message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super(message, { exitCode: ExitCode.network, code: 'network', ...opts });
    this.name = 'NetworkError';
  }
}

/** The `--timeout` deadline passed (exit 3, code `timeout`). */
export class TimeoutError extends hintedError('TimeoutError', ExitCode.network, 'timeout') {}

/**
 * The server could not be reached securely: a TLS handshake or certificate check failed
 * (exit 3, code `tls`): self-signed, unknown CA, hostname mismatch, expired, not TLS.
 */
export class TlsError extends hintedError('TlsError', ExitCode.network, 'tls') {}

/**
 * The proxy the request went through refused or failed it (exit 3, code `proxy`): it could
 * not be reached, asked for credentials (407), refused the tunnel with another status, or
 * closed it. Raised only while the tunnel to the API is being opened, so nothing reached
 * the API: a write is surely not done (cli-contract.md "Network behaviour": such a record
 * is "not sent"). `status` is the proxy's answer (0 when it gave none); the JSON error adds
 * `proxy`, its URL with any credentials masked.
 */
export class ProxyError extends CliError {
  /** The proxy's URL as it may be shown (credentials masked). */
  readonly proxy: string;

  constructor(message: string, opts: { proxy: string; status?: number; hint?: string; cause?: unknown }) {
    super(message, {
      exitCode: ExitCode.network,
      code: 'proxy',
      status: opts.status ?? 0,
      hint: opts.hint,
      cause: opts.cause,
      details: { proxy: opts.proxy },
    });
    this.name = 'ProxyError';
    this.proxy = opts.proxy;
  }
}

/**
 * stdout cannot be written: a full disk, a closed pipe under a write command, another I/O
 * error (exit 1, code `output`). A read command whose reader went away (EPIPE) ends with
 * exit 0 instead (cli-contract.md "Network behaviour").
 */
export class OutputError extends CliError {
  /** The system error code, e.g. `EPIPE`, `ENOSPC`. */
  readonly errno: string | undefined;

  constructor(cause: unknown) {
    const errno = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(
      errno === 'EPIPE' ? 'stdout was closed by its reader' : `cannot write to stdout: ${describeFileError(cause)}`,
      { exitCode: ExitCode.failure, code: 'output', cause },
    );
    this.name = 'OutputError';
    this.errno = errno;
  }
}

/**
 * An answer that breaks the API contract: malformed JSON, wrong content type, a record
 * of the wrong shape, an error status without an Error body, a redirect we refuse to
 * follow (code `invalid_response`; `status` is the HTTP status when there was one).
 * The exit code is 1, except that a 400, 401 or 404 keeps its own (6, 4, 5) even with a
 * body that is not an Error — e.g. an HTML page from a gateway — since the contract's
 * table is keyed on the status and scripts act on it (a 401 means: log in again).
 */
export class InvalidResponseError extends CliError {
  /** @param requestId the answer's request id, when it sent one (`requestIdOf`). */
  constructor(message: string, status = 0, hint?: string, requestId?: string) {
    super(message, {
      exitCode: status >= 400 ? exitCodeForStatus(status) : ExitCode.failure,
      code: 'invalid_response',
      status,
      hint,
      requestId,
    });
    this.name = 'InvalidResponseError';
  }
}

/**
 * An answer whose body passed the size cap (`MAX_BODY_BYTES`, 10 MiB): an InvalidResponseError
 * (exit 1, code `invalid_response`) that a command can give a hint of its own (`pets list`:
 * ask for smaller pages).
 */
export class BodyTooLargeError extends InvalidResponseError {
  constructor(message: string, status: number, hint?: string) {
    super(message, status, hint);
    this.name = 'BodyTooLargeError';
  }

  /** The same failure with `hint` under it. */
  withHint(hint: string): BodyTooLargeError {
    return new BodyTooLargeError(this.message, this.status, hint);
  }
}

/** The signals petstore stops on. */
export type StopSignal = EndingSignal;

/** What each signal is called in messages. */
const SIGNAL_WORDS: Record<StopSignal, string> = {
  SIGINT: 'interrupted',
  SIGTERM: 'terminated',
  SIGHUP: 'hung up',
  SIGQUIT: 'quit',
};

/**
 * The run was stopped by a signal: Ctrl-C (SIGINT, exit 130), SIGTERM (143), SIGHUP (129,
 * a terminal or ssh session that went away) or SIGQUIT (131); code `interrupted` for all.
 * `cli-entry.ts` aborts the run's AbortSignal with the signal's name as its reason.
 */
export class InterruptedError extends CliError {
  readonly signal: StopSignal;
  /** What the run left unfinished, in one line for people (`the list is incomplete: ...`). */
  readonly account: string | undefined;

  /**
   * @param account what was left unfinished, said after the signal's word (in JSON, the
   * message); `details` become fields of the JSON error object.
   */
  constructor(signal: StopSignal = 'SIGINT', account?: string, details?: Record<string, unknown>) {
    super(account === undefined ? SIGNAL_WORDS[signal] : `${SIGNAL_WORDS[signal]}: ${account}`, {
      exitCode: ENDING_SIGNALS[signal],
      code: 'interrupted',
      details,
    });
    this.name = 'InterruptedError';
    this.signal = signal;
    this.account = account;
  }

  /** The same interruption, saying what it left unfinished (`account`, and `details` in JSON). */
  withAccount(account: string, details?: Record<string, unknown>): InterruptedError {
    return new InterruptedError(this.signal, account, details);
  }

  /** The interruption an aborted run's signal stands for (its reason names the signal; SIGINT otherwise). */
  static from(signal: AbortSignal | undefined): InterruptedError {
    const reason: unknown = signal?.reason;
    return new InterruptedError(
      typeof reason === 'string' && reason in SIGNAL_WORDS ? (reason as StopSignal) : 'SIGINT',
    );
  }
}

/** The API's Error body (spec §2 "Error", §7). */
export interface ApiErrorBody {
  code: string;
  message: string;
  status: number;
}

/**
 * A `Retry-After` petstore did not wait for because it passed the deadline
 * (cli-contract.md "Network behaviour"): the wait asked for and the time that was left, in ms.
 */
export interface RefusedWait {
  askedMs: number;
  leftMs: number;
}

/** What an answer's headers add to the error it stands for. */
export interface AnswerFacts {
  /** The server's request id, escaped and bounded (`requestIdOf`). */
  requestId?: string | undefined;
  /** A `Retry-After` beyond what was left of `--timeout`. */
  refusedWait?: RefusedWait | undefined;
}

/**
 * The server answered with an Error body (spec §7). The exit code follows the status:
 * 400 → 6, 401 → 4, 404 → 5, anything else → 1 (cli-contract.md exit-code table).
 * `code` is the server's own Error `code`. With a refused wait (`facts.refusedWait`) the
 * message names the wait asked for and the time left, and the JSON form adds `retryAfter`
 * (whole seconds, rounded up); with a request id, `requestId`.
 */
export class ApiError extends CliError {
  readonly body: ApiErrorBody;
  /** The error response's headers (e.g. `Deprecation`, `Sunset` on a 404/410), when known. */
  readonly headers: Record<string, string | string[] | undefined> | undefined;
  /** What the answer's headers added (request id, refused wait). */
  readonly facts: AnswerFacts;

  constructor(
    body: ApiErrorBody,
    httpStatus: number,
    hint?: string,
    headers?: Record<string, string | string[] | undefined>,
    facts: AnswerFacts = {},
  ) {
    const wait = facts.refusedWait;
    super(wait === undefined ? body.message : `${body.message}; ${describeRefusedWait(wait)}`, {
      exitCode: exitCodeForStatus(httpStatus),
      code: body.code as ServerErrorCode,
      status: httpStatus,
      hint,
      requestId: facts.requestId,
      details: wait === undefined ? undefined : { retryAfter: Math.ceil(wait.askedMs / 1000) },
    });
    this.name = 'ApiError';
    this.body = body;
    this.headers = headers;
    this.facts = facts;
  }

  /** The same answer's error, saying that its `Retry-After` (`wait`) was not waited for. */
  withRefusedWait(wait: RefusedWait): ApiError {
    return new ApiError(this.body, this.status, this.hint, this.headers, { ...this.facts, refusedWait: wait });
  }
}

/**
 * A refused wait in words: `the server asks to wait 90 s; --timeout leaves 12 s` (the wait
 * rounded up to whole seconds; the time left rounded down, to a tenth under 10 s).
 */
function describeRefusedWait(wait: RefusedWait): string {
  const left = wait.leftMs >= 10_000 ? Math.floor(wait.leftMs / 1000) : Math.floor(wait.leftMs / 100) / 10;
  return `the server asks to wait ${Math.ceil(wait.askedMs / 1000)} s; --timeout leaves ${left} s`;
}

/** Maps an HTTP error status to the contract's exit code. */
export function exitCodeForStatus(status: number): number {
  switch (status) {
    case 400:
      return ExitCode.rejected;
    case 401:
      return ExitCode.auth;
    case 404:
      return ExitCode.notFound;
    default:
      return ExitCode.failure;
  }
}

/** The exit code for any thrown value: a `CliError`'s own, 1 for everything else (a bug). */
export function exitCodeFor(err: unknown): number {
  return err instanceof CliError ? err.exitCode : ExitCode.failure;
}

/**
 * Describes a file-system error in a few words for a message that already names the path:
 * `ENOENT` → "no such file or directory", `EACCES` → "permission denied", ... Falls back to
 * the error's own message for codes without a phrase.
 */
export function describeFileError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EROFS':
      return 'read-only file system';
    case 'EEXIST':
      return 'it already exists';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/**
 * What went wrong on the wire, in the contract's terms (cli-contract.md "Errors and exit
 * codes"): undici's and the OS's failures become NetworkError, ProxyError, TlsError,
 * TimeoutError, InterruptedError or InvalidResponseError with the reason in words. One walker reads the
 * cause chain for every question asked of a failure (undici's Errors.md: check `code`, not
 * `instanceof`; a multi-address connect gives an AggregateError, so `errors` too).
 */
import {
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  ProxyError,
  TimeoutError,
  TlsError,
} from '../base/errors.js';
import { maskUrl } from '../base/mask.js';
import { ProxyFailure } from './proxy.js';
import { reasonPhrase } from './reason.js';

/** The fields of an error that the rules below read. */
interface ErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
}

/**
 * Walks `err`, its `cause` chain and the `errors` of an AggregateError, breadth first, each
 * error once (a cycle ends the walk), and returns the first answer `pick` gives.
 */
function findInChain<T>(err: unknown, pick: (e: ErrorFields) => T | undefined): T | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const found = pick(e);
    if (found !== undefined) return found;
    queue.push((e as { cause?: unknown }).cause);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return undefined;
}

/**
 * The first error code undici or the OS attached anywhere in the chain, among `known`
 * (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...); undefined when none is there.
 */
export function findErrorCode(err: unknown, known: readonly string[]): string | undefined {
  return findInChain(err, ({ code }) => (typeof code === 'string' && known.includes(code) ? code : undefined));
}

/**
 * Connection failures that happen before a byte of the request is written: refused, DNS,
 * unreachable, connect timeout. A request that failed so surely did not reach the server,
 * so even a POST may be sent again, and a bulk create knows the record was not created.
 */
export const NOT_SENT_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
];

/** Connection failures, in words. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host down',
  ENETDOWN: 'network down',
  EPIPE: 'connection closed by the server',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  ECONNABORTED: 'connection aborted',
  ETIMEDOUT: 'connection timed out',
};
const NETWORK_CODE_LIST = Object.keys(NETWORK_CODES);

/** undici's codes for a response that is not well-formed HTTP. */
const MALFORMED_CODES = ['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_INFO'];

/** TLS verification codes (OpenSSL's, as Node reports them) and what they mean, in words. */
const TLS_REASONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate no trusted CA issued',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by a CA this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by a CA this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by a CA this machine does not trust',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  CERT_REVOKED: 'its certificate has been revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name (hostname mismatch)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS on this port (is the URL http://, or the port wrong?)',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'it does not speak TLS on this port (is the URL http://, or the port wrong?)',
};
const NOT_TLS_CODES = ['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG'];

/**
 * Why a TLS handshake or certificate check failed, in words, and the code that said so;
 * undefined for any other failure.
 */
function tlsReason(err: unknown): { reason: string; code: string | undefined } | undefined {
  const code = findErrorCode(err, Object.keys(TLS_REASONS));
  const reason = code === undefined ? undefined : TLS_REASONS[code];
  if (reason !== undefined) return { reason, code };
  // Any other OpenSSL/TLS code: `ERR_SSL_*`, `ERR_TLS_*`, `EPROTO`.
  const other = findInChain(err, ({ code: c }) =>
    typeof c === 'string' && (c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_') || c === 'EPROTO') ? c : undefined,
  );
  return other === undefined ? undefined : { reason: `the TLS handshake failed (${other})`, code: undefined };
}

/**
 * A TlsError (exit 3, code `tls`) for a failed TLS handshake or certificate check, with the
 * reason in words and a hint for a private CA; undefined for any other failure.
 */
function describeTlsFailure(err: unknown, url: URL): TlsError | undefined {
  const tls = tlsReason(err);
  if (tls === undefined) return undefined;
  const { reason, code } = tls;
  return new TlsError(
    `cannot connect securely to ${url.host}: ${reason}`,
    code !== undefined && NOT_TLS_CODES.includes(code)
      ? 'Check the base URL: plain http:// is allowed only for loopback hosts.'
      : 'If the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate (a PEM file).',
  );
}

/**
 * undici's HTTP parser error anywhere in the chain, as the parser's own reason (`Invalid
 * header token`); its `code` is not always set, so the name decides.
 */
function findParserError(err: unknown): string | undefined {
  return findInChain(err, ({ name, message, code }) => {
    if (name !== 'HTTPParserError' && !(typeof code === 'string' && code.startsWith('HPE_'))) return undefined;
    const reason = typeof message === 'string' ? /\(([^)]*)\)\s*$/.exec(message)?.[1] : undefined;
    return reason ?? (typeof code === 'string' ? code : 'unparsable');
  });
}

/**
 * A ProxyError (exit 3, code `proxy`) for a tunnel the proxy refused or failed: the proxy
 * named (credentials masked) with the variable it came from, and what it did (its status,
 * or why it could not be reached); undefined when no proxy failed.
 */
function describeProxyFailure(err: unknown, url: URL): ProxyError | undefined {
  const failure = findInChain(err, (e) => (e instanceof ProxyFailure ? e : undefined));
  if (failure === undefined) return undefined;
  const { proxy, variable, status } = failure;
  const shown = maskUrl(proxy.href);
  const target = `${url.hostname}:${url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port}`;
  const elsewhere = `add ${url.hostname} to NO_PROXY to connect without it`;
  const opts = { proxy: shown, status, cause: err };
  if (status !== undefined) {
    const credentials = proxy.username !== '' || proxy.password !== '';
    return new ProxyError(
      `the proxy ${shown} (${variable}) refused to connect to ${target}: ${status} ${reasonPhrase(status)}`.trimEnd() +
        '; nothing reached the API',
      {
        ...opts,
        hint:
          status !== 407
            ? `Check ${variable}, or ${elsewhere}.`
            : credentials
              ? `The proxy did not accept the user name and password in ${variable}; check them.`
              : `The proxy asks for credentials: set ${variable}=${proxy.protocol}//USER:PASSWORD@${proxy.host} (special characters percent-encoded).`,
      },
    );
  }
  const hint = `Check that the proxy is up and that ${variable} is right, or ${elsewhere}.`;
  const tls = tlsReason(failure.cause);
  if (tls !== undefined) {
    return new ProxyError(`cannot connect securely to the proxy ${shown} (${variable}): ${tls.reason}`, {
      ...opts,
      hint,
    });
  }
  const code = findErrorCode(failure.cause, NETWORK_CODE_LIST);
  if (code === undefined || ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)) {
    return new ProxyError(
      `the proxy ${shown} (${variable}) closed the connection instead of opening one to ${target}; nothing reached the API`,
      { ...opts, hint },
    );
  }
  return new ProxyError(`cannot reach the proxy ${shown} (${variable}): ${NETWORK_CODES[code] ?? code}`, {
    ...opts,
    hint,
  });
}

/** What a failure is read against: where the request went and why it may have stopped. */
export interface FailureContext {
  url: URL;
  /** Ctrl-C or SIGTERM: aborted by the user. */
  interrupt?: AbortSignal | undefined;
  /** The deadline's signal, and the deadline in ms (for the message). */
  deadline: { signal: AbortSignal; timeoutMs: number };
  /** What was under way, e.g. `while reading the answer`; undefined while connecting. */
  phase?: string;
  /** The line under "cannot reach HOST" (where the base URL came from). */
  unreachableHint?: string | undefined;
}

/**
 * Maps a failure of undici or the OS to the contract's error classes: InterruptedError
 * (exit 130/143) when the user stopped the run, TimeoutError (exit 3) when the deadline
 * passed, ProxyError (exit 3) when the proxy refused or failed the tunnel, TlsError (exit 3), InvalidResponseError (exit 1) for malformed HTTP,
 * NetworkError (exit 3, the raw error as its `cause`) for a connection failure; anything
 * else is returned as an Error (a bug).
 */
export function describeFailure(err: unknown, ctx: FailureContext): Error {
  const { url } = ctx;
  if (ctx.interrupt?.aborted === true) return InterruptedError.from(ctx.interrupt);
  if (ctx.deadline.signal.aborted) {
    return new TimeoutError(
      `no complete answer from ${url.host} within ${ctx.deadline.timeoutMs / 1000} s`,
      'Raise the deadline with --timeout SECONDS, or check the server.',
    );
  }
  const proxy = describeProxyFailure(err, url);
  if (proxy !== undefined) return proxy;
  const tls = describeTlsFailure(err, url);
  if (tls !== undefined) return tls;
  const malformed = findErrorCode(err, MALFORMED_CODES) ?? findParserError(err);
  if (malformed !== undefined) {
    return new InvalidResponseError(
      malformed === 'UND_ERR_HEADERS_OVERFLOW'
        ? `${url.host} answered with headers larger than undici's limit (16 KiB); not an answer of this API`
        : `${url.host} answered with a malformed HTTP response (${malformed})`,
    );
  }
  const code = findErrorCode(err, NETWORK_CODE_LIST);
  if (code !== undefined) {
    // Only a connection never made is "cannot reach": a reset one reached the server.
    const what =
      ctx.phase !== undefined
        ? `${url.host} failed ${ctx.phase}`
        : NOT_SENT_CODES.includes(code)
          ? `cannot reach ${url.host}`
          : `no answer from ${url.host}`;
    return new NetworkError(`${what}: ${NETWORK_CODES[code] ?? code}`, {
      cause: err,
      hint: ctx.unreachableHint ?? 'Check the base URL and that the server is up.',
    });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Whether a failed request may have reached the server with nothing said of what it did:
 * the connection was reset or closed after it was made (a NetworkError whose cause is not
 * one of NOT_SENT_CODES), or the deadline passed. False for a connection never made, a
 * failed TLS handshake or a proxy that refused the tunnel (nothing reached the API), and
 * for an answer, which says what happened. A write that may have been received must not
 * be sent again unseen (cli-contract.md "Network behaviour").
 */
function mayHaveReachedServer(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  if (!(err instanceof NetworkError)) return false;
  return findErrorCode(err.cause, NOT_SENT_CODES) === undefined;
}

/**
 * Whether a failed create (a POST) may have created what it asked for: its request may
 * have reached the server unanswered (`mayHaveReachedServer`), or the server answered below
 * 400 with something that breaks the API (InvalidResponseError: a 201 whose body is not a
 * Pet, spec §4.2 — the pet exists, but the answer cannot say which). cli-contract.md "Bulk
 * create": such a create is exit 1 `invalid_response` saying the pet may have been created.
 */
export function mayHaveCreated(err: unknown): boolean {
  return mayHaveReachedServer(err) || (err instanceof InvalidResponseError && err.status < 400);
}

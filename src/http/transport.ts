/**
 * The HTTP transport: one undici Agent (kept-alive connection) per CLI run, the bearer
 * key, one deadline for the whole command (or for each request of a bulk create), retries
 * (src/http/retry.ts), proxies from HTTPS_PROXY/HTTP_PROXY/NO_PROXY, exact-int64 JSON, a
 * body-size cap, redirect policy and typed errors (cli-contract.md "Network behaviour").
 *
 * It never prints, except through the `log` callback that `--verbose` supplies, and it
 * never lets the key (or a proxy's password) reach that log.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ConfigError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
  TlsError,
} from '../errors.js';
import { parseJson } from '../json.js';
import { isSendableKey, maskKey, maskUrl } from '../mask.js';
import { findErrorCode, withRetries } from './retry.js';
import { Agent, loadEnvHttpProxyAgent, request, type Dispatcher } from './undici.js';

/** Largest response body read, in bytes (10 MiB); a page of 100 pets is ~10 KiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Same-origin redirects followed at most (cli-contract.md "Network behaviour"). */
const MAX_REDIRECTS = 5;

/** Options of one transport (one CLI run). */
export interface TransportOptions {
  /** Sent as `Authorization: Bearer <key>` (spec §5); never logged. */
  apiKey: string | undefined;
  /** The whole command's deadline, in ms, retries and waits included. */
  timeoutMs: number;
  /** Retries of a GET (`--retries`; 0 = none); a POST only when the request was never sent. */
  retries: number;
  /** `--verbose` sink: one line per call, key redacted. */
  log?: (line: string) => void;
  /** Aborts everything (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * What `timeoutMs` bounds: the whole command (default), or each `send` on its own
   * (`pets create --from-file`: the deadline bounds each record's request).
   */
  deadlinePer?: 'command' | 'request';
  /** Proxies (from HTTP_PROXY, HTTPS_PROXY, NO_PROXY; either case). None: connect directly. */
  proxy?: ProxySettings;
  /** What to say when the server cannot be reached, e.g. where the base URL came from. */
  unreachableHint?: string | undefined;
  /**
   * For a server inside this process (the embedded sandbox): what made it fail the request
   * just answered, if anything did — taken and forgotten. It is thrown instead of the answer
   * (a ConfigError naming a data file it could not use, or a bug), since the HTTP 500 that
   * stands for it would say less.
   */
  serverFailure?: (() => Error | undefined) | undefined;
}

/** The proxy variables' values (cli-contract.md "Network behaviour"). */
export interface ProxySettings {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

/** One request. `url` is absolute; `body` is JSON text. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  body?: string;
}

/** A response whose body was read as JSON (exact int64). */
export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  url: URL;
  json: unknown;
}

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

/**
 * undici's HTTP parser error anywhere in the cause chain, as the parser's own reason
 * (`Invalid header token`); its `code` is not always set, so the name decides.
 */
function findParserError(err: unknown): string | undefined {
  for (
    let e = err, depth = 0;
    e !== null && typeof e === 'object' && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { name, message, code } = e as { name?: unknown; message?: unknown; code?: unknown };
    if (name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'))) {
      const reason = typeof message === 'string' ? /\(([^)]*)\)\s*$/.exec(message)?.[1] : undefined;
      return reason ?? (typeof code === 'string' ? code : 'unparsable');
    }
  }
  return undefined;
}

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

/**
 * A TlsError (exit 3, code `tls`) for a failed TLS handshake or certificate check, with the
 * reason in words and a hint for a private CA; undefined for any other failure.
 */
function describeTlsFailure(err: unknown, url: URL): TlsError | undefined {
  const code = findErrorCode(err, Object.keys(TLS_REASONS));
  let reason = code === undefined ? undefined : TLS_REASONS[code];
  if (reason === undefined) {
    const other = findTlsCode(err);
    if (other === undefined) return undefined;
    reason = `the TLS handshake failed (${other})`;
  }
  return new TlsError(
    `cannot connect securely to ${url.host}: ${reason}`,
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG'
      ? 'Check the base URL: plain http:// is allowed only for loopback hosts.'
      : 'If the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate (a PEM file).',
  );
}

/** Any other OpenSSL/TLS error code in the cause chain (`ERR_SSL_*`, `ERR_TLS_*`, `EPROTO`). */
function findTlsCode(err: unknown): string | undefined {
  for (
    let e = err, depth = 0;
    e !== null && typeof e === 'object' && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO'))
      return code;
  }
  return undefined;
}

/** Content codings a server may send although petstore never asks for one. */
const DECODERS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/**
 * Turns a response body into JSON text: checks that it is `application/json` (or `+json`)
 * in UTF-8 (the spec's JSON; another `charset` is off-contract), undoes a gzip, deflate or
 * br content coding (never asked for, decoded anyway, within `max` bytes), and drops a
 * byte-order mark.
 * @throws InvalidResponseError for another content type, charset or coding.
 */
async function decodeBody(raw: Buffer, headers: IncomingHttpHeaders, status: number, max: number): Promise<string> {
  const type = headerValue(headers['content-type']) ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new InvalidResponseError(
      `server answered ${status} with content type ${type === '' ? '(none)' : JSON.stringify(type)}, not application/json`,
      status,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new InvalidResponseError(
      `server answered ${status} with JSON in charset ${JSON.stringify(charset)}; the API sends UTF-8`,
      status,
    );
  }
  let body = raw;
  const coding = headerValue(headers['content-encoding'])?.trim().toLowerCase() ?? '';
  if (coding !== '' && coding !== 'identity') {
    if (!(DECODERS as readonly string[]).includes(coding)) {
      throw new InvalidResponseError(
        `server answered ${status} with a body in content coding ${JSON.stringify(coding)}`,
        status,
      );
    }
    const zlib = await import('node:zlib');
    const options = { maxOutputLength: max };
    try {
      body =
        coding === 'br'
          ? zlib.brotliDecompressSync(raw, options)
          : coding === 'deflate'
            ? zlib.inflateSync(raw, options)
            : zlib.gunzipSync(raw, options);
    } catch (err) {
      throw new InvalidResponseError(
        (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
          ? `response body too large once decoded (over ${max} bytes)`
          : `server answered ${status} with a ${coding} body that cannot be decoded`,
        status,
      );
    }
  }
  return body.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * Sends requests for one CLI run. Construct it when the command starts: the deadline
 * counts from then.
 */
export class HttpTransport {
  private deadline = 0;
  private readonly agent: Dispatcher;
  private readonly opts: TransportOptions;
  private signal!: AbortSignal;
  private deadlineSignal!: AbortSignal;

  /**
   * Opens a transport: direct, or through the proxies of `opts.proxy` when one is set.
   * @throws ConfigError (exit 2) when `apiKey` holds characters a header cannot carry: the
   * callers check where the key came from, this is the last line before anything is sent.
   */
  static async open(opts: TransportOptions): Promise<HttpTransport> {
    const { httpProxy, httpsProxy } = opts.proxy ?? {};
    const ProxyAgent = isSet(httpProxy) || isSet(httpsProxy) ? await loadEnvHttpProxyAgent() : undefined;
    return new HttpTransport(opts, ProxyAgent);
  }

  private constructor(opts: TransportOptions, ProxyAgent?: Awaited<ReturnType<typeof loadEnvHttpProxyAgent>>) {
    if (opts.apiKey !== undefined && !isSendableKey(opts.apiKey)) {
      throw new ConfigError(
        'the API key contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was sent',
      );
    }
    this.opts = opts;
    this.startDeadline();
    // The deadline signal bounds every phase, so undici's own 300 s defaults never fire first.
    // One connection per origin: a CLI run sends its requests one after another, and a cap of
    // one makes every page of `--all` and every record of a bulk create reuse the kept-alive
    // socket instead of opening a new one while the last is still being marked idle.
    // autoSelectFamily: a name with IPv4 and IPv6 addresses tries every address it resolves
    // to, as curl does; `localhost` resolves to both loopback addresses whatever the hosts
    // file says (RFC 6761 §6.3, curl's rule), so a server on [::1] alone is reached too.
    const agentOptions = {
      connectTimeout: opts.timeoutMs,
      headersTimeout: 0,
      bodyTimeout: 0,
      connections: 1,
      autoSelectFamily: true,
      connect: { lookup: lookupWithLoopback },
    };
    const { httpProxy, httpsProxy, noProxy } = opts.proxy ?? {};
    if (ProxyAgent !== undefined) {
      // The values are passed explicitly (NO_PROXY as '' when unset), so undici reads no
      // environment of its own.
      this.agent = new ProxyAgent({ ...agentOptions, httpProxy, httpsProxy, noProxy: noProxy ?? '' });
      if (isSet(httpsProxy)) opts.log?.(`* HTTPS_PROXY ${maskUrl(httpsProxy)}`);
      if (isSet(httpProxy)) opts.log?.(`* HTTP_PROXY ${maskUrl(httpProxy)}`);
      if (isSet(noProxy)) opts.log?.(`* NO_PROXY ${noProxy}`);
    } else {
      this.agent = new Agent(agentOptions);
    }
  }

  /** Starts the deadline: `timeoutMs` from now, and the signal that fires then. */
  private startDeadline(): void {
    this.deadline = Date.now() + this.opts.timeoutMs;
    this.deadlineSignal = AbortSignal.timeout(this.opts.timeoutMs);
    const { signal } = this.opts;
    this.signal = signal === undefined ? this.deadlineSignal : AbortSignal.any([this.deadlineSignal, signal]);
  }

  /** Milliseconds left before the deadline (never negative). */
  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /**
   * Sends one request and reads its JSON body. Retries per `decideRetry` (a GET on
   * connection failures, 429, 502, 503, 504; a POST only when the connection was refused),
   * all within the deadline; when retries run out the last answer is returned. Follows
   * same-origin redirects of GETs (at most 5); refuses any redirect to another origin, so
   * the key never leaves it.
   * @throws NetworkError (exit 3) when the server cannot be reached,
   * TimeoutError (exit 3) when the deadline passes, InterruptedError on Ctrl-C,
   * InvalidResponseError (exit 1) for a non-JSON or oversized body or a refused redirect.
   */
  async send(req: HttpRequest): Promise<JsonResponse> {
    if (this.opts.deadlinePer === 'request') this.startDeadline();
    let url = req.url;
    for (let hop = 0; ; hop++) {
      const res = await this.sendOnce(req.method, url, req.body);
      const failure = this.opts.serverFailure?.();
      if (failure !== undefined) {
        await res.body.dump().catch(() => undefined);
        throw failure;
      }
      if (res.statusCode < 300 || res.statusCode >= 400 || res.statusCode === 304) {
        return this.readJson(res, url);
      }
      await res.body.dump().catch(() => undefined);
      const location = headerValue(res.headers.location);
      if (location === undefined) {
        throw new InvalidResponseError(`server answered ${res.statusCode} without a Location header`, res.statusCode);
      }
      const target = new URL(location, url);
      if (target.origin !== url.origin) {
        throw new InvalidResponseError(
          `server redirected (${res.statusCode}) to another origin, ${target.origin}; not followed, so the API key stays with ${url.origin}`,
          res.statusCode,
          'If the API has moved, point petstore at the new base URL (--base-url or `petstore config set`).',
        );
      }
      if (req.method !== 'GET' || hop + 1 > MAX_REDIRECTS) {
        throw new InvalidResponseError(
          req.method !== 'GET'
            ? `server redirected ${req.method} ${url.pathname} (${res.statusCode}) to ${target.pathname}; not followed`
            : `too many redirects (more than ${MAX_REDIRECTS})`,
          res.statusCode,
        );
      }
      this.opts.log?.(`* following ${res.statusCode} redirect to ${target.pathname}${target.search}`);
      url = target;
    }
  }

  /** One request (retries included, see `withRetries`); its answer's body still unread. */
  private async sendOnce(
    method: HttpRequest['method'],
    url: URL,
    body: string | undefined,
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'petstore-cli' };
    if (this.opts.apiKey !== undefined) headers.authorization = `Bearer ${this.opts.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const { log, apiKey } = this.opts;
    const dispatcher = withRetries(this.agent, {
      method,
      maxRetries: this.opts.retries,
      signal: this.signal,
      remainingMs: () => this.remainingMs(),
      log,
      onAttempt: () => {
        log?.(`> ${method} ${url.href}`);
        if (apiKey !== undefined) log?.(`> authorization: Bearer ${maskKey(apiKey)}`);
      },
    });
    try {
      return await request(dispatcher, {
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers,
        body,
        signal: this.signal,
      });
    } catch (err) {
      throw this.toCliError(err, url);
    }
  }

  private async readJson(res: Dispatcher.ResponseData, url: URL): Promise<JsonResponse> {
    const max = MAX_BODY_BYTES;
    const declared = Number(headerValue(res.headers['content-length']) ?? NaN);
    if (declared > max) {
      res.body.destroy();
      throw new InvalidResponseError(`response body too large (${declared} bytes; limit ${max})`, res.statusCode);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > max) {
          res.body.destroy();
          throw new InvalidResponseError(`response body too large (over ${max} bytes)`, res.statusCode);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof InvalidResponseError) throw err;
      throw this.toCliError(err, url, 'while reading the answer');
    }
    const text = await decodeBody(Buffer.concat(chunks), res.headers, res.statusCode, max);
    let json: unknown;
    try {
      json = parseJson(text);
    } catch (err) {
      throw new InvalidResponseError(
        `server answered ${res.statusCode} with malformed JSON (${(err as Error).message})`,
        res.statusCode,
      );
    }
    return { status: res.statusCode, headers: res.headers, url, json };
  }

  /** Maps an undici/OS failure to the contract's error classes. */
  private toCliError(err: unknown, url: URL, phase?: string): Error {
    if (this.opts.signal?.aborted === true) return InterruptedError.from(this.opts.signal);
    if (this.deadlineSignal.aborted) {
      return new TimeoutError(
        `no complete answer from ${url.host} within ${formatSeconds(this.opts.timeoutMs)}`,
        'Raise the deadline with --timeout SECONDS, or check the server.',
      );
    }
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
      const what = phase === undefined ? `cannot reach ${url.host}` : `${url.host} failed ${phase}`;
      return new NetworkError(`${what}: ${NETWORK_CODES[code] ?? code}`, {
        cause: err,
        hint: this.opts.unreachableHint ?? 'Check the base URL and that the server is up.',
      });
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  /** Closes the kept-alive connections so the process can exit at once. */
  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}

/** The first value of a header that may repeat. */
export function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

function formatSeconds(ms: number): string {
  return `${ms / 1000} s`;
}

/**
 * `dns.lookup` for the connector, except that `localhost` and `*.localhost` give both
 * loopback addresses (IPv6 first, as curl tries them) without asking the resolver.
 */
function lookupWithLoopback(
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    const all: LookupAddress[] = [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ].filter((a) => options.family === undefined || options.family === 0 || options.family === a.family);
    if (options.all === true) callback(null, all);
    else callback(null, all[0]?.address ?? '127.0.0.1', all[0]?.family ?? 4);
    return;
  }
  dnsLookup(hostname, options, callback);
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/**
 * The HTTP transport: one undici Agent (kept-alive connection) per CLI run, the bearer
 * key, one deadline for the whole command, retries (src/http/retry.ts), exact-int64 JSON,
 * a body-size cap, redirect policy and typed errors (cli-contract.md "Network behaviour").
 *
 * It never prints, except through the `log` callback that `--verbose` supplies, and it
 * never lets the key reach that log.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ConfigError, InterruptedError, InvalidResponseError, NetworkError, TimeoutError } from '../errors.js';
import { parseJson } from '../json.js';
import { isSendableKey, maskKey } from '../mask.js';
import { findErrorCode, withRetries } from './retry.js';
import { Agent, request, type Dispatcher } from './undici.js';

/** Largest response body read, in bytes (10 MiB); a page of 100 pets is ~10 KiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Same-origin redirects followed at most (cli-contract.md "Network behaviour"). */
export const MAX_REDIRECTS = 5;

/** Options of one transport (one CLI run). */
export interface TransportOptions {
  /** Sent as `Authorization: Bearer <key>` (spec §5); never logged. */
  apiKey: string | undefined;
  /** The whole command's deadline, in ms, retries and waits included. */
  timeoutMs: number;
  /** Retries of a GET (default 2; 0 = none); a POST only when the connection was refused. */
  retries?: number;
  /** `--verbose` sink: one line per call, key redacted. */
  log?: (line: string) => void;
  /** Aborts everything (Ctrl-C). */
  signal?: AbortSignal;
  /** Response body cap in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
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

/**
 * Sends requests for one CLI run. Construct it when the command starts: the deadline
 * counts from then.
 */
export class HttpTransport {
  readonly deadline: number;
  private readonly agent: Dispatcher;
  private readonly opts: TransportOptions;
  private readonly signal: AbortSignal;
  private readonly deadlineSignal: AbortSignal;

  /**
   * @throws ConfigError (exit 2) when `apiKey` holds characters a header cannot carry: the
   * callers check where the key came from, this is the last line before anything is sent.
   */
  constructor(opts: TransportOptions) {
    if (opts.apiKey !== undefined && !isSendableKey(opts.apiKey)) {
      throw new ConfigError(
        'the API key contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was sent',
      );
    }
    this.opts = opts;
    this.deadline = Date.now() + opts.timeoutMs;
    this.deadlineSignal = AbortSignal.timeout(opts.timeoutMs);
    this.signal = opts.signal === undefined ? this.deadlineSignal : AbortSignal.any([this.deadlineSignal, opts.signal]);
    // The deadline signal bounds every phase, so undici's own 300 s defaults never fire first.
    // One connection per origin: a CLI run sends its requests one after another, and a cap of
    // one makes every page of `--all` and every record of a bulk create reuse the kept-alive
    // socket instead of opening a new one while the last is still being marked idle.
    this.agent = new Agent({ connectTimeout: opts.timeoutMs, headersTimeout: 0, bodyTimeout: 0, connections: 1 });
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
    let url = req.url;
    for (let hop = 0; ; hop++) {
      const res = await this.sendOnce(req.method, url, req.body);
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
      maxRetries: this.opts.retries ?? 2,
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
    const max = this.opts.maxBodyBytes ?? MAX_BODY_BYTES;
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
    const text = Buffer.concat(chunks).toString('utf8');
    const type = headerValue(res.headers['content-type']) ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      throw new InvalidResponseError(
        `server answered ${res.statusCode} with content type ${type === '' ? '(none)' : JSON.stringify(type)}, not application/json`,
        res.statusCode,
      );
    }
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
    if (this.opts.signal?.aborted === true) return new InterruptedError();
    if (this.deadlineSignal.aborted) {
      return new TimeoutError(
        `no complete answer from ${url.host} within ${formatSeconds(this.opts.timeoutMs)}`,
        'Raise the deadline with --timeout SECONDS, or check the server.',
      );
    }
    const code = findErrorCode(err, NETWORK_CODE_LIST);
    if (code !== undefined) {
      const what = phase === undefined ? `cannot reach ${url.host}` : `${url.host} failed ${phase}`;
      return new NetworkError(`${what}: ${NETWORK_CODES[code] ?? code}`, {
        cause: err,
        hint: 'Check the base URL (petstore config get <env>.baseUrl) and that the server is up.',
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

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
import { decideRetry, RETRY_ERROR_CODES, RETRY_STATUSES } from './retry.js';
import { Agent, createRetryInterceptor, request, type Dispatcher, type RetryHandler } from './undici.js';

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

/** Redacts a key to its last 4 characters at most (fewer for short keys); lives in `mask.ts`. */
export { maskKey };

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

/**
 * Finds the first error code undici or the OS attached, walking `cause` and `errors`
 * (undici's Errors.md: check `code`, not `instanceof`). Only codes in `known` count.
 */
export function findErrorCode(err: unknown, known: readonly string[] = Object.keys(NETWORK_CODES)): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && known.includes(code)) return code;
    queue.push((e as { cause?: unknown }).cause);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

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

  /**
   * One request, with retries run by undici's retry interceptor and decided by
   * `decideRetry` (src/http/retry.ts). The interceptor's own `retry` default is replaced
   * because it caps `Retry-After` at `maxTimeout` (retrying before the server asked),
   * ignores `retryAfter: false` and knows nothing of the deadline; `throwOnError: false`
   * keeps the last answer's body, so an exhausted 503 still shows the server's Error.
   */
  private async sendOnce(method: string, url: URL, body: string | undefined): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'petstore-cli' };
    if (this.opts.apiKey !== undefined) headers.authorization = `Bearer ${this.opts.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const log = this.opts.log;
    const maxRetries = this.opts.retries ?? 2;
    let started = Date.now();
    let answerLogged = false;
    // Set when an attempt's 2xx/3xx headers arrived. undici would then "resume" a cut-off
    // body with a Range request, which the API does not offer; a cut-off answer is a
    // failure of its own and is not retried.
    let answered = false;
    const logRequest = (): void => {
      log?.(`> ${method} ${url.href}`);
      if (this.opts.apiKey !== undefined) log?.(`> authorization: Bearer ${maskKey(this.opts.apiKey)}`);
    };
    const retry: RetryHandler.RetryCallback = (err, { state }, cb) => {
      const e = err as Error & { statusCode?: number; headers?: Record<string, string | string[]> };
      const status = (e as { code?: string }).code === 'UND_ERR_REQ_RETRY' ? e.statusCode : undefined;
      const code = status === undefined ? findErrorCode(err, RETRY_ERROR_CODES) : undefined;
      if (status !== undefined) log?.(`< ${status} (${Date.now() - started} ms)`);
      else log?.(`< ${code ?? 'error'}: ${e.message} (${Date.now() - started} ms)`);
      const decision = this.signal.aborted
        ? ({ retry: false, reason: 'aborted' } as const)
        : answered && status === undefined
          ? ({ retry: false, reason: 'the answer was cut off after its headers; not retried' } as const)
          : decideRetry(
              { method, status, code, retryAfter: e.headers?.['retry-after'] },
              state.counter,
              maxRetries,
              this.remainingMs(),
            );
      log?.(`* ${decision.reason}`);
      if (!decision.retry) {
        answerLogged = status !== undefined;
        cb(err);
        return;
      }
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        started = Date.now();
        logRequest();
        cb(null);
      }, decision.waitMs);
      // Ctrl-C during the wait: stop waiting. After a connection error undici waits for
      // this callback to settle the request; after a status, aborting the paused answer
      // already rejected it, so the callback must not hand that answer on as well.
      const onAbort = (): void => {
        clearTimeout(timer);
        if (status === undefined) cb(err);
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
    };
    const noteAnswer: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
      dispatch(opts, {
        onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
        onRequestUpgrade: (c, st, h, socket) => handler.onRequestUpgrade?.(c, st, h, socket),
        onResponseStart: (c, st, h, msg) => {
          if (st < 400) answered = true;
          handler.onResponseStart?.(c, st, h, msg);
        },
        onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
        onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
        onResponseError: (c, e) => handler.onResponseError?.(c, e),
      });
    // compose() wraps in order, so the retry interceptor (last) sees every attempt through noteAnswer.
    const dispatcher = this.agent.compose(
      noteAnswer,
      createRetryInterceptor({
        retry,
        maxRetries,
        // `retry` above decides; these lists only tell the interceptor which failures to
        // hand it (POST included, for a refused connection).
        methods: ['GET', 'POST'],
        statusCodes: [...RETRY_STATUSES],
        errorCodes: [...RETRY_ERROR_CODES],
        throwOnError: false,
      }),
    );
    logRequest();
    try {
      const res = await request(dispatcher, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: this.signal,
      });
      if (!answerLogged) log?.(`< ${res.statusCode} (${Date.now() - started} ms)`);
      return res;
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
    const code = findErrorCode(err);
    if (code !== undefined) {
      const what = phase === undefined ? `cannot reach ${url.host}` : `${url.host} failed ${phase}`;
      return new NetworkError(`${what}: ${NETWORK_CODES[code]}`, {
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

/**
 * The retry policy of cli-contract.md "Network behaviour", as pure functions so it can be
 * tested without a network: which failures are retried, how long to wait (exponential
 * backoff with jitter, or the server's `Retry-After`), and the one-deadline rule.
 * `withRetries` plugs `decideRetry` into undici's retry interceptor for the transport.
 */
import { createRetryInterceptor, type Dispatcher, type RetryHandler } from './undici.js';

/** Statuses a GET is retried on (cli-contract.md "Network behaviour"); 500 is not one. */
const RETRY_STATUSES: readonly number[] = [429, 502, 503, 504];

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

/**
 * Connection failures a GET is retried on: those above, plus a connection reset or closed
 * while the request or its answer was under way (undici's own list plus `EAI_AGAIN`).
 */
export const RETRY_ERROR_CODES: readonly string[] = [...NOT_SENT_CODES, 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'];

/**
 * Finds the first error code undici or the OS attached, walking `cause` and `errors`
 * (undici's Errors.md: check `code`, not `instanceof`). Only codes in `known` count.
 */
export function findErrorCode(err: unknown, known: readonly string[]): string | undefined {
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
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return undefined;
}

/** First backoff step, in ms; each retry doubles it. */
export const BACKOFF_BASE_MS = 250;
/** Largest backoff step, in ms (before jitter). */
export const BACKOFF_MAX_MS = 4000;
/**
 * Longest `Retry-After` petstore waits for, in ms (60 s). A longer one, like one beyond
 * the deadline, is not waited for: the command fails at once with the server's answer.
 */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Parses a `Retry-After` value (RFC 9110 §10.2.3: `delay-seconds` or an `HTTP-date`)
 * into ms from `now`. A past date gives 0.
 * @returns undefined for a missing, negative or unparsable value (treated as absent).
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (v === undefined || v === '') return undefined;
  if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with the weekday's name;
  // this keeps `Date.parse` from reading signs, fractions and other looser forms.
  if (!/^[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Backoff before retry number `retry` (1-based): `BACKOFF_BASE_MS * 2^(retry-1)`, capped
 * at `BACKOFF_MAX_MS`, with "equal jitter" (half fixed, half random) so many clients
 * failing together do not retry together.
 * @param random a value in [0, 1) (Math.random by default; tests pass their own).
 */
export function backoffMs(retry: number, random: number = Math.random()): number {
  const step = Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1), BACKOFF_MAX_MS);
  return Math.round(step / 2 + (step / 2) * random);
}

/** What failed on one attempt: an HTTP status or a connection error code. */
export interface AttemptFailure {
  method: string;
  /** The HTTP status of a retryable answer, if there was an answer. */
  status?: number;
  /** The connection error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), if there was no answer. */
  code?: string;
  /** The answer's `Retry-After` header. */
  retryAfter?: string | string[];
}

/** The decision: retry after `waitMs`, or stop with a reason (for `--verbose`). */
export type RetryDecision = { retry: true; waitMs: number; reason: string } | { retry: false; reason: string };

/**
 * Decides whether attempt number `failures` (1-based) is retried.
 *
 * - GET: retried on `RETRY_STATUSES` and `RETRY_ERROR_CODES`, at most `maxRetries` times.
 * - POST: only on `NOT_SENT_CODES`, which happen before a byte is sent; after that the
 *   server may have created the pet, and a retry could create it twice.
 * - The wait is `Retry-After` when the server sent one, else the backoff. A wait that
 *   would pass the deadline (`remainingMs`) or a `Retry-After` above
 *   `RETRY_AFTER_CAP_MS` is not waited for: the last answer stands.
 */
export function decideRetry(
  failure: AttemptFailure,
  failures: number,
  maxRetries: number,
  remainingMs: number,
  random: number = Math.random(),
): RetryDecision {
  const what = failure.status !== undefined ? `HTTP ${failure.status}` : (failure.code ?? 'error');
  if (
    failure.status !== undefined
      ? !RETRY_STATUSES.includes(failure.status)
      : !RETRY_ERROR_CODES.includes(failure.code ?? '')
  ) {
    return { retry: false, reason: `${what} is not retried` };
  }
  if (failure.method !== 'GET' && !(failure.method === 'POST' && NOT_SENT_CODES.includes(failure.code ?? ''))) {
    return { retry: false, reason: `${failure.method} is not retried after ${what}: the server may have received it` };
  }
  if (failures > maxRetries) {
    return {
      retry: false,
      reason: `giving up after ${what}: ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'} used`,
    };
  }
  const retryAfter = failure.status !== undefined ? parseRetryAfter(failure.retryAfter) : undefined;
  if (retryAfter !== undefined && retryAfter > RETRY_AFTER_CAP_MS) {
    return {
      retry: false,
      reason: `not retrying ${what}: Retry-After ${seconds(retryAfter)} is longer than the ${seconds(RETRY_AFTER_CAP_MS)} cap`,
    };
  }
  const waitMs = retryAfter ?? backoffMs(failures, random);
  if (waitMs >= remainingMs) {
    return {
      retry: false,
      reason: `not retrying ${what}: ${retryAfter !== undefined ? 'Retry-After ' : 'backoff '}${seconds(waitMs)} is longer than the ${seconds(remainingMs)} left before the --timeout deadline`,
    };
  }
  return {
    retry: true,
    waitMs,
    reason: `retry ${failures} of ${maxRetries} after ${what} in ${seconds(waitMs)}${retryAfter !== undefined ? ' (Retry-After)' : ''}`,
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 2)} s`;
}

/** What `withRetries` needs to know about one request. */
export interface RetryWiring {
  method: string;
  /** Retries allowed (`--retries`). */
  maxRetries: number;
  /** Aborted on Ctrl-C or at the deadline: stops any wait at once. */
  signal: AbortSignal;
  /** Milliseconds left before the deadline. */
  remainingMs(): number;
  /** `--verbose` sink: answers, connection failures and each retry decision. */
  log: ((line: string) => void) | undefined;
  /** Called as each attempt is dispatched (the transport logs the request line). */
  onAttempt(): void;
}

/**
 * Composes `agent` with undici's retry interceptor for one request, its decisions made by
 * `decideRetry`. undici's own `retry` default is replaced because it caps `Retry-After` at
 * `maxTimeout` (retrying before the server asked), ignores `retryAfter: false` and knows
 * nothing of the deadline; `throwOnError: false` keeps the last answer's body, so an
 * exhausted 503 still shows the server's Error. An inner interceptor sees every attempt:
 * it calls `onAttempt`, logs each answer's status, and remembers that 2xx/3xx headers
 * arrived, after which a cut-off body is not retried (undici would "resume" it with a
 * Range request, which the API does not offer).
 */
export function withRetries(agent: Dispatcher, wiring: RetryWiring): Dispatcher {
  const { log, signal } = wiring;
  let started = Date.now();
  let answered = false;
  const observe: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    started = Date.now();
    wiring.onAttempt();
    return dispatch(opts, {
      onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
      onRequestUpgrade: (c, st, h, socket) => handler.onRequestUpgrade?.(c, st, h, socket),
      onResponseStart: (c, st, h, msg) => {
        if (st < 400) answered = true;
        log?.(`< ${st} (${Date.now() - started} ms)`);
        handler.onResponseStart?.(c, st, h, msg);
      },
      onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
      onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
      onResponseError: (c, e) => handler.onResponseError?.(c, e),
    });
  };
  const retry: RetryHandler.RetryCallback = (err, { state }, cb) => {
    const e = err as Error & { code?: string; statusCode?: number; headers?: Record<string, string | string[]> };
    const status = e.code === 'UND_ERR_REQ_RETRY' ? e.statusCode : undefined;
    const code = status === undefined ? findErrorCode(err, RETRY_ERROR_CODES) : undefined;
    if (status === undefined) log?.(`< ${code ?? 'error'}: ${e.message} (${Date.now() - started} ms)`);
    const decision: RetryDecision = signal.aborted
      ? { retry: false, reason: 'aborted' }
      : answered && status === undefined
        ? { retry: false, reason: 'the answer was cut off after its headers; not retried' }
        : decideRetry(
            { method: wiring.method, status, code, retryAfter: e.headers?.['retry-after'] },
            state.counter,
            wiring.maxRetries,
            wiring.remainingMs(),
          );
    log?.(`* ${decision.reason}`);
    if (!decision.retry) {
      cb(err);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      cb(null);
    }, decision.waitMs);
    // Ctrl-C during the wait: stop waiting. After a connection error undici waits for this
    // callback to settle the request; after a status, aborting the paused answer already
    // rejected it, so the callback must not hand that answer on as well.
    const onAbort = (): void => {
      clearTimeout(timer);
      if (status === undefined) cb(err);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  };
  // compose() wraps in order, so the retry interceptor (last) sees every attempt through `observe`.
  return agent.compose(
    observe,
    createRetryInterceptor({
      retry,
      maxRetries: wiring.maxRetries,
      // `retry` above decides; these lists only tell the interceptor which failures to hand
      // it (POST included, for a connection that was never made).
      methods: ['GET', 'POST'],
      statusCodes: [...RETRY_STATUSES],
      errorCodes: [...RETRY_ERROR_CODES],
      throwOnError: false,
    }),
  );
}

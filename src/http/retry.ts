/**
 * The retry policy of cli-contract.md "Network behaviour", as pure functions so it can be
 * tested without a network: which failures are retried, how long to wait (exponential
 * backoff with jitter, or the server's `Retry-After`), and the one-deadline rule.
 * `transport.ts` plugs `decideRetry` into undici's retry interceptor.
 */

/** Statuses a GET is retried on (cli-contract.md "Network behaviour"); 500 is not one. */
export const RETRY_STATUSES: readonly number[] = [429, 502, 503, 504];

/**
 * Connection failures a GET is retried on: refused, reset, closed, DNS, unreachable
 * (undici's own list plus `EAI_AGAIN`, a transient DNS failure).
 */
export const RETRY_ERROR_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
];

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
 * - POST: only on `ECONNREFUSED`, which happens before a byte is sent; after that the
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
  if (failure.method !== 'GET' && !(failure.method === 'POST' && failure.code === 'ECONNREFUSED')) {
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

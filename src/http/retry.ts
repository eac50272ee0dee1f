/**
 * The one retry policy of cli-contract.md "Network behaviour", for every command: which
 * failed attempt is sent again, after how long (exponential backoff with jitter, or the
 * server's `Retry-After`), and the one-deadline rule. Pure: it decides, the transport's send
 * loop (transport.ts) and any caller with a queue of its own act on the decision.
 *
 * - Idempotent methods (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE) are sent
 *   again after a connection failure and after 429, 502, 503 and 504: sending one twice has
 *   the effect of sending it once.
 * - A 429 is a refusal (RFC 6585 §4: the server did not act on the request), so a request
 *   of any method is sent again once its `Retry-After` has passed.
 * - Any other method (POST, PATCH) is never sent again once it may have reached the server
 *   (a retry could create the animal twice); only a connection that was never made
 *   (`NOT_SENT_CODES`) is tried again.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RefusedWait } from '../base/errors.js';
import { findErrorCode, NOT_SENT_CODES } from './failures.js';
import { countOf } from '../text/count.js';

// Callers that classify a failure by the policy's lists (a bulk create deciding whether a
// record was created) find the walker and the list here too.
export { findErrorCode, NOT_SENT_CODES };

/** Statuses retried (cli-contract.md "Network behaviour"); 500 is not one: the server failed at the request itself. */
const RETRY_STATUSES: readonly number[] = [429, 502, 503, 504];

/** The refusal status: Too Many Requests (RFC 6585 §4). */
export const REFUSAL_STATUS = 429;

/** Idempotent methods (RFC 9110 §9.2.2): safe ones plus PUT and DELETE. */
const IDEMPOTENT_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'];

/**
 * Connection failures an idempotent request is sent again after: those above, plus a
 * connection reset or closed while the request or its answer was under way.
 */
export const RETRY_ERROR_CODES: readonly string[] = [...NOT_SENT_CODES, 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'];

/** First backoff step, in ms; each retry doubles it. */
export const BACKOFF_BASE_MS = 250;
/** Largest backoff step, in ms (before jitter). */
export const BACKOFF_MAX_MS = 4000;
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
  /** The request's method, upper case. */
  method: string;
  /** The HTTP status of the answer, if there was an answer. */
  status?: number | undefined;
  /** The connection error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), if there was no answer. */
  code?: string | undefined;
  /** The answer's `Retry-After` header. */
  retryAfter?: string | string[] | undefined;
}

/**
 * The decision: send again after `waitMs`, or stop with a reason (for `--verbose`); a stop
 * because the server's `Retry-After` passes the deadline carries `refusedWait`, which the
 * error then names (cli-contract.md "Network behaviour").
 */
export type RetryDecision =
  { retry: true; waitMs: number; reason: string } | { retry: false; reason: string; refusedWait?: RefusedWait };

/**
 * The retry policy of one run: `maxRetries` (`--retries`, 0..10) and the rules above.
 * `decide` is asked after each failed attempt; `afterRefusal` is the same rule for a caller
 * that handles a 429 itself (a bulk create with requests in flight puts the record back in
 * its queue and slows down).
 */
export class RetryPolicy {
  /**
   * @param maxRetries how many times one request may be sent again (`--retries`; 0 = never).
   * @param random the jitter's source, values in [0, 1) (tests pass their own).
   */
  constructor(
    readonly maxRetries: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Whether `method` is idempotent (RFC 9110 §9.2.2), so sending it twice is harmless. */
  static isIdempotent(method: string): boolean {
    return IDEMPOTENT_METHODS.includes(method.toUpperCase());
  }

  /** Whether an answer with `status` is one the policy may send the request again after. */
  static isRetryableStatus(status: number): boolean {
    return RETRY_STATUSES.includes(status);
  }

  /**
   * Decides whether the request is sent again after its `failures`-th failed attempt
   * (1-based), with `remainingMs` left before the deadline. The wait is `Retry-After` when
   * the server sent one (however long: the deadline is the only cap), else the backoff; a
   * wait that would pass the deadline is not waited for: the last answer stands, and a
   * `Retry-After` that would have passed it is returned as `refusedWait`.
   */
  decide(failure: AttemptFailure, failures: number, remainingMs: number): RetryDecision {
    const what = failure.status !== undefined ? `HTTP ${failure.status}` : (failure.code ?? 'error');
    const retryable =
      failure.status !== undefined
        ? RetryPolicy.isRetryableStatus(failure.status)
        : RETRY_ERROR_CODES.includes(failure.code ?? '');
    if (!retryable) return { retry: false, reason: `${what} is not retried` };
    if (!this.maySendAgain(failure)) {
      return {
        retry: false,
        reason: `${failure.method} is not retried after ${what}: the server may have received it`,
      };
    }
    if (failures > this.maxRetries) {
      const n = this.maxRetries;
      return { retry: false, reason: `giving up after ${what}: ${countOf(n, 'retry', 'retries')} used` };
    }
    const retryAfter = failure.status !== undefined ? parseRetryAfter(failure.retryAfter) : undefined;
    const waitMs = retryAfter ?? backoffMs(failures, this.random());
    if (waitMs >= remainingMs) {
      return {
        retry: false,
        reason: `not retrying ${what}: ${retryAfter !== undefined ? 'Retry-After ' : 'backoff '}${seconds(waitMs)} is longer than the ${seconds(remainingMs)} left before the --timeout deadline`,
        ...(retryAfter === undefined ? {} : { refusedWait: { askedMs: retryAfter, leftMs: Math.max(0, remainingMs) } }),
      };
    }
    const via = retryAfter !== undefined ? ' (Retry-After)' : '';
    return {
      retry: true,
      waitMs,
      reason: `retry ${failures} of ${this.maxRetries} after ${what} in ${seconds(waitMs)}${via}`,
    };
  }

  /**
   * The rule for a 429 answered to a request of any method, for a caller that sends it
   * again itself: the wait (`Retry-After`, else the backoff of refusal number `refusals`,
   * 1-based) or why not to (retries used, a wait past the deadline: `refusedWait`).
   * @param headers the 429's headers (its `Retry-After`).
   */
  afterRefusal(
    headers: IncomingHttpHeaders | Record<string, string | string[] | undefined> | undefined,
    refusals: number,
    remainingMs: number,
  ): RetryDecision {
    return this.decide(
      { method: 'POST', status: REFUSAL_STATUS, retryAfter: headers?.['retry-after'] },
      refusals,
      remainingMs,
    );
  }

  /**
   * Whether the request may be sent again at all: an idempotent one always, any other
   * after a refusal (nothing was done) or a connection never made (nothing was sent).
   */
  private maySendAgain(failure: AttemptFailure): boolean {
    if (RetryPolicy.isIdempotent(failure.method)) return true;
    if (failure.status !== undefined) return failure.status === REFUSAL_STATUS;
    return NOT_SENT_CODES.includes(failure.code ?? '');
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 2)} s`;
}

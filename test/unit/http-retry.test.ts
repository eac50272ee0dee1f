/**
 * The retry policy of src/http/retry.ts (cli-contract.md "Network behaviour"; RFC 9110
 * §9.2.2 idempotent methods, §10.2.3 Retry-After; RFC 6585 §4 429).
 */
import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, RetryPolicy, backoffMs, parseRetryAfter } from '../../src/http/retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 3 ', NOW)).toBe(3000);
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2000);
  });
  it('reads the HTTP-date forms', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:10 GMT', NOW)).toBe(10_000);
  });
  it('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', NOW)).toBe(0);
  });
  it('treats missing, negative and unparsable values as absent', () => {
    for (const v of [undefined, '', '-1', '1.5', '+3', '1e3', 'soon', '0x10', '2026-01-01', 'Fri, 99 Foo 2026 GMT']) {
      expect(parseRetryAfter(v, NOW), String(v)).toBeUndefined();
    }
  });
});

describe('backoffMs', () => {
  it('doubles per retry with equal jitter, capped', () => {
    expect(backoffMs(1, 0)).toBe(BACKOFF_BASE_MS / 2);
    expect(backoffMs(1, 0.999999)).toBe(BACKOFF_BASE_MS);
    expect(backoffMs(2, 0)).toBe(BACKOFF_BASE_MS);
    expect(backoffMs(3, 0.5)).toBe(Math.round(BACKOFF_BASE_MS * 4 * 0.75));
    expect(backoffMs(30, 0.999999)).toBe(BACKOFF_MAX_MS);
  });
});

describe('RetryPolicy', () => {
  /** A policy with `--retries 2` whose jitter is `random`. */
  const policy = (maxRetries = 2, random = 0) => new RetryPolicy(maxRetries, () => random);
  const decide = (failure: object, failures = 1, remainingMs = 30_000, p = policy()) =>
    p.decide({ method: 'GET', ...failure }, failures, remainingMs);

  it('retries GET and HEAD on 429, 502, 503, 504 and connection failures', () => {
    for (const method of ['GET', 'HEAD']) {
      for (const status of [429, 502, 503, 504])
        expect(decide({ method, status }).retry, `${method} ${status}`).toBe(true);
      for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']) {
        expect(decide({ method, code }).retry, `${method} ${code}`).toBe(true);
      }
    }
  });

  it('retries PUT and DELETE like GET: RFC 9110 idempotent methods', () => {
    for (const method of ['PUT', 'DELETE', 'OPTIONS', 'put']) {
      expect(decide({ method, status: 503 }).retry, method).toBe(true);
      expect(decide({ method, code: 'ECONNRESET' }).retry, method).toBe(true);
      expect(decide({ method, status: 500 }).retry, method).toBe(false);
      expect(decide({ method, status: 409 }).retry, method).toBe(false);
    }
    expect(RetryPolicy.isIdempotent('DELETE')).toBe(true);
    expect(RetryPolicy.isIdempotent('PATCH')).toBe(false);
  });

  it('does not retry 500, other 4xx or unknown errors, whatever the method', () => {
    for (const status of [500, 501, 400, 401, 404, 410]) expect(decide({ status }).retry, String(status)).toBe(false);
    expect(decide({ code: 'UND_ERR_HEADERS_TIMEOUT' }).retry).toBe(false);
    expect(decide({ code: undefined }).retry).toBe(false);
  });

  it('POST and PATCH: never once the request may have reached the server', () => {
    for (const method of ['POST', 'PATCH']) {
      for (const f of [
        { status: 503 },
        { status: 502 },
        { code: 'ECONNRESET' },
        { code: 'UND_ERR_SOCKET' },
        { code: 'EPIPE' },
      ]) {
        const d = decide({ method, ...f });
        expect(d.retry, `${method} ${JSON.stringify(f)}`).toBe(false);
        expect(d.reason).toContain('may have received it');
      }
    }
  });

  it('POST and PATCH: again when the connection was never made (nothing was sent)', () => {
    for (const method of ['POST', 'PATCH']) {
      for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT']) {
        expect(decide({ method, code }).retry, `${method} ${code}`).toBe(true);
      }
    }
  });

  it('any method after a 429: a refusal, nothing was done; once Retry-After has passed', () => {
    for (const method of ['POST', 'PATCH', 'PUT', 'GET']) {
      expect(decide({ method, status: 429, retryAfter: '2' })).toMatchObject({ retry: true, waitMs: 2000 });
      expect(decide({ method, status: 429 })).toMatchObject({ retry: true, waitMs: BACKOFF_BASE_MS / 2 });
    }
  });

  it('afterRefusal gives a caller with its own queue the same rule', () => {
    const p = policy(3);
    expect(p.afterRefusal({ 'retry-after': '5' }, 1, 30_000)).toMatchObject({ retry: true, waitMs: 5000 });
    expect(p.afterRefusal({}, 2, 30_000)).toMatchObject({ retry: true, waitMs: BACKOFF_BASE_MS });
    expect(p.afterRefusal({ 'retry-after': '5' }, 4, 30_000).retry).toBe(false);
    expect(p.afterRefusal({ 'retry-after': '5' }, 1, 4000).retry).toBe(false);
    expect(p.afterRefusal(undefined, 1, 30_000).retry).toBe(true);
  });

  it('stops after maxRetries', () => {
    expect(decide({ status: 503 }, 2).retry).toBe(true);
    expect(decide({ status: 503 }, 3).retry).toBe(false);
    expect(decide({ status: 503 }, 1, 30_000, policy(0)).retry).toBe(false);
    expect(decide({ status: 503 }, 3).reason).toBe('giving up after HTTP 503: 2 retries used');
  });

  it('waits for Retry-After, not the backoff', () => {
    expect(decide({ status: 429, retryAfter: '7' })).toMatchObject({ retry: true, waitMs: 7000 });
  });

  it('does not wait past the deadline, and names a Retry-After that would pass it', () => {
    expect(decide({ status: 429, retryAfter: '7' }, 1, 6999)).toMatchObject({
      retry: false,
      refusedWait: { askedMs: 7000, leftMs: 6999 },
    });
    const backoff = decide({ status: 503 }, 1, 10);
    expect(backoff.retry).toBe(false);
    expect(backoff).not.toHaveProperty('refusedWait');
  });

  it('has no cap but the deadline: an hour of Retry-After within a day is waited for', () => {
    expect(decide({ status: 503, retryAfter: '3600' }, 1, 86_400_000)).toMatchObject({
      retry: true,
      waitMs: 3_600_000,
    });
  });

  it('ignores Retry-After on connection errors', () => {
    expect(decide({ code: 'ECONNRESET', retryAfter: '100' })).toMatchObject({
      retry: true,
      waitMs: BACKOFF_BASE_MS / 2,
    });
  });

  it('uses its own jitter source', () => {
    expect(decide({ status: 503 }, 1, 30_000, policy(2, 0.999999))).toMatchObject({ waitMs: BACKOFF_BASE_MS });
  });
});

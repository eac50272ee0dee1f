/** The retry policy of src/http/retry.ts (cli-contract.md "Network behaviour", RFC 9110 §10.2.3). */
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_MS,
  BACKOFF_MAX_MS,
  RETRY_AFTER_CAP_MS,
  backoffMs,
  decideRetry,
  parseRetryAfter,
} from '../../src/http/retry.js';

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

describe('decideRetry', () => {
  const get = (x: object) => ({ method: 'GET', ...x });
  it('retries GET on 429, 502, 503, 504 and connection failures', () => {
    for (const status of [429, 502, 503, 504]) expect(decideRetry(get({ status }), 1, 2, 30_000, 0).retry).toBe(true);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'ENOTFOUND', 'EAI_AGAIN']) {
      expect(decideRetry(get({ code }), 1, 2, 30_000, 0).retry, code).toBe(true);
    }
  });
  it('does not retry 500, 4xx or unknown errors', () => {
    for (const status of [500, 501, 400, 401, 404])
      expect(decideRetry(get({ status }), 1, 2, 30_000).retry).toBe(false);
    expect(decideRetry(get({ code: 'UND_ERR_HEADERS_TIMEOUT' }), 1, 2, 30_000).retry).toBe(false);
  });
  it('retries POST only when the connection was refused', () => {
    expect(decideRetry({ method: 'POST', code: 'ECONNREFUSED' }, 1, 2, 30_000).retry).toBe(true);
    for (const f of [
      { status: 503 },
      { status: 429, retryAfter: '0' },
      { code: 'ECONNRESET' },
      { code: 'UND_ERR_SOCKET' },
    ]) {
      const d = decideRetry({ method: 'POST', ...f }, 1, 2, 30_000);
      expect(d.retry).toBe(false);
      expect(d.reason).toContain('may have received it');
    }
  });
  it('stops after maxRetries', () => {
    expect(decideRetry(get({ status: 503 }), 2, 2, 30_000).retry).toBe(true);
    expect(decideRetry(get({ status: 503 }), 3, 2, 30_000).retry).toBe(false);
    expect(decideRetry(get({ status: 503 }), 1, 0, 30_000).retry).toBe(false);
  });
  it('waits for Retry-After, not the backoff', () => {
    expect(decideRetry(get({ status: 429, retryAfter: '7' }), 1, 2, 30_000)).toMatchObject({
      retry: true,
      waitMs: 7000,
    });
  });
  it('does not wait past the deadline or the cap', () => {
    expect(decideRetry(get({ status: 429, retryAfter: '7' }), 1, 2, 6999).retry).toBe(false);
    expect(decideRetry(get({ status: 503 }), 1, 2, 10, 0).retry).toBe(false);
    const capped = decideRetry(
      get({ status: 503, retryAfter: String(RETRY_AFTER_CAP_MS / 1000 + 1) }),
      1,
      2,
      86_400_000,
    );
    expect(capped.retry).toBe(false);
    expect(capped.reason).toContain('cap');
  });
  it('ignores Retry-After on connection errors', () => {
    expect(decideRetry(get({ code: 'ECONNRESET', retryAfter: '100' }), 1, 2, 30_000, 0)).toMatchObject({
      retry: true,
      waitMs: BACKOFF_BASE_MS / 2,
    });
  });
});

/** Small pure parts of the HTTP layer: key masking, error-code detection, header values. */
import { describe, expect, it } from 'vitest';
import { findErrorCode, NOT_SENT_CODES, RETRY_ERROR_CODES } from '../../src/http/retry.js';
import { headerValue } from '../../src/http/transport.js';
import { maskKey } from '../../src/mask.js';

describe('maskKey', () => {
  it('shows at most the last 4 characters, fewer for short keys', () => {
    expect(maskKey('pst_live_abcdefghijkl')).toBe('****ijkl');
    expect(maskKey('abcdefgh')).toBe('****gh');
    expect(maskKey('abcdefg')).toBe('****');
    expect(maskKey('')).toBe('****');
  });
  it('never contains more than 4 characters of the key', () => {
    for (let n = 0; n < 64; n++) {
      const key = 'k'.repeat(n);
      expect(maskKey(key).replace('****', '').length).toBeLessThanOrEqual(4);
    }
  });
});

describe('findErrorCode', () => {
  it('walks cause chains and AggregateError lists', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(findErrorCode(refused, NOT_SENT_CODES)).toBe('ECONNREFUSED');
    expect(findErrorCode(new TypeError('fetch failed', { cause: refused }), NOT_SENT_CODES)).toBe('ECONNREFUSED');
    expect(findErrorCode(new AggregateError([new Error('x'), refused]), NOT_SENT_CODES)).toBe('ECONNREFUSED');
  });
  it('ignores unknown codes and non-errors, and survives cycles', () => {
    const a: { code: string; cause?: unknown } = { code: 'EWHATEVER' };
    a.cause = a;
    expect(findErrorCode(a, RETRY_ERROR_CODES)).toBeUndefined();
    expect(findErrorCode('ECONNRESET', RETRY_ERROR_CODES)).toBeUndefined();
    expect(findErrorCode(null, RETRY_ERROR_CODES)).toBeUndefined();
  });
  it('a connection that was never made is "not sent"; a reset is not', () => {
    expect(NOT_SENT_CODES).toContain('ECONNREFUSED');
    expect(NOT_SENT_CODES).not.toContain('ECONNRESET');
    expect(RETRY_ERROR_CODES).toEqual(expect.arrayContaining([...NOT_SENT_CODES, 'ECONNRESET', 'UND_ERR_SOCKET']));
  });
  it('limits the search to the given codes', () => {
    const e = Object.assign(new Error('t'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(findErrorCode(e, NOT_SENT_CODES)).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(findErrorCode(e, ['ECONNRESET'])).toBeUndefined();
  });
});

describe('headerValue', () => {
  it('takes the first of a repeated header', () => {
    expect(headerValue(['a', 'b'])).toBe('a');
    expect(headerValue('c')).toBe('c');
    expect(headerValue(undefined)).toBeUndefined();
  });
});

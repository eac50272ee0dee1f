/** Small pure parts of src/http/transport.ts: key masking and error-code detection. */
import { describe, expect, it } from 'vitest';
import { findErrorCode, headerValue, maskKey } from '../../src/http/transport.js';

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
    expect(findErrorCode(refused)).toBe('ECONNREFUSED');
    expect(findErrorCode(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
    expect(findErrorCode(new AggregateError([new Error('x'), refused]))).toBe('ECONNREFUSED');
  });
  it('ignores unknown codes and non-errors, and survives cycles', () => {
    const a: { code: string; cause?: unknown } = { code: 'EWHATEVER' };
    a.cause = a;
    expect(findErrorCode(a)).toBeUndefined();
    expect(findErrorCode('ECONNRESET')).toBeUndefined();
    expect(findErrorCode(null)).toBeUndefined();
  });
  it('limits the search to the given codes', () => {
    const e = Object.assign(new Error('t'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(findErrorCode(e)).toBe('UND_ERR_CONNECT_TIMEOUT');
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

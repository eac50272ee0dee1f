/** Small pure parts of the HTTP layer: key masking, the cause walker, header values, verbose redaction. */
import { describe, expect, it } from 'vitest';
import { findErrorCode } from '../../src/http/failures.js';
import { headerPairs, headerValue } from '../../src/http/headers.js';
import { NOT_SENT_CODES, RETRY_ERROR_CODES } from '../../src/http/retry.js';
import { isCredentialHeader, redactJson, REDACTED, WireLog } from '../../src/http/verbose.js';
import { maskKey } from '../../src/base/mask.js';

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

describe('headerPairs', () => {
  it('gives one pair per value of a repeated header, in order', () => {
    expect(headerPairs({ a: '1', 'set-cookie': ['x=1', 'y=2'], b: undefined })).toEqual([
      ['a', '1'],
      ['set-cookie', 'x=1'],
      ['set-cookie', 'y=2'],
    ]);
  });
});

describe('--verbose redaction', () => {
  it('knows credential headers by name, and leaves challenges and the rest alone', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'Set-Cookie',
      'X-Api-Key',
      'x-auth-token',
      'X-Session-Id',
      'x-amz-security-token',
    ]) {
      expect(isCredentialHeader(name), name).toBe(true);
    }
    for (const name of [
      'WWW-Authenticate',
      'Link',
      'Deprecation',
      'Sunset',
      'Retry-After',
      'content-type',
      'Access-Control-Allow-Credentials',
    ]) {
      expect(isCredentialHeader(name), name).toBe(false);
    }
  });

  it('redacts credential-looking JSON fields at any depth, and leaves other JSON byte for byte', () => {
    expect(redactJson('{"name":"Rex","password":"hunter2","nested":[{"apiKey":"k","id":9223372036854775807}]}')).toBe(
      `{"name":"Rex","password":"${REDACTED}","nested":[{"apiKey":"${REDACTED}","id":9223372036854775807}]}`,
    );
    const plain = '{ "id": 9223372036854775807,\n "name": "Rex" }';
    expect(redactJson(plain)).toBe(plain);
    expect(redactJson('not json, token=abc')).toBe('not json, token=abc');
  });

  it('a log masks the bearer key, redacts Set-Cookie, and the key appears nowhere', () => {
    const key = 'pst_live_secret_key_0123';
    const lines: string[] = [];
    const log = new WireLog((l) => lines.push(l), key, true);
    log.request(
      'POST',
      new URL('http://h/v1/pets'),
      { authorization: `Bearer ${key}`, 'x-note': `see ${key}` },
      `{"key":"${key}"}`,
    );
    log.response(200, 3, { 'set-cookie': ['s=1', 't=2'], link: '<http://h/v1/pets?page=2>; rel="next"' });
    log.responseBody(Buffer.from(`{"token":"abc","echo":"${key}"}`));
    const text = lines.join('\n');
    expect(text).not.toContain(key);
    expect(text).toContain('> authorization: Bearer ****0123');
    expect(lines.filter((l) => l === `< set-cookie: ${REDACTED}`)).toHaveLength(2);
    expect(text).toContain('< link: <http://h/v1/pets?page=2>; rel="next"');
    expect(text).toContain(`"token":"${REDACTED}"`);
  });
});

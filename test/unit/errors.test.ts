/** The exit-code mapping of cli-contract.md "Errors and exit codes". */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  CliError,
  ConfigError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
  UsageError,
  describeFileError,
  ERROR_CODES,
  exitCodeFor,
  exitCodeForStatus,
} from '../../src/base/errors.js';

describe('exitCodeForStatus', () => {
  it.each([
    [400, 6],
    [401, 4],
    [404, 5],
    [403, 1],
    [405, 1],
    [409, 1],
    [413, 1],
    [422, 1],
    [429, 1],
    [500, 1],
    [502, 1],
    [503, 1],
  ])('HTTP %d → exit %d', (status, code) => {
    expect(exitCodeForStatus(status)).toBe(code);
  });
});

describe('exitCodeFor', () => {
  const body = (status: number) => ({ code: 'c', message: 'm', status });
  it.each([
    ['UsageError', new UsageError('x'), 2, 'usage', 0],
    ['ConfigError', new ConfigError('x'), 2, 'config', 0],
    ['NetworkError', new NetworkError('x'), 3, 'network', 0],
    ['TimeoutError', new TimeoutError('x'), 3, 'timeout', 0],
    ['AuthError', new AuthError('x'), 4, 'auth', 0],
    ['InvalidResponseError', new InvalidResponseError('x', 200), 1, 'invalid_response', 200],
    ['InterruptedError', new InterruptedError(), 130, 'interrupted', 0],
    ['ApiError 400', new ApiError(body(400), 400), 6, 'c', 400],
    ['ApiError 401', new ApiError(body(401), 401), 4, 'c', 401],
    ['ApiError 404', new ApiError(body(404), 404), 5, 'c', 404],
    ['ApiError 500', new ApiError(body(500), 500), 1, 'c', 500],
    // The HTTP status decides, not the body's `status` field.
    ['ApiError 404 with body status 500', new ApiError(body(500), 404), 5, 'c', 404],
  ] as [string, CliError, number, string, number][])(
    '%s → exit %d, code %s, status %d',
    (_n, err, exit, code, status) => {
      expect(exitCodeFor(err)).toBe(exit);
      expect(err.code).toBe(code);
      expect(err.status).toBe(status);
    },
  );

  it.each([new Error('bug'), new TypeError('bug'), 'a string', undefined, null, { exitCode: 2 }])(
    'anything that is not a CliError (%o) → exit 1',
    (thrown) => {
      expect(exitCodeFor(thrown)).toBe(1);
    },
  );
});

describe('ERROR_CODES', () => {
  it('docs/errors.md lists exactly the machine-readable codes petstore reports', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const section = doc.split('### Error codes')[1]?.split('\n## ')[0] ?? '';
    const listed = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(0);
    expect([...listed].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('every error class uses a code from the list', () => {
    for (const err of [
      new UsageError('x'),
      new ConfigError('x'),
      new AuthError('x'),
      new NetworkError('x'),
      new TimeoutError('x'),
      new InvalidResponseError('x'),
      new InterruptedError(),
    ]) {
      expect(ERROR_CODES).toContain(err.code);
    }
  });
});

describe('describeFileError', () => {
  it.each([
    ['ENOENT', 'no such file or directory'],
    ['EACCES', 'permission denied'],
    ['EISDIR', 'it is a directory'],
    ['ENOTDIR', 'a part of the path is not a directory'],
    ['ENOSPC', 'no space left on the device'],
    ['EROFS', 'read-only file system'],
  ])('%s → %s', (code, words) => {
    expect(describeFileError(Object.assign(new Error(`${code}: raw`), { code }))).toBe(words);
  });
  it('falls back to the message for other codes', () => {
    expect(describeFileError(Object.assign(new Error('EWEIRD: odd'), { code: 'EWEIRD' }))).toBe('EWEIRD: odd');
  });
});

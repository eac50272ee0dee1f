/** Base URL rules (cli-contract.md "Environments") and the colour decision ("Output"). */
import { describe, expect, it } from 'vitest';
import { joinUrl } from '../../src/client/client.js';
import { EnvVars } from '../../src/config/env.js';
import { checkBaseUrl, lacksVersionSegment } from '../../src/config/settings.js';
import { isLoopbackHost } from '../../src/base/loopback.js';
import { UsageError } from '../../src/base/errors.js';
import { wantsColor } from '../../src/io/io.js';
import { thrown } from '../helpers/harness.js';

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['https://api.example.com/v1//', 'https://api.example.com/v1'],
    ['HTTPS://API.Example.COM/v1', 'https://api.example.com/v1'],
    ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
    ['http://127.1.2.3/v1', 'http://127.1.2.3/v1'],
    ['http://[::1]:9000/v1', 'http://[::1]:9000/v1'],
    ['http://localhost:3000/v1', 'http://localhost:3000/v1'],
    ['http://LOCALHOST/v1', 'http://localhost/v1'],
    ['http://api.localhost/v1', 'http://api.localhost/v1'],
  ])('accepts %j as %j', (raw, want) => {
    expect(checkBaseUrl(raw, '--base-url')).toBe(want);
  });

  it.each([
    ['http://api.example.com/v1', 'plain http://'],
    ['http://10.0.0.1/v1', 'plain http://'],
    ['http://128.0.0.1/v1', 'plain http://'],
    ['http://localhost.example.com/v1', 'plain http://'],
    ['http://[::2]/v1', 'plain http://'],
    ['http://0.0.0.0/v1', 'plain http://'],
    ['https://api.example.com/v1?x=1', 'query'],
    ['https://api.example.com/v1#frag', 'fragment'],
    ['https://user:pw@api.example.com/v1', 'credentials'],
    ['https://user@api.example.com/v1', 'credentials'],
    ['ftp://api.example.com/v1', 'https://'],
    ['api.example.com/v1', 'not a URL'],
    ['', 'not a URL'],
  ])('refuses %j (%s), naming the flag and the value', (raw, reason) => {
    const err = thrown(() => checkBaseUrl(raw, '--base-url'));
    expect(err).toBeInstanceOf(UsageError);
    const msg = (err as UsageError).message;
    expect(msg).toContain('--base-url');
    // The value as given, except that its userinfo (user and password) is shown as ***.
    expect(msg).toContain(JSON.stringify(raw.replace(/\/\/[^/]*@/, '//***@')));
    expect(msg).toContain(reason);
    expect((err as UsageError).exitCode).toBe(2);
  });

  it('does not put the password of a refused URL into the message beyond the value given', () => {
    // The value is echoed so the user sees what was refused; the key never is (it has no flag).
    expect(() => checkBaseUrl('https://u:p@h/v1', 'PETSTORE_BASE_URL')).toThrow(/PETSTORE_BASE_URL/);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    '127.0.0.1',
    '127.255.255.254',
    '[::1]',
    '::1',
    'a.localhost',
    'localhost.',
    '[::ffff:7f00:1]',
  ])('%j is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each([
    'example.com',
    '10.0.0.1',
    '0.0.0.0',
    '::',
    '127.0.0',
    'localhost.evil.com',
    '1127.0.0.1',
    '[::ffff:a00:1]',
  ])('%j is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('lacksVersionSegment', () => {
  it.each([
    ['https://h/v1', false],
    ['https://h/v1/', false],
    ['https://h/api/v1', false],
    ['https://h', true],
    ['https://h/', true],
    ['https://h/v2', true],
    ['https://h/v10', true],
    ['https://h/v1/pets', true],
  ])('%j → %s', (url, want) => {
    expect(lacksVersionSegment(url)).toBe(want);
  });
});

describe('joinUrl', () => {
  it.each([
    ['https://h/v1', 'pets', 'https://h/v1/pets'],
    ['https://h/v1/', 'pets', 'https://h/v1/pets'],
    ['https://h/v1//', '/pets', 'https://h/v1/pets'],
    ['https://h/v1', '/pets/7', 'https://h/v1/pets/7'],
    ['http://127.0.0.1:8/api/v1/', 'pets/9007199254740993', 'http://127.0.0.1:8/api/v1/pets/9007199254740993'],
  ])('%j + %j = %j', (base, path, want) => {
    const url = joinUrl(base, path);
    expect(url.href).toBe(want);
    expect(url.pathname).not.toContain('//');
  });
});

describe('wantsColor', () => {
  const cases: [string, boolean, NodeJS.ProcessEnv, boolean, boolean][] = [
    ['TTY', true, {}, false, true],
    ['pipe', false, {}, false, false],
    ['--no-color on a TTY', true, {}, true, false],
    ['--no-color beats FORCE_COLOR', false, { FORCE_COLOR: '1' }, true, false],
    ['NO_COLOR=1 on a TTY', true, { NO_COLOR: '1' }, false, false],
    ['NO_COLOR empty is ignored', true, { NO_COLOR: '' }, false, true],
    ['NO_COLOR beats FORCE_COLOR', false, { NO_COLOR: '1', FORCE_COLOR: '1' }, false, false],
    ['FORCE_COLOR=1 on a pipe', false, { FORCE_COLOR: '1' }, false, true],
    ['FORCE_COLOR=0 on a TTY', true, { FORCE_COLOR: '0' }, false, false],
    ['FORCE_COLOR=false on a TTY', true, { FORCE_COLOR: 'false' }, false, false],
    ['FORCE_COLOR empty on a pipe', false, { FORCE_COLOR: '' }, false, false],
    ['CLICOLOR_FORCE=1 on a pipe', false, { CLICOLOR_FORCE: '1' }, false, true],
    ['CLICOLOR_FORCE=0 on a pipe', false, { CLICOLOR_FORCE: '0' }, false, false],
    [
      'CLICOLOR_FORCE=false on a pipe (the one rule for yes/no variables)',
      false,
      { CLICOLOR_FORCE: 'false' },
      false,
      false,
    ],
    ['CLICOLOR=false on a TTY', true, { CLICOLOR: 'FALSE' }, false, false],
    ['CLICOLOR=0 on a TTY', true, { CLICOLOR: '0' }, false, false],
    ['CLICOLOR=1 on a pipe', false, { CLICOLOR: '1' }, false, false],
    ['CLICOLOR_FORCE beats CLICOLOR=0', false, { CLICOLOR: '0', CLICOLOR_FORCE: '1' }, false, true],
    ['TERM=dumb on a TTY', true, { TERM: 'dumb' }, false, false],
    ['TERM=xterm on a TTY', true, { TERM: 'xterm-256color' }, false, true],
    ['FORCE_COLOR beats TERM=dumb', false, { TERM: 'dumb', FORCE_COLOR: '1' }, false, true],
  ];
  it.each(cases)('%s → %s', (_name, isTTY, env, flag, want) => {
    expect(wantsColor(isTTY, new EnvVars(env), flag)).toBe(want);
  });
});

describe('checkBaseUrl messages', () => {
  it('never echo a password carried in the URL', () => {
    let message = '';
    try {
      checkBaseUrl('https://user:s3cr3t-pw@api.example.com/v1', '--base-url');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('"https://***@api.example.com/v1"');
    expect(message).not.toContain('s3cr3t-pw');
  });

  it.each([
    ['an @ inside the password', 'https://user:p@ssw0rd@api.example.com/v1', ['p@ssw0rd', 'ssw0rd']],
    ['a / inside the password (not a URL at all)', 'https://user:pa/ssword@h/v1', ['pa/ssword', 'ssword']],
    ['an @ and a / inside the password', 'https://user:pa/ss@word@h/v1', ['word', 'pa/ss']],
  ])('never echo any part of a password with %s', (_name, raw, secrets) => {
    let message = '';
    try {
      checkBaseUrl(raw, '--base-url');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('***@');
    for (const s of secrets) expect(message).not.toContain(s);
  });
});

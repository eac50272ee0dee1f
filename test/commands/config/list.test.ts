/**
 * `config list`: each effective setting with its source (flag, env var, file, default), and
 * a corrupt config file as every command meets it (cli-contract.md "The config file"):
 * reported with its path (exit 2), left byte for byte, and no obstacle to the commands that
 * need no stored value. In-process (`runMain`) with real temp directories.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfig, remoteEnv } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs } from '../../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

afterAll(removeTempDirs);

const mode = (path: string): number => statSync(path).mode & 0o777;

describe.concurrent('config list', () => {
  it('shows each effective setting with its source: flag, env var, file, default', async () => {
    const { env } = freshConfig();
    await runMain(['config', 'set', 'production.baseUrl', 'https://api.example.com/v1'], { env });
    await runMain(['config', 'set', 'staging.baseUrl', 'https://staging.example.com/v1'], { env });

    const defaults = await runMain(['config', 'list'], { env });
    expect(defaults.code).toBe(0);
    expect(defaults.stdout).toBe(
      [
        'environment\tproduction\tdefault',
        'production.baseUrl\thttps://api.example.com/v1\tfile',
        'staging.baseUrl\thttps://staging.example.com/v1\tfile',
        'production.apiKeyCommand\t\t',
        'staging.apiKeyCommand\t\t',
        'production.confirmWrites\tfalse\tdefault',
        'staging.confirmWrites\tfalse\tdefault',
        'production.idempotencyKeys\tfalse\tdefault',
        'staging.idempotencyKeys\tfalse\tdefault',
        'production.key\t\t',
        'staging.key\t\t',
        '',
      ].join('\n'),
    );

    const viaEnv = await runMain(['config', 'list', '--json'], {
      env: remoteEnv('http://127.0.0.1:9/v1', 'env-key-abcdef-9876', { ...env, PETSTORE_ENV: 'staging' }),
    });
    const rows = JSON.parse(viaEnv.stdout) as {
      key: string;
      value: string | null;
      source: string;
      from: string | null;
    }[];
    expect(rows).toEqual([
      { key: 'environment', value: 'staging', source: 'env', from: 'PETSTORE_ENV' },
      { key: 'production.baseUrl', value: 'https://api.example.com/v1', source: 'file', from: 'production.baseUrl' },
      { key: 'staging.baseUrl', value: 'http://127.0.0.1:9/v1', source: 'env', from: 'PETSTORE_BASE_URL' },
      { key: 'production.apiKeyCommand', value: null, source: 'none', from: null },
      { key: 'staging.apiKeyCommand', value: null, source: 'none', from: null },
      { key: 'production.confirmWrites', value: 'false', source: 'default', from: 'default' },
      { key: 'staging.confirmWrites', value: 'false', source: 'default', from: 'default' },
      { key: 'production.idempotencyKeys', value: 'false', source: 'default', from: 'default' },
      { key: 'staging.idempotencyKeys', value: 'false', source: 'default', from: 'default' },
      { key: 'production.key', value: null, source: 'none', from: null },
      { key: 'staging.key', value: '****9876', source: 'env', from: 'PETSTORE_API_KEY' },
    ]);

    const viaFlag = await runMain(
      ['--env', 'production', '--base-url', 'http://127.0.0.1:8/v1', 'config', 'list', '--output', 'ndjson'],
      {
        env: { ...env, PETSTORE_ENV: 'staging' },
      },
    );
    const lines = viaFlag.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines[0]).toEqual({ key: 'environment', value: 'production', source: 'flag', from: '--env' });
    expect(lines[1]).toEqual({
      key: 'production.baseUrl',
      value: 'http://127.0.0.1:8/v1',
      source: 'flag',
      from: '--base-url',
    });
    expect(lines[2]).toEqual({
      key: 'staging.baseUrl',
      value: 'https://staging.example.com/v1',
      source: 'file',
      from: 'staging.baseUrl',
    });
  });
});

describe.concurrent('a corrupt config file', () => {
  const cases: [string, string, RegExp][] = [
    ['truncated JSON', '{"environment": "stag', /is not valid JSON/],
    ['an empty file', '', /is not valid JSON \(the file is empty\)/],
    ['a value of the wrong shape', '{"staging": {"baseUrl": 42}}', /wrong shape at staging\.baseUrl/],
    ['an environment that is not text', '{"environment": 7}', /wrong shape at environment/],
    [
      'a key without its base URL',
      '{"auth": {"staging": {"apiKey": "abcdef123456"}}}',
      /wrong shape at auth\.staging\.baseUrl/,
    ],
    ['not an object', '[1, 2]', /wrong shape at the top level/],
  ];

  it.each(cases)(
    '%s: reported with its path (exit 2) and left byte for byte by every command',
    async (_name, text, message) => {
      const { dir, file, env } = freshConfig();
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(file, text, { mode: 0o600 });
      const before = readFileSync(file);
      const commands = [
        ['config', 'get', 'environment'],
        ['config', 'set', 'environment', 'staging'],
        ['config', 'unset', 'environment'],
        ['config', 'list'],
        ['auth', 'status'],
        ['auth', 'logout'],
        ['--env', 'staging', 'auth', 'login', '--with-token', '--no-verify'],
        ['pets', 'list'],
      ];
      for (const args of commands) {
        const r = await runMain(args, { env, input: 'abcdef1234567890\n' });
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout, args.join(' ')).toBe('');
        expect(unwrapped(r.stderr), args.join(' ')).toContain(file);
        expect(unwrapped(r.stderr), args.join(' ')).toMatch(message);
        expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
      }
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(mode(file)).toBe(0o600);
    },
    60_000,
  );

  it('an unknown environment as the default: every command that selects one is exit 2 naming the file and the closest name; config set repairs it', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"environment": "prod"}', { mode: 0o600 });
    for (const args of [
      ['config', 'list'],
      ['auth', 'status'],
      ['auth', 'logout'],
      ['pets', 'list'],
    ]) {
      const r = await runMain(args, { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(unwrapped(r.stderr), args.join(' ')).toContain(
        `${file}: unknown environment "prod" (from environment): did you mean production?`,
      );
    }
    expect(readFileSync(file, 'utf8')).toBe('{"environment": "prod"}');
    expect((await runMain(['config', 'get', 'environment'], { env })).stdout).toBe('prod\n');
    expect((await runMain(['config', 'set', 'environment', 'production'], { env })).code).toBe(0);
    expect((await runMain(['auth', 'status'], { env })).stderr).not.toContain('unknown environment');
  });

  it('the JSON error form names the config code', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{oops', { mode: 0o600 });
    const r = await runMain(['config', 'list', '--json'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'config', status: 0 });
  });

  describe('commands that need no stored value still work', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(() => server.close());

    it('--help, --version, config path, and a run whose key and base URL come from the environment', async () => {
      const { dir, file, env } = freshConfig();
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(file, '{"environment": ', { mode: 0o600 });
      const before = readFileSync(file);
      expect((await runMain(['--help'], { env })).code).toBe(0);
      expect((await runMain(['--version'], { env })).code).toBe(0);
      expect(await runMain(['config', 'path'], { env })).toMatchObject({ code: 0, stdout: `${file}\n`, stderr: '' });
      const run = await runMain(['pets', 'list'], {
        env: remoteEnv(server.baseUrl, 'env-key-for-corrupt-test', { ...env, PETSTORE_ENV: 'staging' }),
      });
      expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer env-key-for-corrupt-test');
      // Without PETSTORE_ENV too: nothing is needed from the file.
      const noEnv = await runMain(['pets', 'list', '--json'], {
        env: remoteEnv(server.baseUrl, 'env-key-for-corrupt-test', env),
      });
      expect(noEnv).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
      expect(server.requests).toHaveLength(2);
      expect((await runMain(['--env', 'sandbox', 'pets', 'list', '--limit', '1'], { env })).code).toBe(0);
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  });
});

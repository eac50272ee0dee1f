/**
 * The config file end to end (cli-contract.md "The config file"): location, modes,
 * corruption handling, the permission warning, and `config get|set|unset|list|path`
 * through the CLI in-process (runMain) with real temp directories.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

afterAll(removeTempDirs);

/** A fresh config dir that does not exist yet (petstore must create it). */
function freshConfig(): { dir: string; file: string; env: Record<string, string> } {
  const dir = join(tempDir(), 'petstore-config');
  return { dir, file: join(dir, 'config.json'), env: { PETSTORE_CONFIG_DIR: dir } };
}

const mode = (path: string): number => statSync(path).mode & 0o777;

describe.concurrent('config file location and modes', () => {
  it('creates the file 0600 in a 0700 folder, as JSON petstore can read back', async () => {
    const { dir, file, env } = freshConfig();
    const set = await runMain(['config', 'set', 'staging.baseUrl', 'https://staging.example.com/v1'], { env });
    expect(set).toMatchObject({ code: 0, stdout: '' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ staging: { baseUrl: 'https://staging.example.com/v1' } });
    const get = await runMain(['config', 'get', 'staging.baseUrl'], { env });
    expect(get).toMatchObject({ code: 0, stdout: 'https://staging.example.com/v1\n', stderr: '' });
  });

  it('uses $XDG_CONFIG_HOME/petstore/config.json without PETSTORE_CONFIG_DIR (no -nodejs suffix)', async () => {
    const xdg = tempDir();
    const home = tempDir();
    const env = { XDG_CONFIG_HOME: xdg, HOME: home };
    const path = await runMain(['config', 'path'], { env });
    expect(path).toMatchObject({ code: 0, stdout: `${join(xdg, 'petstore', 'config.json')}\n`, stderr: '' });
    const set = await runMain(['config', 'set', 'environment', 'staging'], { env });
    expect(set.code).toBe(0);
    const file = join(xdg, 'petstore', 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ environment: 'staging' });
    expect(mode(join(xdg, 'petstore'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(existsSync(join(xdg, 'petstore-nodejs'))).toBe(false);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });

  it('falls back to ~/.config/petstore/config.json without XDG_CONFIG_HOME', async () => {
    const home = tempDir();
    const r = await runMain(['config', 'path'], { env: { HOME: home } });
    expect(r).toMatchObject({ code: 0, stdout: `${join(home, '.config', 'petstore', 'config.json')}\n`, stderr: '' });
  });

  it('tightens its own default folder to 0700 when it was left 0755', async () => {
    const xdg = tempDir();
    mkdirSync(join(xdg, 'petstore'), { mode: 0o755 });
    chmodSync(join(xdg, 'petstore'), 0o755);
    const r = await runMain(['config', 'set', 'environment', 'sandbox'], { env: { XDG_CONFIG_HOME: xdg, HOME: xdg } });
    expect(r.code).toBe(0);
    expect(mode(join(xdg, 'petstore'))).toBe(0o700);
  });

  it('warns about a config file other users can read, naming the chmod that fixes it', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, JSON.stringify({ environment: 'staging' }));
    chmodSync(file, 0o644);
    const r = await runMain(['config', 'get', 'environment'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('staging\n');
    expect(unwrapped(r.stderr)).toContain(`warning: the config file ${file} can be read by other users (mode 0644)`);
    expect(unwrapped(r.stderr)).toContain(`chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const quiet = await runMain(['config', 'get', 'environment'], { env });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});

describe.concurrent('a corrupt config file', () => {
  const cases: [string, string, RegExp][] = [
    ['truncated JSON', '{"environment": "stag', /is not valid JSON/],
    ['an empty file', '', /is not valid JSON \(the file is empty\)/],
    ['a value of the wrong shape', '{"staging": {"baseUrl": 42}}', /wrong shape at staging\.baseUrl/],
    ['an unknown environment', '{"environment": "prod"}', /wrong shape at environment/],
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
        env: {
          ...env,
          PETSTORE_ENV: 'staging',
          PETSTORE_BASE_URL: server.baseUrl,
          PETSTORE_API_KEY: 'env-key-for-corrupt-test',
        },
      });
      expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer env-key-for-corrupt-test');
      // Without PETSTORE_ENV too: nothing is needed from the file.
      const noEnv = await runMain(['pets', 'list', '--json'], {
        env: { ...env, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: 'env-key-for-corrupt-test' },
      });
      expect(noEnv).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
      expect(server.requests).toHaveLength(2);
      expect((await runMain(['--env', 'sandbox', 'pets', 'list', '--limit', '1'], { env })).code).toBe(0);
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  });
});

describe.concurrent('config set/get/unset', () => {
  it('refuses an unknown key with exit 2, listing the known keys, and writes nothing', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'timeout', '5'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(
      'unknown config key "timeout": the known keys are environment, production.baseUrl, staging.baseUrl',
    );
    expect(existsSync(file)).toBe(false);
  });

  it('refuses an API key through config set, pointing at auth login (exit 2)', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'production.apiKey', 'not-a-real-key-000'], {
      env,
      secrets: ['not-a-real-key-000'],
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('API keys are not settings');
    expect(unwrapped(r.stderr)).toContain('petstore --env production auth login');
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['environment', 'prod', /invalid environment "prod": must be one of production, staging, sandbox/],
    ['staging.baseUrl', 'http://staging.example.com/v1', /plain http:\/\/ is allowed only for loopback hosts/],
    ['production.baseUrl', 'not a url', /not a URL/],
  ])('refuses %s %j with exit 2 and writes nothing', async (key, value, message) => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', key, value], { env });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(message);
    expect(existsSync(file)).toBe(false);
  });

  it('warns, but stores, a base URL without /v1', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'production.baseUrl', 'https://api.example.com/'], { env });
    expect(r.code).toBe(0);
    expect(unwrapped(r.stderr)).toContain("does not end in the API's version segment /v1");
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ production: { baseUrl: 'https://api.example.com' } });
  });

  it('get prints the default for environment, exits 1 for an unset base URL; unset is idempotent', async () => {
    const { file, env } = freshConfig();
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'production\n' });
    const json = await runMain(['config', 'get', 'environment', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({ key: 'environment', value: 'production', source: 'default' });
    const unset = await runMain(['config', 'get', 'staging.baseUrl'], { env });
    expect(unset).toMatchObject({ code: 1, stdout: '' });
    expect(unwrapped(unset.stderr)).toContain('staging.baseUrl is not set');

    await runMain(['config', 'set', 'environment', 'sandbox'], { env });
    await runMain(['config', 'set', 'staging.baseUrl', 'http://127.0.0.1:9/v1'], { env });
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'sandbox\n' });
    expect((await runMain(['config', 'unset', 'environment'], { env })).code).toBe(0);
    expect((await runMain(['config', 'unset', 'environment'], { env })).code).toBe(0);
    expect((await runMain(['config', 'unset', 'staging.baseUrl'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'production\n' });
    expect((await runMain(['config', 'get', 'production.apiKey'], { env })).code).toBe(2);
  });

  it('keeps keys it does not know', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, JSON.stringify({ future: { setting: true } }), { mode: 0o600 });
    expect((await runMain(['config', 'set', 'environment', 'staging'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ future: { setting: true }, environment: 'staging' });
  });
});

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
        'production.key\t\t',
        'staging.key\t\t',
        '',
      ].join('\n'),
    );

    const viaEnv = await runMain(['config', 'list', '--json'], {
      env: {
        ...env,
        PETSTORE_ENV: 'staging',
        PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1',
        PETSTORE_API_KEY: 'env-key-abcdef-9876',
      },
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

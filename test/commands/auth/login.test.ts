/**
 * `auth login` against recording production and staging servers on 127.0.0.1: the key read
 * from stdin, checked (or not, `--no-verify`) and stored for one base URL; what is refused
 * (exit 2, 3, 4 or 1, nothing stored); and that a stored key is never sent to a base URL other
 * than the one it was stored for. In-process (`runMain`); the hidden prompt on a real terminal
 * is tested in test/e2e/tty.test.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { closedPortBaseUrl } from '../../helpers/fault-server.js';
import { acceptOnly, configured, freshConfig, keyedServers, KEYS, readConfig } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { errorReply } from '../../helpers/test-server.js';

const servers = keyedServers();

describe("the support engineer's session", () => {
  it('config set staging.baseUrl, --env staging auth login, --env staging pets list: staging gets the staging key, production nothing', async () => {
    const { file, env } = freshConfig();
    const set = await runMain(['config', 'set', 'staging.baseUrl', servers.staging.baseUrl], { env });
    expect(set).toMatchObject({ code: 0, stdout: '' });

    const login = await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], {
      env,
      input: `${KEYS.staging}\n`,
    });
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('');
    expect(unwrapped(login.stderr)).toContain(
      `Logged in to staging (${servers.staging.baseUrl}): key ****GING checked and stored in ${file}`,
    );
    expect(servers.staging.requests).toHaveLength(1);
    expect(servers.staging.requests[0]).toMatchObject({ method: 'GET', url: '/v1/pets?limit=1' });
    expect(servers.staging.requests[0]?.headers.authorization).toBe(`Bearer ${KEYS.staging}`);
    expect(readConfig(file)).toEqual({
      staging: { baseUrl: servers.staging.baseUrl },
      auth: { staging: { apiKey: KEYS.staging, baseUrl: servers.staging.baseUrl } },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    servers.staging.handle((req) =>
      req.headers.authorization === `Bearer ${KEYS.staging}`
        ? { status: 200, raw: '[{"id": 9007199254740993, "name": "Rex", "categoryId": 1, "status": "available"}]' }
        : errorReply(401, 'unauthorized', 'invalid API key'),
    );
    const list = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(list).toMatchObject({ code: 0, stdout: '9007199254740993\tRex\t1\tavailable\n', stderr: '' });
    expect(servers.staging.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEYS.staging}`,
      `Bearer ${KEYS.staging}`,
    ]);
    expect(servers.production.requests).toHaveLength(0);

    // Moving staging elsewhere later: warned at once, and the key stays with the old URL.
    const moved = await runMain(['config', 'set', 'staging.baseUrl', servers.production.baseUrl], { env });
    expect(moved.code).toBe(0);
    expect(unwrapped(moved.stderr)).toContain(
      `the stored staging key was stored for ${servers.staging.baseUrl} and will not be sent to ${servers.production.baseUrl}`,
    );
    const afterMove = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(afterMove.code).toBe(4);
    expect(servers.production.requests).toHaveLength(0);
  });
});

describe('a key goes only to the base URL it was stored for', () => {
  it('the production key never reaches the staging server', async () => {
    const { env } = await configured(servers);
    expect((await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production })).code).toBe(0);
    expect(servers.production.requests).toHaveLength(1);
    servers.production.requests.length = 0;

    // No staging key: staging refuses to borrow production's (exit 4), nothing sent anywhere.
    const noKey = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(noKey.code).toBe(4);
    expect(unwrapped(noKey.stderr)).toContain('no API key for staging');
    // Production's base URL overridden to the staging server: the production key stays home.
    const redirected = await runMain(['--base-url', servers.staging.baseUrl, 'pets', 'list'], { env });
    expect(redirected.code).toBe(4);
    expect(unwrapped(redirected.stderr)).toContain(
      `the production key was stored for ${servers.production.baseUrl}, not ${servers.staging.baseUrl}; not sent`,
    );
    const viaVar = await runMain(['pets', 'list'], { env: { ...env, PETSTORE_BASE_URL: servers.staging.baseUrl } });
    expect(viaVar.code).toBe(4);
    expect(servers.staging.requests).toHaveLength(0);
    expect(servers.production.requests).toHaveLength(0);

    // With both keys stored, each server sees only its own key.
    expect(
      (await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: KEYS.staging })).code,
    ).toBe(0);
    expect((await runMain(['--env', 'staging', 'pets', 'list'], { env })).code).toBe(0);
    expect((await runMain(['pets', 'list'], { env })).code).toBe(0);
    expect(servers.staging.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEYS.staging}`,
      `Bearer ${KEYS.staging}`,
    ]);
    expect(servers.production.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEYS.production}`]);
  });

  it('PETSTORE_API_KEY wins over the stored key and may go wherever it is told', async () => {
    const { env } = await configured(servers);
    expect(
      (await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: KEYS.production })).code,
    ).toBe(0);
    servers.staging.handle(acceptOnly(KEYS.other));
    const r = await runMain(['--base-url', servers.staging.baseUrl, 'pets', 'list'], {
      env: { ...env, PETSTORE_API_KEY: KEYS.other },
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(servers.staging.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${KEYS.other}`]);
    expect(servers.production.requests).toHaveLength(0);
  });
});

describe('auth login', () => {
  it('with stdin closed and no --with-token: exit 2 at once, naming --with-token and PETSTORE_API_KEY', async () => {
    const { file, env } = await configured(servers);
    const r = await runMain(['auth', 'login'], { env });
    expect(r.code).toBe(2);
    // Not waiting for input: a login that waited would last until the test's limit (120 s);
    // the bound is far below that and far above what a loaded machine needs.
    expect(r.ms).toBeLessThan(30_000);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('stdin is not a terminal');
    expect(unwrapped(r.stderr)).toContain('--with-token');
    expect(unwrapped(r.stderr)).toContain('PETSTORE_API_KEY');
    expect(readConfig(file)).not.toHaveProperty('auth');
    expect(servers.production.requests).toHaveLength(0);
  });

  it('with stdin a pipe that stays open: still exit 2 at once, never waiting for input', async () => {
    const { env } = await configured(servers);
    // Never ended: a login that waited for it would hang until the test times out.
    const stdin = new PassThrough();
    const started = Date.now();
    const r = await runMain(['auth', 'login'], { env, stdin });
    stdin.destroy();
    expect(r.code).toBe(2);
    // Far below the test's limit (120 s), which a login waiting for the pipe would reach.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(unwrapped(r.stderr)).toContain('--with-token');
  });

  it('refuses a key the server answers 401 to (exit 4) and stores nothing', async () => {
    const { file, env } = await configured(servers);
    const before = readFileSync(file);
    const r = await runMain(['auth', 'login', '--with-token'], { env, input: `${KEYS.other}\n` });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('refused the key (401 unauthorized: invalid API key); nothing was stored');
    expect(servers.production.requests).toHaveLength(1);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('--no-verify stores without a request', async () => {
    const { file, env } = await configured(servers);
    const r = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: `${KEYS.other}\r\n` });
    expect(r.code).toBe(0);
    expect(servers.production.requests).toHaveLength(0);
    expect(readConfig(file).auth).toEqual({ production: { apiKey: KEYS.other, baseUrl: servers.production.baseUrl } });
  });

  it('a server that cannot be reached during verification: exit 3, nothing stored', async () => {
    const { file, env } = freshConfig();
    const url = await closedPortBaseUrl();
    await runMain(['config', 'set', 'production.baseUrl', url], { env });
    const before = readFileSync(file);
    const r = await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('could not verify the key');
    expect(unwrapped(r.stderr)).toContain('connection refused');
    expect(unwrapped(r.stderr)).toContain('nothing was stored');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a 5xx during verification: exit 1, nothing stored', async () => {
    const { file, env } = await configured(servers);
    servers.production.handle(() => errorReply(500, 'internal_error', 'boom'));
    const r = await runMain(['auth', 'login', '--with-token', '--retries', '0'], { env, input: KEYS.production });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('nothing was stored');
    expect(readConfig(file)).not.toHaveProperty('auth');
  });

  it.each([
    ['empty', ''],
    ['only a newline', '\n'],
    ['two lines', 'abc123456789\ndef123456789\n'],
  ])('refuses a key that is %s (exit 2), nothing sent or stored', async (_name, input) => {
    const { file, env } = await configured(servers);
    const r = await runMain(['auth', 'login', '--with-token'], { env, input });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(/--with-token: the key read from stdin (is empty|contains whitespace)/);
    expect(servers.production.requests).toHaveLength(0);
    expect(readConfig(file)).not.toHaveProperty('auth');
  });

  it('refuses the sandbox (exit 2): it needs no login', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['--env', 'sandbox', 'auth', 'login', '--with-token'], { env, input: KEYS.production });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('the sandbox needs no login');
    expect(existsSync(file)).toBe(false);
  });

  it('without a base URL: exit 2 naming config set, nothing stored', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: KEYS.staging });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('no base URL for staging');
    expect(unwrapped(r.stderr)).toContain('petstore config set staging.baseUrl');
    expect(existsSync(file)).toBe(false);
  });

  it('stores the key for the base URL given by --base-url (and only that one)', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(
      ['--env', 'staging', '--base-url', servers.staging.baseUrl, 'auth', 'login', '--with-token'],
      {
        env,
        input: KEYS.staging,
      },
    );
    expect(r.code).toBe(0);
    expect(readConfig(file)).toEqual({ auth: { staging: { apiKey: KEYS.staging, baseUrl: servers.staging.baseUrl } } });
    // Without the flag there is no staging base URL configured: exit 2, nothing sent.
    expect((await runMain(['--env', 'staging', 'pets', 'list'], { env })).code).toBe(2);
    expect(
      (await runMain(['--env', 'staging', '--base-url', servers.staging.baseUrl, 'pets', 'list'], { env })).code,
    ).toBe(0);
  });
});

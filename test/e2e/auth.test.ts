/**
 * `auth login|status|logout` end to end against recording test servers on 127.0.0.1:
 * what is stored, what is refused, what each server received, and that a key is never
 * sent to a base URL other than the one it was stored for. The CLI runs in-process
 * (`runMain`); the hidden prompt on a real terminal is tested in tty.test.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closedPortBaseUrl } from '../helpers/fault-server.js';
import { registerSecret, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, startTestServer, type Handler, type TestServer } from '../helpers/test-server.js';

const PROD_KEY = 'prod-key-0123456789-PRODUCTION';
const STAGING_KEY = 'staging-key-0123456789-STAGING';
const OTHER_KEY = 'env-key-0123456789-FROM-ENVIRONMENT';
for (const k of [PROD_KEY, STAGING_KEY, OTHER_KEY]) registerSecret(k);

/** Answers 200 `[]` to the right bearer key, 401 to anything else. */
const acceptOnly =
  (key: string): Handler =>
  (req) =>
    req.headers.authorization === `Bearer ${key}`
      ? { status: 200, body: [] }
      : errorReply(401, 'unauthorized', 'invalid API key');

let production: TestServer;
let staging: TestServer;
beforeAll(async () => {
  [production, staging] = await Promise.all([
    startTestServer(acceptOnly(PROD_KEY)),
    startTestServer(acceptOnly(STAGING_KEY)),
  ]);
});
afterAll(async () => {
  await Promise.all([production.close(), staging.close()]);
  removeTempDirs();
});
beforeEach(() => {
  production.requests.length = 0;
  staging.requests.length = 0;
  production.handle(acceptOnly(PROD_KEY));
  staging.handle(acceptOnly(STAGING_KEY));
});

function freshConfig(): { file: string; env: Record<string, string> } {
  const dir = join(tempDir(), 'cfg');
  return { file: join(dir, 'config.json'), env: { PETSTORE_CONFIG_DIR: dir } };
}

const readConfig = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/** Both base URLs configured, nothing logged in. */
async function configured(): Promise<{ file: string; env: Record<string, string> }> {
  const c = freshConfig();
  expect((await runMain(['config', 'set', 'production.baseUrl', production.baseUrl], { env: c.env })).code).toBe(0);
  expect((await runMain(['config', 'set', 'staging.baseUrl', staging.baseUrl], { env: c.env })).code).toBe(0);
  return c;
}

describe("the support engineer's session", () => {
  it('config set staging.baseUrl, --env staging auth login, --env staging pets list: staging gets the staging key, production nothing', async () => {
    const { file, env } = freshConfig();
    const set = await runMain(['config', 'set', 'staging.baseUrl', staging.baseUrl], { env });
    expect(set).toMatchObject({ code: 0, stdout: '' });

    const login = await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], {
      env,
      input: `${STAGING_KEY}\n`,
    });
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('');
    expect(unwrapped(login.stderr)).toContain(
      `Logged in to staging (${staging.baseUrl}): key ****GING checked and stored in ${file}`,
    );
    expect(staging.requests).toHaveLength(1);
    expect(staging.requests[0]).toMatchObject({ method: 'GET', url: '/v1/pets?limit=1' });
    expect(staging.requests[0]?.headers.authorization).toBe(`Bearer ${STAGING_KEY}`);
    expect(readConfig(file)).toEqual({
      staging: { baseUrl: staging.baseUrl },
      auth: { staging: { apiKey: STAGING_KEY, baseUrl: staging.baseUrl } },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    staging.handle((req) =>
      req.headers.authorization === `Bearer ${STAGING_KEY}`
        ? { status: 200, raw: '[{"id": 9007199254740993, "name": "Rex", "categoryId": 1, "status": "available"}]' }
        : errorReply(401, 'unauthorized', 'invalid API key'),
    );
    const list = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(list).toMatchObject({ code: 0, stdout: '9007199254740993\tRex\t1\tavailable\n', stderr: '' });
    expect(staging.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${STAGING_KEY}`,
      `Bearer ${STAGING_KEY}`,
    ]);
    expect(production.requests).toHaveLength(0);

    // Moving staging elsewhere later: warned at once, and the key stays with the old URL.
    const moved = await runMain(['config', 'set', 'staging.baseUrl', production.baseUrl], { env });
    expect(moved.code).toBe(0);
    expect(unwrapped(moved.stderr)).toContain(
      `the stored staging key was stored for ${staging.baseUrl} and will not be sent to ${production.baseUrl}`,
    );
    const afterMove = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(afterMove.code).toBe(4);
    expect(production.requests).toHaveLength(0);
  });
});

describe('a key goes only to the base URL it was stored for', () => {
  it('the production key never reaches the staging server', async () => {
    const { env } = await configured();
    expect((await runMain(['auth', 'login', '--with-token'], { env, input: PROD_KEY })).code).toBe(0);
    expect(production.requests).toHaveLength(1);
    production.requests.length = 0;

    // No staging key: staging refuses to borrow production's (exit 4), nothing sent anywhere.
    const noKey = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(noKey.code).toBe(4);
    expect(unwrapped(noKey.stderr)).toContain('no API key for staging');
    // Production's base URL overridden to the staging server: the production key stays home.
    const redirected = await runMain(['--base-url', staging.baseUrl, 'pets', 'list'], { env });
    expect(redirected.code).toBe(4);
    expect(unwrapped(redirected.stderr)).toContain(
      `the production key was stored for ${production.baseUrl}, not ${staging.baseUrl}; not sent`,
    );
    const viaVar = await runMain(['pets', 'list'], { env: { ...env, PETSTORE_BASE_URL: staging.baseUrl } });
    expect(viaVar.code).toBe(4);
    expect(staging.requests).toHaveLength(0);
    expect(production.requests).toHaveLength(0);

    // With both keys stored, each server sees only its own key.
    expect(
      (await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: STAGING_KEY })).code,
    ).toBe(0);
    expect((await runMain(['--env', 'staging', 'pets', 'list'], { env })).code).toBe(0);
    expect((await runMain(['pets', 'list'], { env })).code).toBe(0);
    expect(staging.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${STAGING_KEY}`,
      `Bearer ${STAGING_KEY}`,
    ]);
    expect(production.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${PROD_KEY}`]);
  });

  it('PETSTORE_API_KEY wins over the stored key and may go wherever it is told', async () => {
    const { env } = await configured();
    expect((await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: PROD_KEY })).code).toBe(0);
    staging.handle(acceptOnly(OTHER_KEY));
    const r = await runMain(['--base-url', staging.baseUrl, 'pets', 'list'], {
      env: { ...env, PETSTORE_API_KEY: OTHER_KEY },
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(staging.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${OTHER_KEY}`]);
    expect(production.requests).toHaveLength(0);
  });
});

describe('auth login', () => {
  it('with stdin closed and no --with-token: exit 2 at once, naming --with-token and PETSTORE_API_KEY', async () => {
    const { file, env } = await configured();
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
    expect(production.requests).toHaveLength(0);
  });

  it('with stdin a pipe that stays open: still exit 2 at once, never waiting for input', async () => {
    const { env } = await configured();
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
    const { file, env } = await configured();
    const before = readFileSync(file);
    const r = await runMain(['auth', 'login', '--with-token'], { env, input: `${OTHER_KEY}\n` });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('refused the key (401 unauthorized: invalid API key); nothing was stored');
    expect(production.requests).toHaveLength(1);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('--no-verify stores without a request', async () => {
    const { file, env } = await configured();
    const r = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: `${OTHER_KEY}\r\n` });
    expect(r.code).toBe(0);
    expect(production.requests).toHaveLength(0);
    expect(readConfig(file).auth).toEqual({ production: { apiKey: OTHER_KEY, baseUrl: production.baseUrl } });
  });

  it('a server that cannot be reached during verification: exit 3, nothing stored', async () => {
    const { file, env } = freshConfig();
    const url = await closedPortBaseUrl();
    await runMain(['config', 'set', 'production.baseUrl', url], { env });
    const before = readFileSync(file);
    const r = await runMain(['auth', 'login', '--with-token'], { env, input: PROD_KEY });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('could not verify the key');
    expect(unwrapped(r.stderr)).toContain('connection refused');
    expect(unwrapped(r.stderr)).toContain('nothing was stored');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a 5xx during verification: exit 1, nothing stored', async () => {
    const { file, env } = await configured();
    production.handle(() => errorReply(500, 'internal_error', 'boom'));
    const r = await runMain(['auth', 'login', '--with-token', '--retries', '0'], { env, input: PROD_KEY });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('nothing was stored');
    expect(readConfig(file)).not.toHaveProperty('auth');
  });

  it.each([
    ['empty', ''],
    ['only a newline', '\n'],
    ['two lines', 'abc123456789\ndef123456789\n'],
  ])('refuses a key that is %s (exit 2), nothing sent or stored', async (_name, input) => {
    const { file, env } = await configured();
    const r = await runMain(['auth', 'login', '--with-token'], { env, input });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(/--with-token: the key read from stdin (is empty|contains whitespace)/);
    expect(production.requests).toHaveLength(0);
    expect(readConfig(file)).not.toHaveProperty('auth');
  });

  it('refuses the sandbox (exit 2): it needs no login', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['--env', 'sandbox', 'auth', 'login', '--with-token'], { env, input: PROD_KEY });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('the sandbox needs no login');
    expect(existsSync(file)).toBe(false);
  });

  it('without a base URL: exit 2 naming config set, nothing stored', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: STAGING_KEY });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('no base URL for staging');
    expect(unwrapped(r.stderr)).toContain('petstore config set staging.baseUrl');
    expect(existsSync(file)).toBe(false);
  });

  it('stores the key for the base URL given by --base-url (and only that one)', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['--env', 'staging', '--base-url', staging.baseUrl, 'auth', 'login', '--with-token'], {
      env,
      input: STAGING_KEY,
    });
    expect(r.code).toBe(0);
    expect(readConfig(file)).toEqual({ auth: { staging: { apiKey: STAGING_KEY, baseUrl: staging.baseUrl } } });
    // Without the flag there is no staging base URL configured: exit 2, nothing sent.
    expect((await runMain(['--env', 'staging', 'pets', 'list'], { env })).code).toBe(2);
    expect((await runMain(['--env', 'staging', '--base-url', staging.baseUrl, 'pets', 'list'], { env })).code).toBe(0);
  });
});

describe('auth status', () => {
  it('lists each environment with base URL, key source and masked key; the selected one marked', async () => {
    const { env } = await configured();
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: STAGING_KEY });
    const r = await runMain(['auth', 'status'], { env: { ...env, PETSTORE_ENV: 'staging' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'production',
        `  base URL  ${production.baseUrl} (config file: production.baseUrl)`,
        // PETSTORE_ENV selects staging, so the production login must say --env production.
        '  key       none (log in with `petstore --env production auth login`)',
        'staging (selected, env PETSTORE_ENV)',
        `  base URL  ${staging.baseUrl} (config file: staging.baseUrl)`,
        '  key       ****GING (config file)',
        'sandbox',
        '  base URL  automatic (embedded server on 127.0.0.1)',
        '  key       automatic (no login needed)',
        '',
      ].join('\n'),
    );
    expect(production.requests).toHaveLength(0);
    expect(staging.requests).toHaveLength(1); // the login check only
  });

  it('--check: ok / rejected / missing; exit 4 when the selected key is rejected or missing', async () => {
    const { env } = await configured();
    await runMain(['auth', 'login', '--with-token'], { env, input: PROD_KEY });
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: STAGING_KEY });
    production.requests.length = 0;
    staging.requests.length = 0;

    const ok = await runMain(['auth', 'status', '--check', '--json'], { env });
    expect(ok.code).toBe(0);
    const doc = JSON.parse(ok.stdout) as {
      selected: string;
      environments: { name: string; check?: string; key: { masked: string | null } }[];
    };
    expect(doc.selected).toBe('production');
    expect(doc.environments.map((e) => [e.name, e.check, e.key.masked])).toEqual([
      ['production', 'ok', '****TION'],
      ['staging', 'ok', '****GING'],
      ['sandbox', undefined, null],
    ]);
    expect(production.requests.map((q) => q.url)).toEqual(['/v1/pets?limit=1']);
    expect(staging.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${STAGING_KEY}`]);

    // The staging server now rejects its key: exit 4 only when staging is the selected one.
    staging.handle(acceptOnly('rotated-key-0000000000'));
    const prodSelected = await runMain(['auth', 'status', '--check'], { env });
    expect(prodSelected.code).toBe(0);
    expect(prodSelected.stdout).toContain('  check     rejected (401: invalid API key)');
    const stagingSelected = await runMain(['--env', 'staging', 'auth', 'status', '--check'], { env });
    expect(stagingSelected.code).toBe(4);

    // Logged out of staging: a missing key for the selected environment is exit 4 too.
    const logout = await runMain(['--env', 'staging', 'auth', 'logout'], { env });
    expect(logout.code).toBe(0);
    const missing = await runMain(['--env', 'staging', 'auth', 'status', '--check'], { env });
    expect(missing.code).toBe(4);
    expect(missing.stdout).toContain('not checked: no usable key');
  });

  it('shows PETSTORE_API_KEY as the source, masked, and a stored key bound elsewhere as not sent', async () => {
    const { env } = await configured();
    await runMain(['auth', 'login', '--with-token'], { env, input: PROD_KEY });
    const r = await runMain(['--base-url', staging.baseUrl, 'auth', 'status'], { env });
    expect(r.stdout).toContain(
      `  key       ****TION (config file), stored for ${production.baseUrl}: not sent to ${staging.baseUrl}`,
    );
    const viaEnv = await runMain(['auth', 'status', '--json'], { env: { ...env, PETSTORE_API_KEY: OTHER_KEY } });
    const doc = JSON.parse(viaEnv.stdout) as { environments: { name: string; key: Record<string, unknown> }[] };
    expect(doc.environments[0]?.key).toEqual({
      source: 'env',
      masked: '****MENT',
      storedFor: production.baseUrl,
      usable: true,
      command: null,
      error: null,
    });
    expect(viaEnv.stdout).not.toContain(PROD_KEY);
  });
});

describe('auth logout', () => {
  it('removes only the selected key, and is idempotent', async () => {
    const { file, env } = await configured();
    await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: PROD_KEY });
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token', '--no-verify'], { env, input: STAGING_KEY });
    const first = await runMain(['--env', 'staging', 'auth', 'logout'], { env });
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(unwrapped(first.stderr)).toContain(`Logged out of staging: removed key ****GING from ${file}`);
    expect(readConfig(file).auth).toEqual({ production: { apiKey: PROD_KEY, baseUrl: production.baseUrl } });
    const again = await runMain(['--env', 'staging', 'auth', 'logout'], { env });
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(unwrapped(again.stderr)).toContain('No staging key stored');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('with no config file at all: succeeds and creates nothing', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['auth', 'logout'], { env });
    expect(r.code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

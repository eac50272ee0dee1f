/**
 * `auth status [--check] [--json]` against recording production and staging servers: each
 * environment with its base URL, the key's source and its masked form; `--check` asks each
 * server, and exits 4 when the selected environment's key is rejected or missing; without
 * `--check`, exit 4 when the selected environment has no key to send (the sandbox: 0).
 * In-process (`runMain`).
 */
import { describe, expect, it } from 'vitest';
import { acceptOnly, configured, keyedServers, KEYS } from '../../helpers/harness.js';
import { runMain } from '../../helpers/run-main.js';

const servers = keyedServers();

describe('auth status', () => {
  it('exits 4 when the selected environment has no key to send; 0 with one, and for the sandbox', async () => {
    const { env } = await configured(servers);
    // A fresh config: production, the default, has a base URL but no key.
    const none = await runMain(['auth', 'status'], { env });
    expect(none.code).toBe(4);
    expect(none.stdout).toContain('  key       none (log in with `petstore auth login`)');
    expect(none.stderr).toBe('');
    const noneJson = await runMain(['auth', 'status', '--json'], { env });
    expect(noneJson.code).toBe(4);
    expect((JSON.parse(noneJson.stdout) as { selected: string }).selected).toBe('production');
    // The sandbox needs no key: 0, whatever the other environments hold.
    expect((await runMain(['--env', 'sandbox', 'auth', 'status'], { env })).code).toBe(0);
    expect((await runMain(['auth', 'status'], { env: { ...env, PETSTORE_ENV: 'sandbox' } })).code).toBe(0);
    // A key from PETSTORE_API_KEY counts; so does a stored one.
    expect((await runMain(['auth', 'status'], { env: { ...env, PETSTORE_API_KEY: KEYS.other } })).code).toBe(0);
    await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production });
    expect((await runMain(['auth', 'status'], { env })).code).toBe(0);
    // Only the selected environment decides: staging has none.
    expect((await runMain(['--env', 'staging', 'auth', 'status'], { env })).code).toBe(4);
    // A key stored for another base URL is not sent there: no key, exit 4.
    const elsewhere = await runMain(['--base-url', servers.staging.baseUrl, 'auth', 'status'], { env });
    expect(elsewhere.code).toBe(4);
    expect(elsewhere.stdout).toContain(
      `stored for ${servers.production.baseUrl}: not sent to ${servers.staging.baseUrl}`,
    );
  });

  it('a key stored for the /v1 URL, the base URL without it: says the /v1 is missing, not to log in', async () => {
    const { env } = await configured(servers);
    await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production });
    const v1 = servers.production.baseUrl;
    const bare = v1.replace(/\/v1$/, '');
    const r = await runMain(['--base-url', bare, 'auth', 'status'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(
      `  key       ****TION (config file), stored for ${v1}: not sent to ${bare}, which lacks the version segment /v1`,
    );
    expect(r.stdout).not.toContain('log in again');
  });

  it('lists each environment with base URL, key source and masked key; the selected one marked', async () => {
    const { env } = await configured(servers);
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: KEYS.staging });
    const r = await runMain(['auth', 'status'], { env: { ...env, PETSTORE_ENV: 'staging' } });
    // Staging, the selected one, has a key: 0, though production has none.
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'production',
        `  base URL  ${servers.production.baseUrl} (config file: production.baseUrl)`,
        // PETSTORE_ENV selects staging, so the production login must say --env production.
        '  key       none (log in with `petstore --env production auth login`)',
        'staging (selected, env PETSTORE_ENV)',
        `  base URL  ${servers.staging.baseUrl} (config file: staging.baseUrl)`,
        '  key       ****GING (config file)',
        'sandbox',
        '  base URL  automatic (embedded server on 127.0.0.1)',
        '  key       automatic (no login needed)',
        '',
      ].join('\n'),
    );
    expect(servers.production.requests).toHaveLength(0);
    expect(servers.staging.requests).toHaveLength(1); // the login check only
  });

  it('--check: ok / rejected / missing; exit 4 when the selected key is rejected or missing', async () => {
    const { env } = await configured(servers);
    await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production });
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: KEYS.staging });
    servers.production.requests.length = 0;
    servers.staging.requests.length = 0;

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
    expect(servers.production.requests.map((q) => q.url)).toEqual(['/v1/pets?limit=1']);
    expect(servers.staging.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${KEYS.staging}`]);

    // The staging server now rejects its key: exit 4 only when staging is the selected one.
    servers.staging.handle(acceptOnly('rotated-key-0000000000'));
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
    const { env } = await configured(servers);
    await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production });
    const r = await runMain(['--base-url', servers.staging.baseUrl, 'auth', 'status'], { env });
    expect(r.stdout).toContain(
      `  key       ****TION (config file), stored for ${servers.production.baseUrl}: not sent to ${servers.staging.baseUrl}`,
    );
    const viaEnv = await runMain(['auth', 'status', '--json'], { env: { ...env, PETSTORE_API_KEY: KEYS.other } });
    const doc = JSON.parse(viaEnv.stdout) as { environments: { name: string; key: Record<string, unknown> }[] };
    expect(doc.environments[0]?.key).toEqual({
      source: 'env',
      masked: '****MENT',
      storedFor: servers.production.baseUrl,
      usable: true,
      command: null,
      error: null,
    });
    expect(viaEnv.stdout).not.toContain(KEYS.production);
  });
});

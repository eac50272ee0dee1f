/**
 * `auth logout`: removes the selected environment's stored key and nothing else, idempotent,
 * and creates no config file where there is none. In-process (`runMain`).
 */
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configured, freshConfig, keyedServers, KEYS, readConfig } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';

const servers = keyedServers();

describe('auth logout', () => {
  it('removes only the selected key, and is idempotent', async () => {
    const { file, env } = await configured(servers);
    await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: KEYS.production });
    await runMain(['--env', 'staging', 'auth', 'login', '--with-token', '--no-verify'], { env, input: KEYS.staging });
    const first = await runMain(['--env', 'staging', 'auth', 'logout'], { env });
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(unwrapped(first.stderr)).toContain(`Logged out of staging: removed key ****GING from ${file}`);
    expect(readConfig(file).auth).toEqual({
      production: { apiKey: KEYS.production, baseUrl: servers.production.baseUrl },
    });
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

/**
 * Concurrent writers of the config file (cli-contract.md "The config file": each
 * read-modify-write under a lock, so no change is lost without an error). Processes racing
 * on one file are the point, so the writers are spawned; the lock's refusal and stale-lock
 * take-over run in-process against a lock this test holds itself.
 */
import { mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { afterAll, describe, expect, it } from 'vitest';
import { registerSecret, runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const PROD_KEY = 'pk_prod_lock_0123456789abcdef';
const STAGING_KEY = 'pk_staging_lock_0123456789abcdef';
registerSecret(PROD_KEY);
registerSecret(STAGING_KEY);
const PROD_URL = 'https://api.petstore.example/v1';
const STAGING_URL = 'https://staging.petstore.example/v1';

afterAll(() => {
  removeTempDirs();
});

interface ConfigShape {
  production?: { baseUrl?: string };
  staging?: { baseUrl?: string };
  auth?: { production?: { apiKey: string }; staging?: { apiKey: string } };
}
const readConfig = (dir: string): ConfigShape =>
  JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ConfigShape;

/** Rounds run at once (each in a folder of its own; its two writers race on one file). */
const ROUNDS_AT_ONCE = 4;

describe.concurrent('concurrent config writers, and the lock', () => {
  it('20 rounds of two parallel writers (a login and a base URL): no change is ever lost', async () => {
    const lost: string[] = [];
    const round = async (round: number): Promise<void> => {
      const dir = tempDir();
      const env = { PETSTORE_CONFIG_DIR: dir };
      // Even rounds: production's key beside staging's URL; odd rounds: the other way round.
      const [login, url] =
        round % 2 === 0 ? (['production', 'staging'] as const) : (['staging', 'production'] as const);
      const key = login === 'production' ? PROD_KEY : STAGING_KEY;
      const results = await Promise.all([
        runCli(
          ['--env', login, '--base-url', 'http://127.0.0.1:9/v1', 'auth', 'login', '--with-token', '--no-verify'],
          {
            env,
            input: key,
          },
        ),
        runCli(['config', 'set', `${url}.baseUrl`, url === 'production' ? PROD_URL : STAGING_URL], { env }),
      ]);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const config = readConfig(dir);
      if (config.auth?.[login]?.apiKey !== key) lost.push(`round ${round}: ${login} key`);
      if (config[url]?.baseUrl !== (url === 'production' ? PROD_URL : STAGING_URL))
        lost.push(`round ${round}: ${url}.baseUrl`);
      expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    };
    for (let first = 0; first < 20; first += ROUNDS_AT_ONCE) {
      await Promise.all(Array.from({ length: ROUNDS_AT_ONCE }, (_, i) => round(first + i)));
    }
    expect(lost).toEqual([]);
  }, 120_000);

  it('held by a live writer for longer than the wait: exit 2, config, nothing changed', async () => {
    const dir = tempDir();
    const env = { PETSTORE_CONFIG_DIR: dir };
    expect((await runMain(['config', 'set', 'production.baseUrl', PROD_URL], { env })).code).toBe(0);
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    // Held and refreshed (every second) by this process: a live holder, not a stale one.
    const release = await lockfile.lock(join(dir, 'config.json'), { realpath: false, stale: 2000 });
    try {
      const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--json'], { env });
      expect(r.code).toBe(2);
      const err = JSON.parse(r.stderr.trim().split('\n').pop()!) as { code: string; message: string };
      expect(err.code).toBe('config');
      expect(err.message).toMatch(/another petstore command has been writing the config file .* nothing was changed/);
    } finally {
      await release();
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  }, 20_000);

  it('left behind by a killed writer: taken over, and the write succeeds', async () => {
    const dir = tempDir();
    const env = { PETSTORE_CONFIG_DIR: dir };
    // What a process killed while holding the lock leaves: the lock directory, no longer refreshed.
    mkdirSync(join(dir, 'config.json.lock'));
    const old = new Date(Date.now() - 10_000);
    utimesSync(join(dir, 'config.json.lock'), old, old);
    const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(dir).staging?.baseUrl).toBe(STAGING_URL);
  });
});

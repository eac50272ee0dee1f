/**
 * Concurrent writers of the config file (cli-contract.md "The config file": each
 * read-modify-write under a lock, so no change is lost without an error). Processes racing
 * on one file are the point, so the writers are spawned (100 at once, as a loaded machine
 * runs them: a writer waits for the lock while its holder lives, bounded by --timeout); the
 * refusal at --timeout and the take-over of a dead holder's lock run in-process against a
 * lock another process holds with petstore's own lock code (lock-holder.ts).
 */
import { mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdLock, ownerFile } from '../helpers/lock-holder.js';
import { lastJson } from '../helpers/harness.js';
import { registerSecret, runCli, unwrapped } from '../helpers/run-cli.js';
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

/**
 * How long a spawned writer may wait for the lock (`--timeout`, in s): the 100 writers
 * below took 112 s in all on a loaded machine, most of it starting 100 processes.
 */
const WRITER_WAIT_S = '240';

/**
 * Limits of the spawned writers, which run beside many others (this describe is concurrent,
 * and one test runs 100 at once): only a hang should reach them on a loaded machine.
 */
const WRITER_TIMEOUT_MS = 270_000;

/** The limit of a test that runs many writers. */
const MANY_WRITERS_MS = 400_000;

/** Sets the lock directory's mtime an hour ahead, so that the 5 s staleness cannot open it. */
function unstaleable(lockPath: string): void {
  const ahead = new Date(Date.now() + 3_600_000);
  utimesSync(lockPath, ahead, ahead);
}

/** Waits until a writer waits for the lock: waiters mark the holder's owner file, `owner-<token>` (mtime 0, src/fs/file-lock.ts). */
async function writerWaits(lockPath: string): Promise<void> {
  const limit = Date.now() + WRITER_TIMEOUT_MS;
  for (;;) {
    try {
      const owner = ownerFile(lockPath);
      if (owner !== undefined && statSync(owner).mtimeMs === 0) return;
    } catch {
      // Not there (yet): the holder still holds it, so this is only a race with a stat.
    }
    if (Date.now() > limit) throw new Error(`no writer waited for ${lockPath}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A fresh config folder and the environment of runs that use it. */
function freshConfig(): { dir: string; env: { PETSTORE_CONFIG_DIR: string } } {
  const dir = tempDir();
  return { dir, env: { PETSTORE_CONFIG_DIR: dir } };
}

/** Rounds run at once (each in a folder of its own; its two writers race on one file). */
const ROUNDS_AT_ONCE = 4;

describe.concurrent('concurrent config writers, and the lock', () => {
  it(
    '20 rounds of two parallel writers (a login and a base URL): no change is ever lost',
    async () => {
      const lost: string[] = [];
      const round = async (round: number): Promise<void> => {
        const { dir, env } = freshConfig();
        // Even rounds: production's key beside staging's URL; odd rounds: the other way round.
        const [login, url] =
          round % 2 === 0 ? (['production', 'staging'] as const) : (['staging', 'production'] as const);
        const key = login === 'production' ? PROD_KEY : STAGING_KEY;
        // The 100 writers below run at the same time: on a loaded machine a process may need
        // more than runCli's default 60 s, and more than the default 30 s deadline, as theirs do.
        const timeoutMs = WRITER_TIMEOUT_MS;
        const wait = ['--timeout', WRITER_WAIT_S];
        const results = await Promise.all([
          runCli(
            [
              '--env',
              login,
              '--base-url',
              'http://127.0.0.1:9/v1',
              'auth',
              'login',
              '--with-token',
              '--no-verify',
              ...wait,
            ],
            { env, input: key, timeoutMs },
          ),
          runCli(['config', 'set', `${url}.baseUrl`, url === 'production' ? PROD_URL : STAGING_URL, ...wait], {
            env,
            timeoutMs,
          }),
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
    },
    MANY_WRITERS_MS,
  );

  it(
    '100 writers at once under load: none refused, no change lost',
    async () => {
      // Four writers set a key of their own; 96 others rewrite the file meanwhile (each
      // `config set` writes the whole file): a writer that read before another wrote and
      // wrote after it would lose that change.
      const { dir, env } = freshConfig();
      const own: [string, string][] = [
        ['production.baseUrl', PROD_URL],
        ['staging.baseUrl', STAGING_URL],
        ['production.apiKeyCommand', 'echo production-key'],
        ['staging.apiKeyCommand', 'echo staging-key'],
      ];
      const writers = Array.from({ length: 100 }, (_, i) => {
        const [key, value] = own[i % 25] ?? ['environment', i % 2 === 0 ? 'staging' : 'production'];
        // --timeout bounds the wait for the lock: generous, as a loaded machine needs.
        return runCli(['config', 'set', key, value, '--timeout', WRITER_WAIT_S], { env, timeoutMs: WRITER_TIMEOUT_MS });
      });
      const results = await Promise.all(writers);
      const refused = results.filter((r) => r.code !== 0).map((r) => r.stderr);
      expect(refused).toEqual([]);
      const config = readConfig(dir) as Record<string, Record<string, string> | undefined>;
      for (const [key, value] of own) {
        const [env_, field] = key.split('.') as [string, string];
        expect(config[env_]?.[field], key).toBe(value);
      }
    },
    MANY_WRITERS_MS,
  );

  it(
    'held by another petstore for longer than the old 5 s: waited for, then written',
    async () => {
      const { dir, env } = freshConfig();
      const holder = await holdLock(join(dir, 'config.json'));
      const writing = runCli(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', WRITER_WAIT_S], {
        env,
        timeoutMs: WRITER_TIMEOUT_MS,
      });
      // Let go more than the old fixed wait after the writer started waiting (its mark on the
      // owner file), not after the writer was spawned: a loaded machine may start it seconds late.
      await writerWaits(join(dir, 'config.json.lock'));
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      holder.child.stdin.end();
      const r = await writing;
      await holder.exited;
      expect(r.code, r.stderr).toBe(0);
      expect(readConfig(dir).staging?.baseUrl).toBe(STAGING_URL);
    },
    MANY_WRITERS_MS,
  );

  it('held by a live holder past --timeout: exit 2, naming it, nothing changed, no advice to remove the lock', async () => {
    const { dir, env } = freshConfig();
    expect((await runMain(['config', 'set', 'production.baseUrl', PROD_URL], { env })).code).toBe(0);
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const holder = await holdLock(join(dir, 'config.json'));
    try {
      const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', '1'], { env });
      expect(r.code).toBe(2);
      const text = unwrapped(r.stderr);
      expect(text).toContain(`process ${holder.pid}`);
      expect(text).toContain('nothing was changed');
      expect(text).not.toContain('remove');
      const j = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', '0.5', '--json'], { env });
      expect(lastJson(j.stderr)).toMatchObject({ code: 'config' });
    } finally {
      holder.child.stdin.end();
      await holder.exited;
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('held by a process killed with -9: taken over at once, and the write succeeds', async () => {
    const { dir, env } = freshConfig();
    const holder = await holdLock(join(dir, 'config.json'));
    holder.child.kill('SIGKILL');
    await holder.exited;
    // "At once" without a clock: with the lock's mtime an hour ahead, staleness never opens
    // it, so the writer gets in only by seeing that its holder is gone; the deadline is then
    // only a bound for a loaded machine (this describe runs 100 writers meanwhile).
    unstaleable(join(dir, 'config.json.lock'));
    const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', '60'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(dir).staging?.baseUrl).toBe(STAGING_URL);
  });

  it('an empty lock, left by a writer killed while letting go: taken at once, however fresh its mtime', async () => {
    const { dir, env } = freshConfig();
    // Killed between removing its owner file and the directory. An mtime an hour ahead
    // keeps the 5 s staleness out of it: a lock code that waits for that never gets in.
    mkdirSync(join(dir, 'config.json.lock'));
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, 'config.json.lock'), ahead, ahead);
    const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', '60'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(dir).staging?.baseUrl).toBe(STAGING_URL);
  });

  it.runIf(process.platform === 'linux')(
    'held by a stopped writer (Ctrl-Z) that has not refreshed its lock for 10 s: not taken, exit 2 naming it',
    async () => {
      const { dir, env } = freshConfig();
      expect((await runMain(['config', 'set', 'production.baseUrl', PROD_URL], { env })).code).toBe(0);
      const before = readFileSync(join(dir, 'config.json'), 'utf8');
      const holder = await holdLock(join(dir, 'config.json'));
      holder.child.kill('SIGSTOP');
      try {
        const old = new Date(Date.now() - 10_000);
        utimesSync(join(dir, 'config.json.lock'), old, old);
        const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL, '--timeout', '1'], { env });
        expect(r.code).toBe(2);
        const text = unwrapped(r.stderr);
        expect(text).toContain(`process ${holder.pid}`);
        expect(text).not.toContain('remove');
      } finally {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    },
  );

  it('left behind by a killed writer: taken over, and the write succeeds', async () => {
    const { dir, env } = freshConfig();
    // What a process killed while holding the lock leaves: the lock directory, no longer refreshed.
    mkdirSync(join(dir, 'config.json.lock'));
    const old = new Date(Date.now() - 10_000);
    utimesSync(join(dir, 'config.json.lock'), old, old);
    const r = await runMain(['config', 'set', 'staging.baseUrl', STAGING_URL], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(dir).staging?.baseUrl).toBe(STAGING_URL);
  });
});

/**
 * A bulk create's records of its runs (src/commands/pets/create/run-record.ts), against
 * real processes: re-runs after a run killed with -9 take its lock over one at a time: 16
 * at once, each stalled between judging the dead run's lock and taking it over (the
 * takeover hook, test/helpers/takeover-delay.cjs), create each record exactly once.
 *
 * Nothing here waits for a fixed time: each step waits for the event it needs (a lock
 * marked by a waiter, a process's exit), with generous limits for a hang only.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { holdLock, type LockHolder } from '../helpers/lock-holder.js';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { spawnCli, type Steered } from '../helpers/spawn-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/** Stalls each takeover of a lock between judging it stale and taking it over. */
const TAKEOVER_DELAY = fileURLToPath(new URL('../helpers/takeover-delay.cjs', import.meta.url));
/** A limit for a hang only: 16 runs at once on two busy cores take tens of seconds. */
const HANG_MS = 240_000;

/** NDJSON text of `n` records named `<prefix>-1`..`<prefix>-n`. */
function records(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `{"name":"${prefix}-${i + 1}","categoryId":${i + 1}}\n`).join('');
}

/** The record files (`<key>.json`) of a state folder. */
function recordFiles(state: string): string[] {
  return readdirSync(state).filter((n) => /^[0-9a-f]{40}\.json$/.test(n));
}

/** Waits until a process waits for the lock `holder` holds on `file`: waiters mark its owner file (mtime 0). */
async function someoneWaits(file: string, holder: LockHolder): Promise<void> {
  const lockPath = `${file}.lock`;
  const limit = Date.now() + HANG_MS;
  for (;;) {
    const owner = readdirSync(lockPath).find((n) => n.startsWith('owner-'));
    if (owner !== undefined && statSync(join(lockPath, owner)).mtimeMs === 0) return;
    if (Date.now() > limit) throw new Error(`nobody waited for the lock of process ${holder.pid}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until `cond` holds (checked every 20 ms), up to the hang limit. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const limit = Date.now() + HANG_MS;
  while (!cond()) {
    if (Date.now() > limit) throw new Error(`not seen: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs `create` and kills it with -9 while its first records wait for the sandbox's lock
 * (`dataHolder` holds it); returns the state folder it left its record and lock in. Its
 * record must say that nothing was created and nothing may have been: on a machine so
 * loaded that it wrote a checkpoint with requests in flight (a second after it began), its
 * re-runs are rightly refused, so it is tried again with a fresh state folder.
 */
async function killedRun(dir: string, create: string[], dataHolder: LockHolder): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const state = join(dir, `state-${attempt}`);
    const victim = spawnCli(create, {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_STATE_DIR: state },
      timeoutMs: HANG_MS,
    });
    await someoneWaits(join(dir, 'sandbox.json'), dataHolder);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const [file] = recordFiles(state);
    const record = JSON.parse(readFileSync(join(state, file ?? 'none'), 'utf8')) as {
      state: string;
      created: number;
      unknownLines: number[];
    };
    expect(record.state).toBe('running');
    // The killed run's lock is left behind, naming it.
    expect(existsSync(join(state, `${file}.lock`))).toBe(true);
    if (record.created === 0 && record.unknownLines.length === 0) return state;
    expect(attempt, 'every killed run had requests in flight when it wrote its record').toBeLessThan(5);
  }
}

describe('re-runs after a run killed with -9', () => {
  it('16 at once, each stalled while taking the dead run over: one sends, the others are refused, each record is created once', async () => {
    const dir = tempDir();
    const sandboxData = join(dir, 'sandbox.json');
    const input = join(dir, 'pets.ndjson');
    writeFileSync(input, records('race', 20));
    const base = { PETSTORE_CONFIG_DIR: dir };
    // The sandbox seeded, then its data lock held here: the runs' creates wait for it.
    expect((await runCli(['--env', 'sandbox', 'pets', 'list'], { env: base })).code).toBe(0);
    const dataHolder = await holdLock(sandboxData);
    const create = ['--env', 'sandbox', 'pets', 'create', '--from-file', input, '--timeout', '600'];

    const state = await killedRun(dir, create, dataHolder);

    // Each stalls up to 2 s while taking over: longer than the 16 take to start on a busy
    // machine, so that many judge the dead run's lock before any has taken it over.
    const env = {
      ...base,
      PETSTORE_STATE_DIR: state,
      NODE_OPTIONS: `--require ${TAKEOVER_DELAY}`,
      TAKEOVER_DELAY_MS: '2000',
    };
    // Killed as hung only after the wait below has given up.
    const reruns: Steered[] = Array.from({ length: 16 }, () => spawnCli(create, { env, timeoutMs: 2 * HANG_MS }));
    const ended: ({ code: number | null } | undefined)[] = reruns.map(() => undefined);
    reruns.forEach((r, i) => void r.exited.then((e) => (ended[i] = e)));
    // The one that took the run over waits for the sandbox's lock; the others are refused
    // at once. Two that took it (the race this is about) would both wait: then the limit
    // is reached and the counts below say so.
    await until(() => ended.filter((e) => e !== undefined).length >= 15, '15 of the re-runs refused').catch(
      () => undefined,
    );
    dataHolder.child.stdin.end();
    await dataHolder.exited;
    const results = await Promise.all(reruns.map((r) => r.exited));

    const codes = results.map((r) => r.code);
    const refused = reruns.filter((_, i) => codes[i] === 2);
    expect(
      codes.filter((c) => c === 0),
      `exit codes: ${codes.join(' ')}`,
    ).toHaveLength(1);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(unwrapped(r.stderr())).toMatch(/pets\.ndjson" is being sent to sandbox now/);
    // What the sandbox holds: each record once.
    const list = await runCli(['--env', 'sandbox', 'pets', 'list', '--all', '--output', 'json'], { env: base });
    const names = (JSON.parse(list.stdout) as { name: string }[])
      .map((p) => p.name)
      .filter((n) => n.startsWith('race-'));
    expect(names.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `race-${i + 1}`).sort());
    // Nothing left behind: the lock let go, the record complete.
    expect(readdirSync(state).filter((n) => n.includes('.lock'))).toEqual([]);
    const [record] = recordFiles(state);
    expect(JSON.parse(readFileSync(join(state, record ?? 'none'), 'utf8'))).toMatchObject({
      state: 'complete',
      created: 20,
    });
  }, 900_000);
});

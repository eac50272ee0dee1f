/**
 * petstore's file lock (src/fs/file-lock.ts) between processes: a holder killed with -9 at any
 * moment of its life leaves nothing that keeps the next taker out, and a live holder is
 * never robbed, however long ago it last refreshed the lock. The holders are processes of
 * their own (lock-holder.ts); the taker runs here.
 *
 * Nothing here measures time. What a kill leaves is made unmistakable instead: after the
 * kill the lock directory's mtime is set an hour ahead, so a taker gets in only if the lock
 * code sees that the holder is gone or the lock free, never through proper-lockfile's 5 s
 * staleness, which would otherwise pass a 5 s wait off as a takeover. The taker's deadline
 * is only an upper bound for a loaded machine; a lock the code cannot take fails at it
 * whatever the machine's speed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FileLock, LockBusyError } from '../../src/fs/file-lock.js';
import { holdLock, ownerFile, takeAndLog, type HolderMode, type LockHolder } from '../helpers/lock-holder.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/** How long a taker may wait: far beyond a loaded machine's worst; reached only when the lock cannot be taken. */
const TAKE_WAIT_MS = 30_000;
/**
 * Kills per kind of moment. A lock code that leaves the lock shut after one kill in ten (as
 * petstore's did, while a holder exited or let go) passes 60 rounds in 0.2% of runs.
 */
const ROUNDS = 60;

/** Sets the lock directory's mtime an hour ahead, if it is there, so that staleness cannot open it. */
function unstaleable(lockPath: string): void {
  const ahead = new Date(Date.now() + 3_600_000);
  try {
    utimesSync(lockPath, ahead, ahead);
  } catch {
    // No lock left behind.
  }
}

/** The text of the owner file in the lock directory at `lockPath`, or '' when it has none. */
function ownerText(lockPath: string): string {
  const owner = ownerFile(lockPath);
  return owner === undefined ? '' : readFileSync(owner, 'utf8');
}

/** What is at the lock's path, for a failure's message. */
function describeLock(lockPath: string): string {
  if (!existsSync(lockPath)) return 'no lock directory';
  return `lock directory holding [${readdirSync(lockPath).join(', ')}] ${JSON.stringify(ownerText(lockPath))}`;
}

/**
 * Kills `holder` with SIGKILL, waits until it is reaped, then takes the lock of `file` in
 * this process. Resolves with undefined when taken, or with what kept the taker out.
 */
async function killThenTake(file: string, holder: LockHolder): Promise<string | undefined> {
  holder.child.kill('SIGKILL');
  await holder.exited;
  const lockPath = `${file}.lock`;
  unstaleable(lockPath);
  const left = describeLock(lockPath);
  const lock = new FileLock(file);
  try {
    await lock.run({ deadline: Date.now() + TAKE_WAIT_MS }, () => Promise.resolve());
    return undefined;
  } catch (err) {
    if (err instanceof LockBusyError) return `not taken (${err.message}); the kill left a ${left}`;
    throw err;
  } finally {
    await lock.close();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A pid no process has: one of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}

describe('a holder killed with -9 at any moment of its life: its lock is taken over at once', () => {
  const moments: [string, HolderMode, () => Promise<void>][] = [
    ['just after taking the lock', 'hold', () => Promise.resolve()],
    // The kill races with the holder's exit handler, which removes the owner file, then the directory.
    ['while its exit lets go of the lock', 'exit', () => Promise.resolve()],
    // Taking and letting go in a loop: the kill lands in making, holding or removing the lock.
    ['at a random moment of taking and letting go', 'cycle', () => sleep(Math.random() * 20)],
  ];
  it.each(moments)(
    '%s',
    async (_moment, mode, before) => {
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const file = join(tempDir(), 'sandbox.json');
        const holder = await holdLock(file, mode);
        await before();
        const failure = await killThenTake(file, holder);
        if (failure !== undefined) {
          failures.push(`round ${round}: ${failure}`);
          break; // Each failing round costs the whole wait: one tells enough.
        }
        // Nothing of the holder's is left beside the data file: no half-made lock.
        expect(readdirSync(dirname(file)).filter((n) => n.startsWith(`${basename(file)}.lock.`))).toEqual([]);
      }
      expect(failures).toEqual([]);
    },
    // 60 rounds spawn 60 holders: ~15 s on a quiet machine, 90 s seen on a loaded one. A
    // hang is caught sooner, by holdLock's and the taker's own limits.
    600_000,
  );

  it('just after refreshing the lock (proper-lockfile rewrites its mtime every second)', async () => {
    for (let round = 0; round < 2; round++) {
      const file = join(tempDir(), 'sandbox.json');
      const lockPath = `${file}.lock`;
      const holder = await holdLock(file);
      const taken = statSync(lockPath).mtimeMs;
      // Waits for the refresh itself; the limit is for a holder that never refreshes (a
      // loaded machine runs its one-second timer late, not never).
      const limit = Date.now() + 30_000;
      while (statSync(lockPath).mtimeMs === taken && Date.now() < limit) await sleep(5);
      expect(statSync(lockPath).mtimeMs).not.toBe(taken);
      expect(await killThenTake(file, holder)).toBeUndefined();
    }
  });
});

describe('what a killed process can leave behind', () => {
  it('an empty lock directory (killed between removing its owner file and the directory) is a free lock', async () => {
    const file = join(tempDir(), 'config.json');
    mkdirSync(`${file}.lock`);
    unstaleable(`${file}.lock`);
    const lock = new FileLock(file);
    let ran = false;
    await lock.run({ deadline: Date.now() + TAKE_WAIT_MS }, () => Promise.resolve((ran = true)));
    expect(ownerText(`${file}.lock`)).toMatch(new RegExp(`^${process.pid} `));
    await lock.close();
    expect(ran).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('half-made locks of dead processes are cleared by the next taker; one of a live process is left alone', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    const dead = await deadPid();
    // Killed after writing its owner file, before the rename; and before writing it.
    mkdirSync(`${file}.lock.${dead}-0123456789ab`);
    writeFileSync(
      join(`${file}.lock.${dead}-0123456789ab`, 'owner-0123456789ab'),
      `${dead} ${hostname()} 0123456789ab\n`,
    );
    mkdirSync(`${file}.lock.${dead}-0123456789ac`);
    // This process, making its lock.
    const live = `config.json.lock.${process.pid}-ba9876543210`;
    mkdirSync(join(dir, live));
    const lock = new FileLock(file);
    await lock.run({ deadline: Date.now() + TAKE_WAIT_MS }, () => Promise.resolve());
    await lock.close();
    expect(readdirSync(dir)).toEqual([live]);
  });

  it.runIf(process.platform === 'linux')(
    'an owner naming a live process that started at another time (its pid reused) counts as gone',
    async () => {
      const file = join(tempDir(), 'config.json');
      const lockPath = `${file}.lock`;
      mkdirSync(lockPath);
      // This process is alive, but did not start one clock tick after boot.
      writeFileSync(join(lockPath, 'owner-0123456789ab'), `${process.pid} ${hostname()} 0123456789ab 1\n`);
      unstaleable(lockPath);
      const lock = new FileLock(file);
      expect(lock.holderGone()).toBe(true);
      await lock.run({ deadline: Date.now() + TAKE_WAIT_MS }, () => Promise.resolve());
      await lock.close();
      expect(existsSync(lockPath)).toBe(false);
    },
  );
});

describe('a live holder is never robbed', () => {
  it.runIf(process.platform === 'linux')(
    'stopped (Ctrl-Z, SIGSTOP) with its lock not refreshed for longer than the stale period: waited for, named',
    async () => {
      const file = join(tempDir(), 'sandbox.json');
      const lockPath = `${file}.lock`;
      const holder = await holdLock(file);
      holder.child.kill('SIGSTOP');
      try {
        // As if it had not refreshed the lock for 10 s (twice the stale period).
        const old = new Date(Date.now() - 10_000);
        utimesSync(lockPath, old, old);
        const lock = new FileLock(file);
        expect(lock.holderGone()).toBe(false);
        const taking = lock.run({ deadline: Date.now() + 500 }, () => Promise.resolve());
        await expect(taking).rejects.toThrow(LockBusyError);
        await expect(taking).rejects.toThrow(`held by process ${holder.pid} on ${hostname()}`);
        expect(ownerText(lockPath)).toMatch(new RegExp(`^${holder.pid} `));
      } finally {
        holder.child.kill('SIGKILL');
        holder.child.kill('SIGCONT');
        await holder.exited;
      }
    },
  );
});

/** Stalls each takeover between judging the stale lock and removing it (a random time up to 300 ms). */
const TAKEOVER_DELAY = fileURLToPath(new URL('../helpers/takeover-delay.cjs', import.meta.url));

/**
 * Whether the `enter PID` / `leave PID` lines of `log` show one holder at a time: each
 * enter followed by the same process's leave. Returns the first line that breaks it, or
 * undefined.
 */
function overlap(log: string): string | undefined {
  let inside: string | undefined;
  for (const [i, line] of log.trimEnd().split('\n').entries()) {
    const [word, pid] = line.split(' ');
    if (word === 'enter' && inside === undefined) inside = pid;
    else if (word === 'leave' && inside === pid) inside = undefined;
    else return `line ${i + 1} "${line}" while ${inside === undefined ? 'nobody' : `process ${inside}`} held the lock`;
  }
  return undefined;
}

describe("many takers of a dead holder's lock at once", () => {
  it('16 takers of a config lock whose holder was killed, each stalled between judging the lock and taking it over: one holder at a time', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      const file = join(dir, 'config.json');
      const holder = await holdLock(file);
      holder.child.kill('SIGKILL');
      await holder.exited;
      unstaleable(`${file}.lock`);
      const log = join(dir, 'holders.log');
      const takers = await Promise.all(Array.from({ length: 16 }, () => takeAndLog(file, log, TAKEOVER_DELAY)));
      const text = readFileSync(log, 'utf8');
      expect(overlap(text), text).toBeUndefined();
      expect(takers.filter((t) => t.code !== 0)).toEqual([]);
      expect(text.match(/^enter /gm)).toHaveLength(16);
      // Nothing left: no lock, no half-made lock.
      expect(readdirSync(dir).filter((n) => n.startsWith('config.json.lock'))).toEqual([]);
    }
  }, 600_000);
});

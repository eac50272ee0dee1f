/**
 * The cross-process lock of a file (the sandbox data, the config file): proper-lockfile's
 * `<file>.lock` directory (mkdir is atomic, even on NFS), with three additions. A leaf
 * (node's modules and proper-lockfile only), so `config/` and `sandbox/` share it.
 *
 * - **Owner.** The directory holds a file `owner` with the holder's pid, host and a random
 *   token, written inside the same mkdir step (through the `fs` that proper-lockfile is
 *   given), so the directory's mtime, which proper-lockfile watches, is set after it.
 * - **Dead holders are seen at once.** A waiter that finds the lock held by a process of
 *   this host that no longer exists (`kill -9`, a crash) treats the lock as stale at
 *   once instead of after proper-lockfile's mtime threshold (`LOCK_STALE_MS`, which still
 *   applies to holders on other hosts or whose pid cannot be checked). The removal checks
 *   that the owner file is still the one judged, so a lock taken over meanwhile is left alone.
 * - **Leases.** On this disk a lock costs about 2 ms (ext4 with `discard`: rmdir alone
 *   took 1.7 ms), more than a whole create. So a holder keeps the lock for `LINGER_MS`
 *   after its work in case more comes (a bulk create sends one record after another),
 *   unless someone is waiting: waiters mark the owner file (mtime set to 0), and a holder
 *   that sees the mark releases after its current work and stays away for `YIELD_MS`.
 *
 * Waiting is bounded by a deadline and an AbortSignal; the wait polls every 1-10 ms.
 */
import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** proper-lockfile's staleness threshold (ms): a lock not refreshed for this long is taken over. */
const LOCK_STALE_MS = 5_000;
/** How often a holder refreshes the lock's mtime (ms; proper-lockfile's minimum). */
const LOCK_UPDATE_MS = 1_000;
/** How long an idle holder keeps the lock for more work (ms). */
const LINGER_MS = 5;
/** How long a holder that released for a waiter stays away (ms): longer than a poll. */
const YIELD_MS = 15;
const POLL_MAX_MS = 10;
const OWNER = 'owner';

/** The lock could not be had before the deadline. */
export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    /** The holder as its owner file names it (`pid 123 on host`), when known. */
    readonly holder: string | undefined,
    readonly waitedMs: number,
  ) {
    super(`${lockPath} is held${holder === undefined ? '' : ` by ${holder}`}`);
    this.name = 'LockBusyError';
  }
}

/** Every waiter of a batch gave up (see `WaitOptions.stillWanted`). */
class LockNotWantedError extends Error {
  constructor() {
    super('nobody waits for the lock any more');
    this.name = 'LockNotWantedError';
  }
}

/** Taking the lock failed for a reason other than its being held (e.g. EACCES making the directory). */
export class LockFileError extends Error {
  constructor(
    readonly lockPath: string,
    cause: unknown,
  ) {
    super(`cannot create ${lockPath}`, { cause });
    this.name = 'LockFileError';
  }
}

/** Bounds of one wait for the lock. */
export interface WaitOptions {
  /** Epoch ms after which the wait fails with LockBusyError. */
  deadline: number;
  /** Stops the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Asked between attempts; `false` ends the wait with LockNotWantedError. */
  stillWanted?: () => boolean;
  /** Told once when the wait has lasted a second, with a line naming the holder. */
  onWait?: (message: string) => void;
  /**
   * The longest pause between two attempts, in ms (default 10): waiters that come by the
   * hundred (one `config set` per process) poll less often than a bulk create's records.
   */
  pollMaxMs?: number;
}

interface Owner {
  pid: number;
  host: string;
  text: string;
}

function parseOwner(text: string): Owner | undefined {
  const m = /^(\d+) (\S+) \S+\n$/.exec(text);
  return m === null ? undefined : { pid: Number(m[1]), host: m[2] ?? '', text };
}

function readOwner(lockPath: string): string | undefined {
  try {
    return fs.readFileSync(join(lockPath, OWNER), 'utf8');
  } catch {
    return undefined;
  }
}

function removeOwner(lockPath: string): void {
  try {
    fs.unlinkSync(join(lockPath, OWNER));
  } catch {
    // Not there.
  }
}

function describeOwner(text: string | undefined): string | undefined {
  const o = text === undefined ? undefined : parseOwner(text);
  return o === undefined ? undefined : `process ${o.pid} on ${o.host}`;
}

/** Whether `pid` names a live process (a zombie counts as dead; EPERM: alive, not ours). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    // /proc/PID/stat: "pid (comm) S ..."; comm may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Callback<T = void> = (err: NodeJS.ErrnoException | null, value?: T) => void;

interface Held {
  release: () => Promise<void>;
  token: string;
}

/** The lock of one file, held by one object at a time within the process. */
export class FileLock {
  /** The lock directory, `<file>.lock`. */
  readonly path: string;
  private held: Held | undefined;
  private ownerText = '';
  /** Owner texts judged stale, which proper-lockfile may remove next (path → text). */
  private readonly judged = new Map<string, string>();
  private chain: Promise<unknown> = Promise.resolve();
  private lingerTimer: NodeJS.Timeout | undefined;
  private yieldUntil = 0;
  /** The `fs` given to proper-lockfile: one object, so its mtime-precision probe is cached. */
  private readonly lockFs: Record<string, unknown>;

  constructor(readonly file: string) {
    this.path = `${file}.lock`;
    this.lockFs = this.makeLockFs();
  }

  /**
   * Runs `fn` holding the lock, one `run` at a time within the process. Takes the lock
   * unless a lease still holds it; afterwards keeps it for `LINGER_MS` unless a waiter
   * marked it.
   * @throws LockBusyError at the deadline, LockNotWantedError, the signal's reason,
   * LockFileError; or what `fn` throws.
   */
  run<T>(wait: WaitOptions, fn: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      clearTimeout(this.lingerTimer);
      if (this.held === undefined) await this.acquire(wait);
      try {
        return await fn();
      } finally {
        await this.afterRun();
      }
    });
  }

  /** The holder as the owner file names it (`process 123 on host`), if it can be read. */
  holder(): string | undefined {
    return describeOwner(readOwner(this.path));
  }

  /**
   * Whether the lock is held by a process known to be gone: one of this host that no longer
   * runs (another host's, or one whose owner file is unreadable, cannot be known gone).
   */
  holderGone(): boolean {
    const text = readOwner(this.path);
    const owner = text === undefined ? undefined : parseOwner(text);
    return owner !== undefined && owner.host === hostname() && !processAlive(owner.pid);
  }

  /** Releases a lease, after any `run` under way. */
  close(): Promise<void> {
    return this.exclusive(() => this.release());
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async afterRun(): Promise<void> {
    if (this.held === undefined) return;
    let marked: boolean;
    try {
      marked = fs.statSync(join(this.path, OWNER)).mtimeMs === 0;
    } catch {
      marked = true; // The owner file is gone: give the lock back rather than guess.
    }
    if (marked) {
      await this.release();
      this.yieldUntil = Date.now() + YIELD_MS;
      return;
    }
    this.lingerTimer = setTimeout(() => void this.exclusive(() => this.release()), LINGER_MS);
    this.lingerTimer.unref();
  }

  private async release(): Promise<void> {
    clearTimeout(this.lingerTimer);
    const held = this.held;
    this.held = undefined;
    if (held === undefined) return;
    removeOwner(this.path);
    // ERELEASED after a compromise; anything else leaves a directory without an owner,
    // which waiters take over once proper-lockfile finds it stale.
    await held.release().catch(() => undefined);
  }

  private async acquire(wait: WaitOptions): Promise<void> {
    const { default: lockfile } = await import('proper-lockfile');
    const started = Date.now();
    let delay = 1;
    let told = false;
    for (;;) {
      const pause = this.yieldUntil - Date.now();
      if (pause > 0) await sleep(Math.min(pause, Math.max(0, wait.deadline - Date.now())), wait.signal);
      const token = randomBytes(6).toString('hex');
      this.ownerText = `${process.pid} ${hostname()} ${token}\n`;
      try {
        const release = await lockfile.lock(this.file, {
          realpath: false,
          lockfilePath: this.path,
          stale: LOCK_STALE_MS,
          update: LOCK_UPDATE_MS,
          retries: 0,
          fs: this.lockFs,
          // Never throw (the default would, from a timer): the lease simply ends.
          onCompromised: () => {
            if (this.held?.token === token) this.held = undefined;
          },
        });
        this.held = { release, token };
        this.judged.delete(this.path);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw new LockFileError(this.path, err);
      }
      if (wait.signal?.aborted === true) throw wait.signal.reason as Error;
      if (wait.stillWanted?.() === false) throw new LockNotWantedError();
      const now = Date.now();
      if (now >= wait.deadline) throw new LockBusyError(this.path, describeOwner(readOwner(this.path)), now - started);
      if (!told && now - started >= 1000 && wait.onWait !== undefined) {
        told = true;
        const holder = describeOwner(readOwner(this.path));
        wait.onWait(`waiting for the lock ${this.path}${holder === undefined ? '' : ` held by ${holder}`}`);
      }
      // Ask the holder to let go after its current work (see the module comment).
      try {
        fs.utimesSync(join(this.path, OWNER), 0, 0);
      } catch {
        // Released meanwhile.
      }
      await sleep(Math.min(delay / 2 + Math.random() * (delay / 2), Math.max(0, wait.deadline - now)), wait.signal);
      delay = Math.min(delay * 2, wait.pollMaxMs ?? POLL_MAX_MS);
    }
  }

  /** Whether the lock directory at `path`, with mtime `mtimeMs`, is held by a dead process. */
  private judge(path: string, mtimeMs: number): boolean {
    const text = readOwner(path);
    const owner = text === undefined ? undefined : parseOwner(text);
    const dead =
      owner !== undefined && owner.host === hostname() && owner.pid !== process.pid && !processAlive(owner.pid);
    // proper-lockfile removes a stale lock next: remember whose it was (see rmdir).
    if (dead || mtimeMs < Date.now() - LOCK_STALE_MS) this.judged.set(path, text ?? '');
    return dead;
  }

  /**
   * node:fs for proper-lockfile, with the owner file added to mkdir and rmdir and dead
   * owners made stale in stat. Synchronous underneath (callbacks on the next tick), for
   * the reason given in `sandbox/data-files.ts`: fewer trips through a busy scheduler.
   */
  private makeLockFs(): Record<string, unknown> {
    const later =
      <T>(cb: Callback<T>, fn: () => T) =>
      (): void => {
        let value: T;
        try {
          value = fn();
        } catch (err) {
          process.nextTick(cb, err);
          return;
        }
        process.nextTick(cb, null, value);
      };
    return {
      ...fs,
      mkdir: (path: string, cb: Callback) => {
        later(cb, () => {
          fs.mkdirSync(path);
          if (path !== this.path) return;
          try {
            fs.writeFileSync(join(path, OWNER), this.ownerText, { mode: 0o600 });
          } catch {
            // Without it the lock still works, recovered by its mtime only.
          }
        })();
      },
      stat: (path: string, cb: Callback<fs.Stats>) => {
        later(cb, () => {
          const st = fs.statSync(path);
          if (path !== this.path || this.held !== undefined || !this.judge(path, st.mtimeMs)) return st;
          return Object.assign(Object.create(st) as fs.Stats, { mtime: new Date(0) });
        })();
      },
      rmdir: (path: string, cb: Callback) => {
        later(cb, () => {
          const expected = this.judged.get(path);
          this.judged.delete(path);
          if (expected === undefined) {
            fs.rmdirSync(path);
            return;
          }
          // Taking over a stale lock: only if it is still the one judged. Whatever goes
          // wrong here means someone else got there first: wait on (ELOCKED).
          try {
            if ((readOwner(path) ?? '') !== expected) throw new Error(`${path} changed hands`);
            removeOwner(path);
            fs.rmdirSync(path);
          } catch (err) {
            throw Object.assign(new Error((err as Error).message), { code: 'ELOCKED' });
          }
        })();
      },
      // proper-lockfile's exit handler, for a lock still held when the process exits.
      rmdirSync: (path: string) => {
        removeOwner(path);
        fs.rmdirSync(path);
      },
    };
  }
}

/**
 * The cross-process lock of a file (the sandbox data, the config file): proper-lockfile's
 * `<file>.lock` directory, with four additions. A leaf (node's modules and proper-lockfile
 * only), so `config/` and `sandbox/` share it.
 *
 * - **Owner.** The directory holds a file `owner` with the holder's pid, host, a random token
 *   and (on Linux) the process's start time. The directory is made with the file already in
 *   it: built as `<file>.lock.<pid>-<token>`, then renamed to `<file>.lock` (rename is atomic,
 *   and fails onto a directory that is not empty), through the `fs` that proper-lockfile is
 *   given. So a lock directory always names its holder, and an empty one is a free lock: what
 *   a process killed while letting go (between removing its owner file and the directory)
 *   leaves, which the next rename replaces. Were the directory made first and the owner
 *   written after, a kill in between would leave a lock naming nobody, which only the mtime
 *   threshold below would open, 5 s later.
 * - **Dead holders are seen at once, live ones are never robbed.** A waiter reads the owner
 *   file: a process of this host that no longer runs (`kill -9`, a crash; a zombie; its pid
 *   now another process's, by the start time) makes the lock stale at once; one that still
 *   runs keeps it, however long since it refreshed the lock's mtime (stopped with Ctrl-Z, or
 *   starved on a loaded machine). proper-lockfile's mtime threshold (`LOCK_STALE_MS`) applies
 *   only where that cannot be known: a holder on another host, an owner without a start time
 *   or unreadable, a system without /proc. The removal checks that the owner file is still
 *   the one judged, so a lock taken over meanwhile is left alone.
 * - **Half-made locks.** A `<file>.lock.<pid>-<token>` left by a process killed while making
 *   its lock is removed by the next process that takes the lock, once its maker is gone.
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
import { basename, dirname, join } from 'node:path';

/**
 * proper-lockfile's staleness threshold (ms): a lock not refreshed for this long is taken over,
 * unless its holder is known to run (see `liveness`).
 */
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

/** An owner file's text: `PID HOST TOKEN [START]\n` (START: see `procStat`). */
interface Owner {
  pid: number;
  host: string;
  start: string | undefined;
}

function parseOwner(text: string | undefined): Owner | undefined {
  const m = text === undefined ? null : /^(\d+) (\S+) \S+(?: (\d+))?\n$/.exec(text);
  return m === null ? undefined : { pid: Number(m[1]), host: m[2] ?? '', start: m[3] };
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

/** Removes a lock directory that is not (or no longer) the lock: its owner file, then it. */
function removeLockDir(path: string): void {
  removeOwner(path);
  try {
    fs.rmdirSync(path);
  } catch {
    // Gone already, or not ours to remove (something else in it).
  }
}

function describeOwner(text: string | undefined): string | undefined {
  const o = parseOwner(text);
  return o === undefined ? undefined : `process ${o.pid} on ${o.host}`;
}

/**
 * A process's state letter and start time (clock ticks after boot) from /proc/PID/stat
 * (proc(5): fields 3 and 22); undefined where there is no /proc or no such process. The
 * start time tells a holder from a later process given the same pid.
 */
function procStat(pid: number | 'self'): { state: string; start: string } | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    // "pid (comm) S ppid ...": comm may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** This process's start time, written into its owner files (undefined without /proc). */
const OWN_START = procStat('self')?.start;

/**
 * Whether the holder an owner file names still runs: `gone` (a process of this host that no
 * longer exists or is a zombie, or whose pid now names a process started at another time),
 * `alive` (that very process), `unknown` (another host's, an unreadable owner, one without a
 * start time, or a system without /proc).
 */
function liveness(owner: Owner | undefined): 'gone' | 'alive' | 'unknown' {
  if (owner === undefined || owner.host !== hostname()) return 'unknown';
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: it exists, run by another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  if (process.platform !== 'linux') return 'unknown';
  const stat = procStat(owner.pid);
  if (stat === undefined || stat.state === 'Z') return 'gone';
  if (owner.start === undefined) return 'unknown';
  return stat.start === owner.start ? 'alive' : 'gone';
}

/**
 * Renames the directory `build` to `path`, the lock's. An empty directory at `path` is a free
 * lock: rename replaces it, and where rename will not replace a directory (Windows), rmdir,
 * which removes only an empty one, clears the way first.
 * @throws EEXIST (`heldError`) when `path` is a directory that is not empty: the lock is held.
 */
function placeLockDir(build: string, path: string): void {
  const held = (err: unknown): boolean => ['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '');
  try {
    fs.renameSync(build, path);
    return;
  } catch (err) {
    if (held(err)) throw heldError(path);
    try {
      fs.rmdirSync(path);
    } catch (rmErr) {
      if (held(rmErr)) throw heldError(path);
      if ((rmErr as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  try {
    fs.renameSync(build, path);
  } catch (err) {
    throw held(err) ? heldError(path) : err;
  }
}

/** proper-lockfile's word for "held": mkdir's EEXIST. */
function heldError(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: 'EEXIST', path });
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
  /** Where the lock directory is built before it is renamed into place. */
  private buildPath = '';
  private swept = false;
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
    return liveness(parseOwner(readOwner(this.path))) === 'gone';
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
    // ERELEASED after a compromise; anything else (ENOTEMPTY: taken meanwhile) leaves at
    // most an empty directory, a free lock (see makeLockDir).
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
      this.ownerText = `${process.pid} ${hostname()} ${token}${OWN_START === undefined ? '' : ` ${OWN_START}`}\n`;
      this.buildPath = `${this.path}.${process.pid}-${token}`;
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
        this.sweep();
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

  /**
   * The mtime proper-lockfile is to judge the lock directory at `path`, whose owner file
   * reads `text`, by: 0 when its holder is gone (stale at once), now while it runs (never
   * stale), `mtimeMs` when that cannot be known (see `liveness`). Remembers what it found
   * stale, which proper-lockfile removes next (see rmdir).
   */
  private judge(path: string, mtimeMs: number, text: string | undefined): number {
    const state = liveness(parseOwner(text));
    const now = Date.now();
    const seen = state === 'gone' ? 0 : state === 'alive' ? now : mtimeMs;
    if (seen < now - LOCK_STALE_MS) this.judged.set(path, text ?? '');
    return seen;
  }

  /**
   * Makes the lock directory at `path` with its owner file in it (see the module comment):
   * built at `buildPath`, then renamed into place (`placeLockDir`).
   * @throws EEXIST while the lock is held; the file system's error otherwise.
   */
  private makeLockDir(path: string): void {
    // Held: as cheap as a mkdir that fails, for waiters that poll.
    if (fs.existsSync(join(path, OWNER))) throw heldError(path);
    const build = this.buildPath;
    fs.mkdirSync(build);
    try {
      try {
        fs.writeFileSync(join(build, OWNER), this.ownerText, { mode: 0o600 });
      } catch (err) {
        // Cut short (a full disk): the lock still holds, recovered by its mtime only.
        const written = readOwner(build);
        if (written === undefined) throw err;
        this.ownerText = written;
      }
      placeLockDir(build, path);
    } catch (err) {
      removeLockDir(build);
      // ENOENT: a sweep took `build` for the litter of a gone process; try again.
      throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? heldError(path) : err;
    }
    // A sweep that removed the owner file from `build` before the rename left an empty
    // directory: a free lock, not ours.
    if (readOwner(path) !== this.ownerText) throw heldError(path);
  }

  /**
   * Removes the half-made locks of other processes beside the lock (see the module comment),
   * once per object: those whose maker is gone, or not known to run and older than the
   * stale period. Removing one whose maker still runs costs it a retry, nothing more: a
   * rename makes the lock only with the owner file in it (see makeLockDir).
   */
  private sweep(): void {
    if (this.swept) return;
    this.swept = true;
    const dir = dirname(this.path);
    const prefix = `${basename(this.path)}.`;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = /^(\d+)-[0-9a-f]{12}$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '');
      const path = join(dir, name);
      if (m === null || path === this.buildPath) continue;
      const start = parseOwner(readOwner(path))?.start;
      const state = liveness({ pid: Number(m[1]), host: hostname(), start });
      const mtimeMs = fs.statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (state === 'gone' || (state === 'unknown' && mtimeMs < Date.now() - LOCK_STALE_MS)) removeLockDir(path);
    }
  }

  /**
   * node:fs for proper-lockfile: mkdir makes the lock with its owner file in it, stat
   * judges the lock by its owner, rmdir removes the owner file with the lock. Synchronous
   * underneath (callbacks on the next tick), for the reason given in
   * `sandbox/data-files.ts`: fewer trips through a busy scheduler.
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
        later(cb, () => (path === this.path ? this.makeLockDir(path) : fs.mkdirSync(path)))();
      },
      stat: (path: string, cb: Callback<fs.Stats>) => {
        later(cb, () => {
          const st = fs.statSync(path);
          if (path !== this.path || this.held !== undefined) return st;
          const text = readOwner(path);
          // Our own lock, probed by proper-lockfile just after it was made: as it is.
          if (text === this.ownerText) return st;
          const mtimeMs = this.judge(path, st.mtimeMs, text);
          return mtimeMs === st.mtimeMs
            ? st
            : Object.assign(Object.create(st) as fs.Stats, { mtime: new Date(mtimeMs) });
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

/**
 * The cross-process lock of a file (the sandbox data, the config file, a bulk create's run
 * record): proper-lockfile's `<file>.lock` directory, with four additions. A leaf (node's
 * modules and proper-lockfile only), so `config/`, `sandbox/` and the commands share it.
 *
 * - **Owner.** The directory holds one file, `owner-<token>`, with the holder's pid, host,
 *   the same random token and (on Linux) the process's start time. The token is new for
 *   every lock made, so the owner file's name tells one lock from every other ever made at
 *   the same path. The directory is made with the file already in it: built as
 *   `<file>.lock.<pid>-<token>`, then renamed to `<file>.lock` (rename is atomic, and fails
 *   onto a directory that is not empty), through the `fs` that proper-lockfile is given. So
 *   a lock directory always names its holder, and an empty one is a free lock: what a
 *   process killed while letting go (between removing its owner file and the directory)
 *   leaves, and what a takeover leaves (below); the next rename replaces it, and of several
 *   renames onto one empty directory exactly one succeeds. Were the directory made first
 *   and the owner written after, a kill in between would leave a lock naming nobody, which
 *   only the mtime threshold below would open, 5 s later.
 * - **Dead holders are seen at once, live ones are never robbed.** A waiter reads the owner
 *   file: a process of this host that no longer runs (`kill -9`, a crash; a zombie; its pid
 *   now another process's, by the start time) makes the lock stale at once; one that still
 *   runs keeps it, however long since it refreshed the lock's mtime (stopped with Ctrl-Z, or
 *   starved on a loaded machine). proper-lockfile's mtime threshold (`LOCK_STALE_MS`) applies
 *   only where that cannot be known: a holder on another host, an owner without a start time
 *   or unreadable, a system without /proc.
 * - **The takeover is atomic** (`takeOver`). A stale lock is taken over by removing its
 *   owner file by its own name, `owner-<token>` of the lock judged, never whatever is at a
 *   fixed path. Between the judgement and the removal, any number of other takers may have
 *   judged the same lock, one of them removed it, and a new holder put a new lock directory
 *   in its place; but that new lock's owner file has another name, so a late removal finds
 *   nothing (ENOENT) and touches nothing live. Removing the judged file leaves the judged
 *   directory empty, a free lock, for which every taker then races with a rename that only
 *   one wins. A removal by a fixed name (read the owner, see the dead holder, remove
 *   `owner`) would instead remove whatever lock is there by then: with 16 takers, two held
 *   the lock at once. Renaming the stale directory away to a unique name, then judging what
 *   was moved, is atomic too, but when what was moved turns out to be a new live lock it
 *   must be put back, and in the meantime the path is free: a third process takes the lock
 *   there, and the live holder moved away and the third both hold it, which nothing can
 *   undo. Removing by the judged name never moves a live lock, so nothing is ever put back.
 *   A test may stall the takeover between judgement and removal through the diagnostics
 *   channel `petstore:file-lock:takeover` (test/helpers/takeover-delay.cjs), to widen that
 *   window; nothing subscribes to it otherwise.
 * - **Half-made locks.** A `<file>.lock.<pid>-<token>` left by a process killed while making
 *   its lock is removed by the next process that takes the lock, once its maker is gone.
 * - **Leases.** On this disk a lock costs about 2 ms (ext4 with `discard`: rmdir alone
 *   took 1.7 ms), more than a whole create. So a holder keeps the lock for `LINGER_MS`
 *   after its work in case more comes (a bulk create sends one record after another),
 *   unless someone is waiting: waiters mark the owner file (mtime set to 0), and a holder
 *   that sees the mark releases after its current work and stays away for `YIELD_MS`.
 *   `hold` keeps the lock, marked or not, until `close`.
 *
 * Owner files are read without following a link and without blocking (a FIFO in their
 * place is not read). Waiting is bounded by a deadline and an AbortSignal; the wait polls
 * every 1-10 ms.
 */
import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
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
/** An owner file's name: `owner-` and the lock's token (see the module comment). */
const OWNER_NAME = /^owner-[0-9a-f]{12}$/;
/** The most of an owner file read: its text is under 100 bytes. */
const OWNER_MAX_BYTES = 512;

/**
 * Told `{ lockPath, owner }` (the owner file's name) just before a takeover removes a stale
 * lock's owner file: a test hook, to stall the takeover there (see the module comment).
 */
const takeoverChannel = channel('petstore:file-lock:takeover');

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

/** The owner file's name of a lock whose token is `token`. */
function ownerName(token: string): string {
  return `owner-${token}`;
}

/** A lock directory's owner file: its name and its text. */
interface OwnerFile {
  name: string;
  text: string;
}

/**
 * The owner file of the lock directory at `lockPath` (or of a half-made one), or undefined
 * when there is none or it cannot be read: read without following a link and without
 * blocking, and only when it is a regular file.
 */
function readOwner(lockPath: string): OwnerFile | undefined {
  const name = ownerNameIn(lockPath);
  if (name === undefined) return undefined;
  const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(join(lockPath, name), O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(OWNER_MAX_BYTES);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return { name, text: buf.toString('utf8', 0, n) };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The name of the owner file in the lock directory at `lockPath`, or undefined when it has none. */
function ownerNameIn(lockPath: string): string | undefined {
  try {
    return fs.readdirSync(lockPath).find((n) => OWNER_NAME.test(n));
  } catch {
    return undefined;
  }
}

/** Removes the owner file `name` of the lock directory at `lockPath`, if it is there. */
function removeOwner(lockPath: string, name: string): void {
  try {
    fs.unlinkSync(join(lockPath, name));
  } catch {
    // Not there.
  }
}

/**
 * Removes a half-made lock directory (never the lock itself): its owner files, then it.
 * Its name is its maker's alone (`<file>.lock.<pid>-<token>`), so what is in it is that
 * maker's too.
 */
function removeLockDir(path: string): void {
  try {
    for (const name of fs.readdirSync(path)) if (OWNER_NAME.test(name)) removeOwner(path, name);
    fs.rmdirSync(path);
  } catch {
    // Gone already, or not ours to remove (something else in it).
  }
}

function describeOwner(owner: OwnerFile | undefined): string | undefined {
  const o = parseOwner(owner?.text);
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

/** Whether `path` is an empty directory (a free lock) or nothing at all. */
function isEmptyOrMissing(path: string): boolean {
  try {
    return fs.readdirSync(path).length === 0;
  } catch {
    return true; // ENOENT; anything else, placeLockDir's rename reports.
  }
}

/** proper-lockfile's word for "held, try later": ELOCKED, with what made it so. */
function lockedError(path: string, cause: unknown): NodeJS.ErrnoException {
  return Object.assign(new Error(`${path} is held`, { cause }), { code: 'ELOCKED', path });
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
  /** The owner file's text and name of the lock being made (see `acquire`). */
  private ownerText = '';
  private ownerFile = '';
  /** Where the lock directory is built before it is renamed into place. */
  private buildPath = '';
  private swept = false;
  /**
   * Owner files judged stale, which proper-lockfile may remove next (path → the owner
   * file's name, `''` for a lock directory that named no owner).
   */
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

  /**
   * Takes the lock and keeps it until `close`, whatever waiters ask (no lease: for work
   * that spans a whole command, such as a bulk create's run). Taken already: nothing to do.
   * @throws LockBusyError at the deadline (with `deadline: Date.now()`, one attempt, a
   * dead holder's lock taken over), LockNotWantedError, the signal's reason, LockFileError.
   */
  hold(wait: WaitOptions): Promise<void> {
    return this.exclusive(async () => {
      clearTimeout(this.lingerTimer);
      if (this.held === undefined) await this.acquire(wait);
    });
  }

  /**
   * Lets go of the lock at once, synchronously, for a process about to end (no `run` may be
   * under way): its owner file, then the directory if it is empty.
   */
  releaseSync(): void {
    clearTimeout(this.lingerTimer);
    const held = this.held;
    this.held = undefined;
    if (held === undefined) return;
    removeOwner(this.path, ownerName(held.token));
    try {
      fs.rmdirSync(this.path);
    } catch {
      // Taken meanwhile (not empty), or gone.
    }
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
    return liveness(parseOwner(readOwner(this.path)?.text)) === 'gone';
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
      marked = fs.statSync(join(this.path, ownerName(this.held.token))).mtimeMs === 0;
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
    removeOwner(this.path, ownerName(held.token));
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
      this.ownerFile = ownerName(token);
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
      const holder = ownerNameIn(this.path);
      try {
        if (holder !== undefined) fs.utimesSync(join(this.path, holder), 0, 0);
      } catch {
        // Released meanwhile.
      }
      await sleep(Math.min(delay / 2 + Math.random() * (delay / 2), Math.max(0, wait.deadline - now)), wait.signal);
      delay = Math.min(delay * 2, wait.pollMaxMs ?? POLL_MAX_MS);
    }
  }

  /**
   * The mtime proper-lockfile is to judge the lock directory at `path`, whose owner file
   * is `owner`, by: 0 when its holder is gone (stale at once), now while it runs (never
   * stale), `mtimeMs` when that cannot be known (see `liveness`). Remembers the owner file
   * it found stale, which proper-lockfile removes next (`takeOver`).
   */
  private judge(path: string, mtimeMs: number, owner: OwnerFile | undefined): number {
    const state = liveness(parseOwner(owner?.text));
    const now = Date.now();
    const seen = state === 'gone' ? 0 : state === 'alive' ? now : mtimeMs;
    if (seen < now - LOCK_STALE_MS) this.judged.set(path, owner?.name ?? '');
    return seen;
  }

  /**
   * Takes over the stale lock at `path` whose owner file was judged to be `owner` (see the
   * module comment, "The takeover is atomic"): removes that file by its name, which empties
   * the judged directory (a free lock) if it is still there and touches nothing otherwise.
   * proper-lockfile then makes the lock anew (`makeLockDir`), or finds it taken. A lock
   * directory that named no owner (`''`) is removed only if empty.
   * @throws ELOCKED when a directory that named no owner is not empty: someone holds it.
   */
  private takeOver(path: string, owner: string): void {
    if (owner === '') {
      try {
        fs.rmdirSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw lockedError(path, err);
      }
      return;
    }
    if (takeoverChannel.hasSubscribers) takeoverChannel.publish({ lockPath: path, owner });
    // ENOENT: another taker removed it first, or its holder let go. Either way the lock
    // was not ours to remove; making ours anew finds out who has it.
    removeOwner(path, owner);
  }

  /**
   * Makes the lock directory at `path` with its owner file in it (see the module comment):
   * built at `buildPath`, then renamed into place (`placeLockDir`).
   * @throws EEXIST while the lock is held; the file system's error otherwise.
   */
  private makeLockDir(path: string): void {
    // Held: as cheap as a mkdir that fails, for waiters that poll.
    if (!isEmptyOrMissing(path)) throw heldError(path);
    const build = this.buildPath;
    fs.mkdirSync(build);
    try {
      const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
      const ownerPath = join(build, this.ownerFile);
      try {
        const fd = fs.openSync(ownerPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
        try {
          fs.writeSync(fd, this.ownerText);
        } finally {
          fs.closeSync(fd);
        }
      } catch (err) {
        // Cut short (a full disk): the lock still holds, recovered by its mtime only.
        const written = readOwner(build);
        if (written === undefined) throw err;
        this.ownerText = written.text;
      }
      placeLockDir(build, path);
    } catch (err) {
      removeLockDir(build);
      // ENOENT: a sweep took `build` for the litter of a gone process; try again.
      throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? heldError(path) : err;
    }
    // A sweep that removed the owner file from `build` before the rename left an empty
    // directory: a free lock, not ours.
    if (readOwner(path)?.text !== this.ownerText) throw heldError(path);
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
      const start = parseOwner(readOwner(path)?.text)?.start;
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
          const owner = readOwner(path);
          // Our own lock, probed by proper-lockfile just after it was made: as it is.
          if (owner?.text === this.ownerText) return st;
          const mtimeMs = this.judge(path, st.mtimeMs, owner);
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
            // Letting go (the owner file removed already), or proper-lockfile giving up a
            // lock it just made: ours, so its owner file, by our token's name, goes first.
            if (this.held === undefined && readOwner(path)?.text === this.ownerText) removeOwner(path, this.ownerFile);
            fs.rmdirSync(path);
            return;
          }
          this.takeOver(path, expected);
        })();
      },
      // proper-lockfile's exit handler, for a lock still held when the process exits.
      rmdirSync: (path: string) => {
        if (this.held !== undefined) removeOwner(path, ownerName(this.held.token));
        fs.rmdirSync(path);
      },
    };
  }
}

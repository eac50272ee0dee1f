/**
 * The sandbox's data store, shared by every petstore process that uses it: a snapshot
 * (`sandbox.json` in the config directory) and a journal beside it
 * (`sandbox.json.journal`), both mode 0600 (files: `data-files.ts`, formats: `codec.ts`).
 *
 * - **Creates append** one line per pet to the journal under the cross-process lock
 *   (`file-lock.ts`), so a create costs the same whatever the size of the store. Creates that
 *   arrive together in one process share one append.
 * - **Reads take no lock.** Each process keeps the data it has read; a read checks the
 *   snapshot's identity (inode, size, times) and reads only the journal bytes added
 *   since, so it sees every create committed before it began.
 * - **Compaction** folds the journal into a new snapshot once the journal is larger than
 *   the snapshot (and than `COMPACT_MIN_BYTES`): the snapshot of the next generation is
 *   written (temp file, fsync, rename), then a fresh journal whose header names that
 *   generation. A reader that meets a journal of an older generation ignores it (its pets
 *   are in the snapshot); one of a newer generation reads the snapshot again.
 * - **Crashes.** Whole-file writes are atomic; an append cut short leaves a last line
 *   without its newline, which readers ignore and the next writer cuts off. A journal
 *   append is not fsynced (a power cut may lose the last creates, never the store).
 * - **Idempotency keys** (`idempotency.ts`) are kept on their pets' lines for 24 hours and
 *   checked under the lock against data read under it, so two processes sending one key
 *   create one pet. Compaction keeps the live ones; `reset` (and any `update`) forgets them.
 *
 * Writers wait for the lock up to a deadline (`waitMs`), then fail with LockBusyError.
 */
import type { NewPet } from '../client/schemas.js';
import { TimeoutError } from '../base/errors.js';
import { DataFiles, fileError, seedData, type CreateItem, type CreateResult, type SandboxData } from './data-files.js';
import { IdempotencyKeyReusedError, type IdempotencyRequest } from './idempotency.js';
import { FileLock, LockBusyError, LockFileError, type WaitOptions } from '../fs/file-lock.js';

/** Options of a store. */
export interface SandboxStoreOptions {
  /** How long a change waits for the lock (ms) unless told otherwise; default 10 s. */
  waitMs?: number;
  /** Told when a change has waited a second for the lock, naming its holder. */
  onWait?: (message: string) => void;
  /**
   * Ends a wait for the lock of `read` (seeding), `prepareForWrites`, `update` and `reset`
   * (Ctrl-C); the wait then rejects with the signal's reason. Creates have their own.
   */
  signal?: AbortSignal;
}

/** Options of one create. */
export interface CreateOptions {
  /** Gives up waiting for the lock (the pet is then not created). */
  signal?: AbortSignal;
  /** How long to wait for the lock (ms); the store's `waitMs` by default. */
  waitMs?: number;
  /**
   * The request's `Idempotency-Key` and the fingerprint of its body (`idempotency.ts`
   * `requestFingerprint`); without it, a create always creates.
   */
  idempotency?: IdempotencyRequest;
}

const DEFAULT_WAIT_MS = 10_000;

/**
 * For a command (not the server): a LockBusyError as the CLI's TimeoutError (exit 3)
 * naming the lock and its holder; any other error unchanged.
 */
export function asCliError(err: unknown): unknown {
  if (!(err instanceof LockBusyError)) return err;
  return new TimeoutError(
    `gave up after ${(err.waitedMs / 1000).toFixed(1)} s waiting for the lock on the sandbox data (${err.lockPath}), held by ${err.holder ?? 'another process'}`,
    `If no petstore is using the sandbox, remove ${err.lockPath}; or allow a longer wait with --timeout.`,
  );
}

/** A create waiting for the next batch: what `DataFiles.append` settles, and its caller's bounds. */
interface PendingCreate extends CreateItem {
  started: number;
  deadline: number;
  signal: AbortSignal | undefined;
  resolve: (result: CreateResult) => void;
  reject: (err: unknown) => void;
}

/** A file-backed pet store shared by processes. */
export class SandboxStore {
  private readonly files: DataFiles;
  private readonly lock: FileLock;
  private readonly waitMs: number;
  private pending: PendingCreate[] = [];
  private flushing = false;

  /**
   * @param file the snapshot's path (`sandbox.json`); the journal and the lock sit beside it.
   * @param opts how long writers wait for the lock, what is said while they wait, and the
   * run's abort signal.
   */
  constructor(
    readonly file: string,
    private readonly opts: SandboxStoreOptions = {},
  ) {
    this.files = new DataFiles(file);
    this.lock = new FileLock(file);
    this.waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  }

  /**
   * The current data (every create committed before the call); seeds the files on first use.
   * @throws ConfigError when the files cannot be read or written or hold something else
   * (they are left as they are); LockBusyError when seeding waited too long for the lock.
   */
  async read(): Promise<SandboxData> {
    return this.files.refresh() ?? this.locked(Date.now() + this.waitMs, () => this.files.current());
  }

  /**
   * Checks that changes can be made: takes the lock, seeds the files if they are missing,
   * and repairs the journal (a cut-off last line, or a journal of another snapshot).
   * @throws ConfigError, LockBusyError as `read`.
   */
  async prepareForWrites(): Promise<void> {
    await this.locked(Date.now() + this.waitMs, () => this.files.prepareForWrites());
  }

  /**
   * Creates a pet: assigns the next id and appends it to the journal under the lock. With
   * `opts.idempotency` (IETF draft-ietf-httpapi-idempotency-key-header), a key another
   * create used within 24 hours with the same fingerprint (by any process, or earlier in
   * the same batch) creates nothing and resolves with that create's pet and `replayed:
   * true`; otherwise the key is kept with the new pet.
   * @returns `{ pet, replayed }`: the pet as stored (status filled in), and whether it is an
   * earlier create's.
   * @throws IdempotencyKeyReusedError when the key was used within 24 hours with another
   * fingerprint (nothing created); ConfigError when the files cannot be written (or the ids
   * ran out); LockBusyError when the lock was not had in time; the signal's reason when
   * aborted. A create that fails keeps no key.
   */
  create(pet: NewPet, opts: CreateOptions = {}): Promise<CreateResult> {
    return new Promise<CreateResult>((resolve, reject) => {
      if (opts.signal?.aborted === true) {
        reject(opts.signal.reason as Error);
        return;
      }
      const started = Date.now();
      const deadline = started + (opts.waitMs ?? this.waitMs);
      const { idempotency } = opts;
      this.pending.push({ pet, idempotency, started, deadline, signal: opts.signal, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // On the next turn of the event loop: creates whose requests arrived together (a bulk
      // create with requests in flight) go in one batch, one write.
      setImmediate(() => void this.flush());
    });
  }

  /**
   * Replaces the data with `change(current)` under the lock (both files rewritten), which
   * forgets every idempotency key. With `replace`, the current data is not read (so a
   * damaged file is replaced too) and `change` gets the seed.
   * @throws ConfigError, LockBusyError as `read`.
   */
  async update(
    change: (data: SandboxData) => SandboxData,
    opts: { replace?: boolean; waitMs?: number } = {},
  ): Promise<SandboxData> {
    return this.locked(Date.now() + (opts.waitMs ?? this.waitMs), () => {
      const current = opts.replace === true ? undefined : this.files.current();
      const next = change(current === undefined ? seedData() : { nextId: current.nextId, pets: [...current.pets] });
      return this.files.replace(next);
    });
  }

  /**
   * Restores the seed data (under the lock), whatever the files held, even if unreadable;
   * every idempotency key is forgotten.
   */
  async reset(opts: { waitMs?: number } = {}): Promise<SandboxData> {
    return this.update((seed) => seed, { replace: true, ...opts });
  }

  /** Gives back the lock if this process still holds it (see `file-lock.ts`, leases). */
  async close(): Promise<void> {
    await this.lock.close();
  }

  /** Runs `fn` holding the lock. */
  private async locked<T>(deadline: number, fn: () => T, wait: Partial<WaitOptions> = {}): Promise<T> {
    this.files.ensureDir();
    if (this.files.writeAtomic === undefined) {
      const { default: writeFileAtomic } = await import('write-file-atomic');
      this.files.writeAtomic = writeFileAtomic.sync;
    }
    try {
      const { onWait, signal } = this.opts;
      return await this.lock.run({ deadline, onWait, signal, ...wait }, () => Promise.resolve(fn()));
    } catch (err) {
      if (err instanceof LockFileError) throw fileError('create the lock', err.lockPath, err.cause);
      throw err;
    }
  }

  /**
   * Appends the pending creates, each batch in one write under the lock, until none is
   * left. A create whose deadline passes or whose signal aborts while waiting is dropped.
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    const stillWanted = (): boolean => {
      const now = Date.now();
      this.pending = this.pending.filter((p) => {
        if (p.signal?.aborted === true) p.reject(p.signal.reason);
        else if (now >= p.deadline) p.reject(new LockBusyError(this.lock.path, this.lock.holder(), now - p.started));
        else return true;
        return false;
      });
      return this.pending.length > 0;
    };
    while (stillWanted()) {
      let batch: PendingCreate[] = [];
      try {
        const deadline = Math.max(...this.pending.map((p) => p.deadline));
        const created = await this.locked(
          deadline,
          () => {
            batch = stillWanted() ? this.pending.splice(0) : [];
            return batch.length === 0 ? [] : this.files.append(batch);
          },
          // Each create has its own signal (its client), checked by stillWanted.
          { stillWanted, signal: undefined },
        );
        batch.forEach((p, i) => {
          const outcome = created[i] as CreateResult | IdempotencyKeyReusedError;
          if (outcome instanceof IdempotencyKeyReusedError) p.reject(outcome);
          else p.resolve(outcome);
        });
      } catch (err) {
        // A wait that ran out or was given up fails those still waiting; anything else
        // (a file that cannot be written) fails this batch and every create waiting.
        for (const p of [...batch, ...this.pending.splice(0)]) p.reject(err);
      }
    }
    this.flushing = false;
  }
}

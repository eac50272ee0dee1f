/**
 * The sandbox's two files as one process sees them (see `store.ts` for the design): the
 * snapshot `sandbox.json` and the journal `sandbox.json.journal`, both mode 0600, in the
 * formats of `codec.ts`. Keeps what it has read, so a refresh reads only what changed.
 *
 * All I/O here is synchronous, on purpose: these are a few small system calls, and a
 * writer runs them while holding the cross-process lock. Each asynchronous call would give
 * the CPU away and wait to be scheduled again, which on a busy machine (twenty petstore
 * processes on two cores) multiplied the time the lock was held.
 *
 * Methods that write must run under the lock. File-system problems become ConfigError
 * (exit 2) naming the path and the problem.
 *
 * Idempotency keys (`idempotency.ts`) live on their pets' lines (`codec.ts`); this process
 * keeps them by key as it reads the lines, and `append` decides create, replay or refusal
 * against data refreshed under the lock, so processes sharing the files agree.
 *
 * Trust (ssh's rule, src/fs/trust.ts; docs/configuration.md "Who may own petstore's files"):
 * the folder (the config directory, which may be a link) must pass before either file is
 * read or written; each file is opened without following a link and non-blocking, and
 * judged on its descriptor; a file about to be replaced or written is checked by `lstat`
 * first, so a link in its place is refused and never written through (write-file-atomic
 * would write to the link's target), and a FIFO or device is refused at once.
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { INT64_MAX, toJsonInt } from '../client/constants.js';
import type { NewPet, Pet } from '../client/schemas.js';
import { ConfigError, describeFileError } from '../base/errors.js';
import {
  checkFile,
  checkFolder,
  FileTooLargeError,
  openOwnedSync,
  readRestSync,
  refusalText,
  UntrustedPathError,
} from '../fs/trust.js';
import {
  decodeJournalHeader,
  decodeJournalPets,
  decodeSnapshot,
  encodeJournalHeader,
  encodePet,
  encodeSnapshot,
  type IdempotencyRecord,
  type JournalChunk,
  type KeyedLines,
} from './codec.js';
import { IdempotencyKeyReusedError, isLive, sameRequest, type IdempotencyRequest } from './idempotency.js';
import { SEED_NEXT_ID, SEED_PETS } from './seed.js';

/** The data as the server sees it. */
export interface SandboxData {
  /** The id the next create takes (never one of `pets`' ids). */
  nextId: bigint;
  pets: readonly Pet[];
}

/** One create given to `append`: the NewPet, and its `Idempotency-Key` with the body's fingerprint, if sent. */
export interface CreateItem {
  pet: NewPet;
  idempotency?: IdempotencyRequest;
}

/**
 * What a create gave: the pet, and whether it was made earlier by a request with the same
 * key and fingerprint (`replayed`: nothing was created now).
 */
export interface CreateResult {
  pet: Pet;
  replayed: boolean;
}

/** A key this process knows: the fingerprint it was used with, its pet, and when (epoch ms). */
interface KeyEntry {
  fingerprint: string;
  pet: Pet;
  at: number;
}

/** Seed data, fresh copy. */
export function seedData(): SandboxData {
  return { nextId: SEED_NEXT_ID, pets: SEED_PETS.map((p) => ({ ...p })) };
}

/** A journal smaller than this is never compacted (bytes). */
export const COMPACT_MIN_BYTES = 256 * 1024;
/**
 * The most bytes of the snapshot, or of the journal, read (256 MiB), counted while reading:
 * about a million pets with long names, far beyond what a sandbox for trying the API holds
 * (the tests' largest are a few MiB), and below V8's longest string (~512 MiB).
 */
const SANDBOX_MAX_BYTES = 256 * 1024 * 1024;
/** The hint under every message about data that is not what it should be. */
const RESET_HINT = 'Restore the seed data with `petstore sandbox reset`.';

/** What this process knows of the journal. */
interface JournalState {
  /** `dev:ino` of the file read. */
  key: string;
  /** Whether its header names the snapshot's generation (its pets are replayed). */
  applies: boolean;
  /** Bytes of complete lines read (where the next read starts). */
  offset: number;
  /** The file's size when last read. */
  size: number;
}

/** What this process knows of the data. */
interface State {
  /** `dev:ino:size:mtime:ctime` of the snapshot read. */
  snapshotKey: string;
  snapshotBytes: number;
  /** Not in the line-per-pet layout (slow to read): rewritten at the next change. */
  foreign: boolean;
  generation: number;
  /** The snapshot's own pets are `pets[0..baseCount)`; the journal's follow. */
  baseCount: number;
  baseNextId: bigint;
  /**
   * The ids of the snapshot's own pets at or above `baseNextId`, which no create may take
   * (`freeId`): the seed's Atlas (9007199254740993, far above the seed's next id), or pets a
   * hand-edited `sandbox.json` holds beyond its `nextId`.
   */
  heldAhead: ReadonlySet<bigint>;
  pets: Pet[];
  nextId: bigint;
  /** The keys of the snapshot's own pets (live or not), by key. */
  baseKeys: ReadonlyMap<string, KeyEntry>;
  /** `baseKeys` and those of the journal's pets; of two lines with one key, the later. */
  keys: Map<string, KeyEntry>;
  journal: JournalState | undefined;
}

/** The ids of `pets` at or above `nextId` (State.heldAhead). */
function idsAhead(pets: readonly Pet[], nextId: bigint): Set<bigint> {
  const ahead = new Set<bigint>();
  for (const p of pets) {
    const id = BigInt(p.id);
    if (id >= nextId) ahead.add(id);
  }
  return ahead;
}

/** The keys of `keyed` (lines of `pets`, by index), by key; of two lines with one key, the later. */
function keysOf(pets: readonly Pet[], keyed: KeyedLines | undefined): Map<string, KeyEntry> {
  const keys = new Map<string, KeyEntry>();
  for (const [i, { key, fingerprint, at }] of keyed ?? []) {
    const pet = pets[i];
    if (pet !== undefined) keys.set(key, { fingerprint, pet, at });
  }
  return keys;
}

/** The keys of `keys` still live at `now` (epoch ms), as the lines of `pets` they go on (a compaction's). */
function liveLines(pets: readonly Pet[], keys: ReadonlyMap<string, KeyEntry>, now: number): KeyedLines {
  const byPet = new Map<Pet, IdempotencyRecord>();
  for (const [key, { fingerprint, pet, at }] of keys) if (isLive(at, now)) byPet.set(pet, { key, fingerprint, at });
  const keyed: KeyedLines = new Map();
  if (byPet.size === 0) return keyed;
  for (const [i, pet] of pets.entries()) {
    const record = byPet.get(pet);
    if (record !== undefined) keyed.set(i, record);
  }
  return keyed;
}

/**
 * The id the next create takes: `state.nextId`, or the first id above it the store does not
 * hold. A pet's id identifies it (spec §2), so whatever `nextId` a file says, no two pets
 * share one; the journal's own pets are below `nextId` already. May return INT64_MAX + 1:
 * the ids have run out.
 */
function freeId(state: State): bigint {
  let next = state.nextId;
  while (state.heldAhead.has(next)) next += 1n;
  return next;
}

/** Writes a whole file atomically (write-file-atomic's `sync`: temp file, fsync, rename). */
export type AtomicWriter = (path: string, data: string, options: { mode: number }) => void;

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A hint that says what to do about a file-system error. */
function fileHint(err: unknown): string | undefined {
  switch (errnoCode(err)) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'Free some space on that disk, then try again.';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'Make the config directory writable, or point PETSTORE_CONFIG_DIR at another directory.';
    case 'EISDIR':
      return 'Move that directory away: the sandbox keeps its data in a file of that name.';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'Point PETSTORE_CONFIG_DIR at a directory.';
    default:
      return undefined;
  }
}

/** `cannot <action> <path>: <problem>` as a ConfigError with a hint. */
export function fileError(action: string, path: string, err: unknown): ConfigError {
  return new ConfigError(`cannot ${action} ${path}: ${describeFileError(err)}`, fileHint(err));
}

function snapshotKey(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** Closes a descriptor; a failure to close one only read from (or already reported) changes nothing. */
function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // See above.
  }
}

/** Opening a file of the sandbox's to write in place: never through a link, never waiting on a FIFO. */
const WRITE_IN_PLACE = fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** What the messages call the data file and the journal. */
const DATA_FILE = 'the sandbox data file';
const JOURNAL = 'the sandbox journal';

/**
 * An error of opening or checking `path` as the ConfigError of `action` on it: a refusal of
 * trust.ts names what failed the rule and the fix; a directory in a file's place keeps its
 * own words ("it is a directory", move it away); any other error is `fileError`'s.
 */
function refused(what: string, path: string, action: string, err: unknown): ConfigError {
  if (err instanceof ConfigError) return err;
  if (!(err instanceof UntrustedPathError)) return fileError(action, path, err);
  if (err.why === 'is not a regular file') {
    try {
      if (fs.lstatSync(err.path).isDirectory()) return fileError(action, err.path, { code: 'EISDIR' });
    } catch {
      // Gone meanwhile: the refusal below still says what was there.
    }
  }
  const { message, hint } = refusalText(what, err);
  return new ConfigError(message, hint === '' ? undefined : hint);
}

function notADirectory(dir: string, err: unknown): ConfigError {
  return new ConfigError(`cannot keep the sandbox data in ${dir}: it is not a directory`, fileHint(err));
}

function tooLarge(what: string, path: string): ConfigError {
  return new ConfigError(`${what} ${path} is larger than ${SANDBOX_MAX_BYTES / 1024 / 1024} MiB`, RESET_HINT);
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

/** The snapshot and journal of one data file. */
export class DataFiles {
  /** The journal, `<file>.journal`. */
  readonly journalFile: string;
  /** Set by the store before anything is written (loaded lazily: reads need none). */
  writeAtomic: AtomicWriter | undefined;
  private state: State | undefined;
  private dirReady = false;
  /** Whether the folder passed ssh's rule (judged once a process: only its owner or root can change that). */
  private dirTrusted = false;
  /** After a failed compaction, none is tried again below this journal size. */
  private compactRetryAt = 0;

  constructor(readonly file: string) {
    this.journalFile = `${file}.journal`;
  }

  /**
   * The current data, read without the lock: the snapshot again if it changed, then the
   * journal bytes added since the last read. Undefined when there is no snapshot yet.
   * @throws ConfigError when a file cannot be read or holds something else.
   */
  refresh(): SandboxData | undefined {
    const state = this.refreshState();
    return state === undefined ? undefined : { nextId: freeId(state), pets: state.pets };
  }

  /** Makes the config directory (0700) if it is missing. @throws ConfigError */
  ensureDir(): void {
    if (this.dirReady) return;
    const dir = dirname(this.file);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EEXIST' || code === 'ENOTDIR') throw notADirectory(dir, err);
      throw fileError('create the directory', dir, err);
    }
    this.trustDir();
    this.dirReady = true;
  }

  /**
   * Checks the folder (the config directory; a link to a folder is followed, its target
   * judged) against ssh's rule, once it exists. @throws ConfigError
   */
  private trustDir(): void {
    if (this.dirTrusted) return;
    const dir = dirname(this.file);
    try {
      this.dirTrusted = checkFolder(dir, true);
    } catch (err) {
      if (err instanceof UntrustedPathError && err.why === 'is not a folder')
        throw notADirectory(dir, { code: 'ENOTDIR' });
      throw refused('the config directory', dir, 'use the directory', err);
    }
  }

  /**
   * Opens one of the two files for reading: no link followed, non-blocking, judged on its
   * descriptor (trust.ts `openOwnedSync`). Undefined when it does not exist.
   * @throws ConfigError naming the path and the problem.
   */
  private openForReading(path: string, what: string, action: string): number | undefined {
    try {
      return openOwnedSync(path, { follow: false });
    } catch (err) {
      throw refused(what, path, action, err);
    }
  }

  /**
   * Before one of the two files is replaced or written in place: a link there is refused
   * (never written through), and so is a FIFO, a device or a file failing the rule.
   * @throws ConfigError naming the path, why, and the fix.
   */
  private checkWritable(path: string, what: string, action: string): void {
    try {
      checkFile(path);
    } catch (err) {
      throw refused(what, path, action, err);
    }
  }

  /** Under the lock: the current data, seeded when there is none. @throws ConfigError */
  current(): SandboxData {
    const state = this.refreshState() ?? this.writeAll(seedData(), 'seed');
    return { nextId: freeId(state), pets: state.pets };
  }

  /**
   * Under the lock: makes the journal ready for appends: a fresh one if it is missing or
   * belongs to another snapshot, and cut back to its last whole line.
   * @throws ConfigError
   */
  prepareForWrites(): void {
    this.prepareJournal(this.refreshState() ?? this.writeAll(seedData(), 'seed'));
  }

  /**
   * Under the lock: settles `items` in order against the data refreshed now, each seeing
   * the ones before it (IETF draft-ietf-httpapi-idempotency-key-header). An item whose key
   * another create used within 24 hours (`isLive`) is not created: the same request (the
   * fingerprint and the pet it asks for, `sameRequest`) is a replay of that create's pet,
   * another is an IdempotencyKeyReusedError. Every other item is created: the next id, `available`
   * without a status, its key (if any) kept on its line with the time. The created pets
   * are appended to the journal in one write, then compacted when the journal has grown
   * larger than the snapshot.
   * @returns one outcome per item, in order.
   * @throws ConfigError when the journal cannot be written (nothing was added, no key kept)
   * or the ids ran out.
   */
  append(items: readonly CreateItem[]): Array<CreateResult | IdempotencyKeyReusedError> {
    const state = this.refreshState() ?? this.writeAll(seedData(), 'seed');
    const now = Date.now();
    // This batch's keys: seen by its later items, kept in `state` once the write succeeded.
    const batchKeys = new Map<string, KeyEntry>();
    const created: Pet[] = [];
    const lines: string[] = [];
    let next = state.nextId;
    const outcomes = items.map(({ pet: p, idempotency: asked }): CreateResult | IdempotencyKeyReusedError => {
      const seen = asked === undefined ? undefined : (batchKeys.get(asked.key) ?? state.keys.get(asked.key));
      if (asked !== undefined && seen !== undefined && isLive(seen.at, now)) {
        const same = sameRequest(seen, {
          pet: { ...p, status: p.status ?? 'available' },
          fingerprint: asked.fingerprint,
        });
        return same ? { pet: seen.pet, replayed: true } : new IdempotencyKeyReusedError();
      }
      while (state.heldAhead.has(next)) next += 1n;
      if (next > INT64_MAX)
        throw new ConfigError(`the sandbox ran out of ids (the last is ${String(INT64_MAX)})`, RESET_HINT);
      const pet: Pet = { id: toJsonInt(next), name: p.name, categoryId: p.categoryId, status: p.status ?? 'available' };
      next += 1n;
      const record = asked === undefined ? undefined : { key: asked.key, fingerprint: asked.fingerprint, at: now };
      if (record !== undefined) batchKeys.set(record.key, { fingerprint: record.fingerprint, pet, at: now });
      created.push(pet);
      lines.push(encodePet(pet, record) + '\n');
      return { pet, replayed: false };
    });
    if (created.length > 0) this.commit(state, { created, lines, keys: batchKeys, nextId: next }, now);
    return outcomes;
  }

  /**
   * Under the lock: appends a batch's lines to the journal, then takes its pets and keys
   * into `state`, then compacts when due (keeping the keys still live at `now`).
   * @throws ConfigError when the journal cannot be written (`state` is left as it was).
   */
  private commit(
    state: State,
    batch: { created: Pet[]; lines: string[]; keys: ReadonlyMap<string, KeyEntry>; nextId: bigint },
    now: number,
  ): void {
    const journal = this.prepareJournal(state);
    const bytes = Buffer.from(batch.lines.join(''));
    this.appendBytes(bytes, journal.offset);
    state.pets.push(...batch.created);
    state.nextId = batch.nextId;
    for (const [key, entry] of batch.keys) state.keys.set(key, entry);
    journal.offset += bytes.length;
    journal.size = journal.offset;
    const due = state.foreign || journal.offset > Math.max(COMPACT_MIN_BYTES, state.snapshotBytes);
    if (due && journal.offset > this.compactRetryAt) {
      try {
        this.writeAll({ nextId: state.nextId, pets: state.pets }, 'compact', liveLines(state.pets, state.keys, now));
      } catch {
        // The pets are in the journal already; compaction can wait for more room.
        this.compactRetryAt = journal.offset * 2;
      }
    }
  }

  /**
   * Under the lock: writes `data` as a snapshot of the next generation, then a fresh journal
   * for it. Works whatever the old files hold (for seed and reset). Every idempotency key
   * is forgotten: `data` is the caller's, and a key must not replay a pet it did not create.
   * @throws ConfigError
   */
  replace(data: SandboxData): SandboxData {
    const state = this.writeAll(data, 'replace');
    return { nextId: freeId(state), pets: state.pets };
  }

  private appendBytes(bytes: Buffer, offset: number): void {
    const action = 'write the sandbox journal';
    this.checkWritable(this.journalFile, JOURNAL, action);
    let fd: number;
    try {
      fd = fs.openSync(this.journalFile, WRITE_IN_PLACE | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
    } catch (err) {
      throw fileError(action, this.journalFile, err);
    }
    try {
      const written = fs.writeSync(fd, bytes);
      if (written !== bytes.length) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    } catch (err) {
      // Cut off whatever part was written, so the journal still ends with a whole line.
      try {
        fs.ftruncateSync(fd, offset);
      } catch {
        // Readers ignore a last line without its newline; the next writer cuts it off.
      }
      throw fileError(action, this.journalFile, err);
    } finally {
      closeQuietly(fd);
    }
  }

  /** Cuts the journal back to `length` bytes, in place (never through a link). @throws ConfigError */
  private truncateJournal(length: number): void {
    const action = 'repair the sandbox journal';
    this.checkWritable(this.journalFile, JOURNAL, action);
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.journalFile, WRITE_IN_PLACE);
      fs.ftruncateSync(fd, length);
    } catch (err) {
      throw fileError(action, this.journalFile, err);
    } finally {
      if (fd !== undefined) closeQuietly(fd);
    }
  }

  private prepareJournal(state: State): JournalState {
    const j = state.journal;
    if (j?.applies !== true) return (state.journal = this.writeJournal(state.generation));
    if (j.size > j.offset) {
      this.truncateJournal(j.offset);
      j.size = j.offset;
    }
    return j;
  }

  private writeJournal(generation: number): JournalState {
    const header = encodeJournalHeader(generation);
    this.write(this.journalFile, JOURNAL, header, 'write the sandbox journal');
    const st = this.statOf(this.journalFile, 'read the sandbox journal');
    const size = Buffer.byteLength(header);
    return { key: `${st.dev}:${st.ino}`, applies: true, offset: size, size };
  }

  private write(path: string, what: string, text: string, action: string): void {
    if (this.writeAtomic === undefined) throw new Error('DataFiles.writeAtomic is not set');
    this.checkWritable(path, what, action);
    try {
      this.writeAtomic(path, text, { mode: 0o600 });
    } catch (err) {
      throw fileError(action, path, err);
    }
  }

  private statOf(path: string, action: string): fs.BigIntStats {
    try {
      return fs.statSync(path, { bigint: true });
    } catch (err) {
      throw fileError(action, path, err);
    }
  }

  /** Writes both files anew; `keyed`: the keys the snapshot's lines keep (by index in `data.pets`). */
  private writeAll(data: SandboxData, why: 'seed' | 'replace' | 'compact', keyed?: KeyedLines): State {
    const generation =
      (why === 'compact' && this.state !== undefined ? this.state.generation : this.lastGeneration()) + 1;
    // Both files are checked before either is written: a link in the journal's place must
    // not leave a new snapshot beside it.
    this.checkWritable(this.journalFile, JOURNAL, 'write the sandbox journal');
    const pets = [...data.pets];
    const text = encodeSnapshot({ generation, nextId: data.nextId, pets, keys: keyed });
    this.write(this.file, DATA_FILE, text, 'write the sandbox data file');
    const baseKeys = keysOf(pets, keyed);
    const state: State = {
      snapshotKey: snapshotKey(this.statOf(this.file, 'read the sandbox data file')),
      snapshotBytes: Buffer.byteLength(text),
      foreign: false,
      generation,
      baseCount: pets.length,
      baseNextId: data.nextId,
      heldAhead: idsAhead(pets, data.nextId),
      pets,
      nextId: data.nextId,
      baseKeys,
      keys: new Map(baseKeys),
      journal: undefined,
    };
    this.state = state;
    state.journal = this.writeJournal(generation);
    return state;
  }

  /** The highest generation either file names (or this process knows), 0 when none. */
  private lastGeneration(): number {
    let gen = this.state?.generation ?? 0;
    const head = (path: string, pattern: RegExp): void => {
      try {
        // Non-blocking and without following a link: a FIFO here must not stall the run.
        const fd = openOwnedSync(path, { follow: false });
        if (fd === undefined) return;
        try {
          const m = pattern.exec(readAt(fd, 0, 64).toString('utf8'));
          if (m !== null) gen = Math.max(gen, Number(m[1]));
        } finally {
          closeQuietly(fd);
        }
      } catch {
        // Unreadable or refused: it is being replaced anyway (or refused by the write).
      }
    };
    head(this.file, /^\{\s*"generation"\s*:\s*(\d{1,15})\b/);
    head(this.journalFile, /^\{"generation":(\d{1,15})\}/);
    return gen;
  }

  private refreshState(): State | undefined {
    try {
      return this.catchUp();
    } catch (err) {
      this.state = undefined; // Read everything again next time.
      throw err;
    }
  }

  private catchUp(): State | undefined {
    this.trustDir();
    let previous: string | undefined;
    for (;;) {
      const state = this.loadSnapshot();
      this.state = state;
      if (state === undefined) return undefined;
      // A journal newer than the snapshot means a compaction finished between the two
      // reads: read the snapshot again. If the snapshot did not change (one restored by
      // hand), the journal is ignored, and the next writer replaces it.
      if (this.readJournal(state, state.snapshotKey === previous)) return state;
      previous = state.snapshotKey;
    }
  }

  private loadSnapshot(): State | undefined {
    const fd = this.openForReading(this.file, DATA_FILE, 'read the sandbox data file');
    if (fd === undefined) return undefined;
    try {
      const st = fs.fstatSync(fd, { bigint: true });
      const key = snapshotKey(st);
      if (this.state?.snapshotKey === key) return this.state;
      const snapshot = decodeSnapshot(readRestSync(fd, this.file, SANDBOX_MAX_BYTES).toString('utf8'));
      if (typeof snapshot === 'string')
        throw new ConfigError(`${this.file}: not sandbox data: ${snapshot}`, RESET_HINT);
      const baseKeys = keysOf(snapshot.pets, snapshot.keys);
      return {
        snapshotKey: key,
        snapshotBytes: Number(st.size),
        foreign: snapshot.foreign === true,
        generation: snapshot.generation,
        baseCount: snapshot.pets.length,
        baseNextId: snapshot.nextId,
        heldAhead: idsAhead(snapshot.pets, snapshot.nextId),
        pets: snapshot.pets,
        nextId: snapshot.nextId,
        baseKeys,
        keys: new Map(baseKeys),
        journal: undefined,
      };
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      if (err instanceof FileTooLargeError) throw tooLarge(DATA_FILE, this.file);
      throw fileError('read the sandbox data file', this.file, err);
    } finally {
      closeQuietly(fd);
    }
  }

  /**
   * Reads the journal bytes added since the last read into `state`. Returns false when the
   * journal is of a newer generation than the snapshot (unless `ignoreNewer`).
   */
  private readJournal(state: State, ignoreNewer: boolean): boolean {
    const fd = this.openForReading(this.journalFile, JOURNAL, 'read the sandbox journal');
    if (fd === undefined) {
      if (state.journal?.applies === true) this.dropJournalPets(state);
      state.journal = undefined;
      return true;
    }
    try {
      const st = fs.fstatSync(fd, { bigint: true });
      const key = `${st.dev}:${st.ino}`;
      const size = Number(st.size);
      // Reads below never pass the size stat gave: the cap is kept by refusing a larger one.
      if (size > SANDBOX_MAX_BYTES) throw tooLarge(JOURNAL, this.journalFile);
      let j = state.journal;
      if (j === undefined || j.key !== key || size < j.offset || !j.applies) {
        if (j?.applies === true) this.dropJournalPets(state);
        state.journal = undefined;
        j = { key, applies: false, offset: 0, size };
        const head = decodeJournalHeader(readAt(fd, 0, Math.min(size, 64)));
        if (head !== undefined && 'problem' in head) throw this.damaged(1, head.problem);
        if (head !== undefined) {
          if (head.generation > state.generation && !ignoreNewer) return false;
          j.applies = head.generation === state.generation;
          if (j.applies) j.offset = head.length;
        }
      }
      if (j.applies && size > j.offset) {
        const chunk = decodeJournalPets(readAt(fd, j.offset, size - j.offset));
        if (chunk.badLine !== undefined)
          throw this.damaged(1 + state.pets.length - state.baseCount + chunk.badLine, 'not a Pet');
        this.applyJournalPets(state, chunk);
        j.offset += chunk.consumed;
      }
      j.size = size;
      state.journal = j;
      return true;
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw fileError('read the sandbox journal', this.journalFile, err);
    } finally {
      closeQuietly(fd);
    }
  }

  private damaged(line: number, why: string): ConfigError {
    return new ConfigError(`${this.journalFile}: line ${line} is ${why}; the sandbox data is damaged`, RESET_HINT);
  }

  private applyJournalPets(state: State, { pets, keys }: JournalChunk): void {
    for (const [i, pet] of pets.entries()) {
      const id = BigInt(pet.id);
      if (id < state.nextId) {
        throw new ConfigError(
          `${this.journalFile}: pet ${String(pet.id)} is out of order (the next id was ${String(state.nextId)}); the sandbox data is damaged`,
          RESET_HINT,
        );
      }
      state.pets.push(pet);
      state.nextId = id + 1n;
      const record = keys.get(i);
      if (record !== undefined) state.keys.set(record.key, { fingerprint: record.fingerprint, pet, at: record.at });
    }
  }

  private dropJournalPets(state: State): void {
    state.pets = state.pets.slice(0, state.baseCount);
    state.nextId = state.baseNextId;
    state.keys = new Map(state.baseKeys);
  }
}

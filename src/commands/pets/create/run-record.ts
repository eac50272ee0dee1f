/**
 * Bulk run records: what petstore remembers of each bulk create, in its own state directory
 * (`places.ts` `BulkPlaces.state`), so that sending an input again does not create its
 * pets twice (cli-contract.md "Bulk create"; the API cannot delete a pet, so a duplicate
 * cannot be undone). One small JSON file per input and target, named by a hash of both;
 * the input is known by its SHA-256, so a copy or a pipe of it is the same input. A record
 * says which lines were created, which may have been, and where the records not created
 * were saved. A remaining file petstore wrote gets a record of its own that points back
 * at its run; once every record of it is created, the file is removed if petstore can
 * prove it is the very file it wrote, unchanged (`removeIfWritten`: device, inode, size and
 * SHA-256, judged on an open descriptor), and the runs it came from count as complete. A
 * file of the user's, an edited remaining file included, is never removed or renamed.
 *
 * The records live in the state folder (`state-folder.ts`), used only when nobody else can
 * write it, each file read there judged on its descriptor: a record decides what is sent
 * and what is deleted, so one planted by another user must never be read. A run is marked
 * as under way by the lock of its record (`file-lock.ts`: `<key>.json.lock`), whose dead
 * holder's lock is taken over atomically: of many re-runs after a killed run, one sends.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { Connection } from '../../../config/settings.js';
import { CliError, ConfigError, describeFileError, ExitCode } from '../../../errors.js';
import { StateFolder, type HeldFile } from '../../../state-folder.js';
import { shellQuote } from '../../../suggest.js';
import { describeLines, type BulkAccount, type LineRange } from './account.js';
import { formatCount } from '../../../text/count.js';
import { removeIfWritten, type WrittenFile } from './remaining.js';

/** Where records are sent: the environment's name, and its base URL or sandbox data file. */
export interface RunTarget {
  environment: string;
  where: string;
}

/** The target of a run through `connection`; the embedded sandbox is named by its data file. */
export function runTarget(connection: Connection, sandboxData: string): RunTarget {
  const environment = connection.environment.value;
  return { environment, where: environment === 'sandbox' ? sandboxData : connection.baseUrl.value };
}

/** The input of a run, as pass 1 saw it. */
export interface RunInput {
  label: string;
  sha256: string;
  /** Its size in bytes. */
  size: number;
  /** A regular file's real path, device and inode (a remaining file is recognised by them). */
  file: { path: string; dev: number; ino: number } | undefined;
}

/** Least time between two records written while records are sent, in ms. */
const CHECKPOINT_MS = 1000;
/** Longest chain of remaining files followed. */
const MAX_CHAIN = 20;
/**
 * The most of a record read (bytes): far above what a run writes (its line ranges), a
 * bound for a file that is not one.
 */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
/** The most of a `.path` file read: it holds a 40-character key. */
const MAX_PATH_KEY_BYTES = 1024;

const Range = z.tuple([z.number(), z.number()]);
const FileSchema = z.object({
  path: z.string(),
  size: z.number(),
  sha256: z.string(),
  dev: z.number(),
  ino: z.number(),
});
const RunRecordSchema = z.object({
  version: z.literal(1),
  /** `unsent`: a remaining file petstore wrote, not sent yet. */
  state: z.enum(['running', 'stopped', 'complete', 'unsent']),
  pid: z.number(),
  environment: z.string(),
  input: z.string(),
  sha256: z.string(),
  records: z.number(),
  created: z.number(),
  createdRanges: z.array(Range),
  unknownLines: z.array(z.number()),
  remainingRanges: z.array(Range),
  /** The remaining file this run wrote. */
  remainingFile: FileSchema.nullable(),
  /** This input as petstore wrote it, when it is a remaining file, and the record of its run. */
  written: FileSchema.nullable(),
  from: z.string().nullable(),
  updatedAt: z.string(),
});
type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * Where an input came from when it is a remaining file petstore wrote: the file as written,
 * the record of the run that wrote it, and the content it had then. Found by the input's
 * content, or by its path when it was edited since (a record fixed by hand before sending
 * it again), in which case it is no longer the file petstore wrote and is never removed.
 */
interface Origin {
  written: WrittenFile;
  from: string | null;
  sha256: string;
}

/**
 * The records of one run: the earlier run of the same input into the same target, and
 * this run's own, written as it goes. Failing to keep them never stops a run: `warn` is
 * told once, and the run goes on unrecorded.
 */
export class RunHistory {
  /** This run's record and its lock, held from `begin` on. */
  private readonly own: HeldFile;
  private checkpointAt = -Infinity;
  private disabled = false;
  private readonly key: string;

  private constructor(
    private readonly folder: StateFolder,
    private readonly target: RunTarget,
    private readonly input: RunInput,
    private readonly previous: RunRecord | undefined,
    private readonly origin: Origin | undefined,
    private readonly opts: { now: () => Date; warn: (message: string) => void },
  ) {
    this.key = keyOf(target, input.sha256);
    this.own = folder.file(`${this.key}.json`);
  }

  /**
   * Checks the state folder `dir`, then reads the earlier record of `input` sent to
   * `target` (none when missing or unreadable), and, when the input is a remaining file
   * petstore wrote, where it came from.
   * @throws ConfigError (exit 2, nothing sent) when the state folder, or a file read there,
   * fails ssh's rule (see `state-folder.ts`).
   */
  static async open(
    dir: string,
    target: RunTarget,
    input: RunInput,
    opts: { now: () => Date; warn: (message: string) => void },
  ): Promise<RunHistory> {
    const folder = new StateFolder(dir);
    try {
      folder.check();
    } catch (err) {
      // A folder that cannot even be looked at: no record is read, and `begin` warns.
      if (err instanceof ConfigError) throw err;
    }
    const previous = await readRecord(folder, keyOf(target, input.sha256));
    let origin: Origin | undefined =
      previous?.written != null
        ? { written: previous.written, from: previous.from, sha256: previous.sha256 }
        : undefined;
    if (origin === undefined && input.file !== undefined) {
      const key = (await readState(folder, `${pathKeyOf(target, input.file.path)}.path`, MAX_PATH_KEY_BYTES)) ?? '';
      const wrote = /^[0-9a-f]{40}$/.test(key) ? await readRecord(folder, key) : undefined;
      if (wrote?.written?.path === input.file.path) {
        origin = { written: wrote.written, from: wrote.from, sha256: wrote.sha256 };
      }
    }
    return new RunHistory(folder, target, input, previous, origin, opts);
  }

  /**
   * Judges this run by the earlier one: an input whose earlier run is under way, or stopped
   * partway (some records created, or maybe created), is refused unless `force`; one
   * created in full before gets a warning.
   * @throws CliError `already_sent` (exit 2) naming the remaining file to send instead.
   */
  async judge(force: boolean, suggest: (words: string) => string): Promise<void> {
    const prev = this.previous;
    if (prev === undefined || prev.state === 'unsent') return;
    const when = `${prev.updatedAt.slice(0, 16).replace('T', ' ')} UTC`;
    if (prev.state === 'complete') {
      this.opts.warn(
        `every record of ${this.input.label} was created before (in ${prev.environment}, ${when}); sending it again creates them again`,
      );
      return;
    }
    if (force) return;
    if (prev.state === 'running' && isAlive(prev.pid)) {
      throw alreadySent(`${this.input.label} is being sent to ${prev.environment} now (process ${prev.pid})`);
    }
    if (prev.created + prev.unknownLines.length === 0) return;
    const rest = await this.newestRemaining(prev);
    const unknown =
      prev.unknownLines.length > 0
        ? `, and ${describeLines(prev.unknownLines.map((l): LineRange => [l, l]))} may have been`
        : '';
    const lines = `The records not created (${describeLines(prev.remainingRanges)})`;
    // A file saved and since removed was not "never saved": say where it went missing.
    const instead =
      rest !== undefined
        ? `Send the records not created instead: \`${suggest(`pets create --from-file ${shellQuote(rest)}`)}\`.`
        : prev.remainingFile != null
          ? `${lines} were saved to ${prev.remainingFile.path}, which is gone: send those lines.`
          : `${lines} were not saved: send those lines.`;
    throw alreadySent(
      `${this.input.label} was sent to ${prev.environment} before (${when}), and that run stopped partway: ${formatCount(prev.created)} of ${formatCount(prev.records)} records were created (${describeLines(prev.createdRanges)}${unknown}); sending it again would create them twice`,
      `${instead} Or add --force to send every record again (a pet cannot be deleted, so a duplicate cannot be undone).`,
    );
  }

  /** The newest remaining file of the chain from `record` that still exists. */
  private async newestRemaining(record: RunRecord): Promise<string | undefined> {
    let found: string | undefined;
    let at: RunRecord | undefined = record;
    for (let i = 0; i < MAX_CHAIN && at?.remainingFile != null; i++) {
      const file: WrittenFile = at.remainingFile;
      if (await exists(file.path)) found = file.path;
      const next = await readRecord(this.folder, keyOf(this.target, file.sha256));
      at = next?.state === 'stopped' ? next : undefined;
    }
    return found;
  }

  /**
   * Marks the run as under way: the lock of its record, which only one process holds at a
   * time (one left by a run that was killed is taken over), and the record. Another run of
   * the same input to the same target meanwhile is refused; one that finds the lock held
   * does not wait for it.
   * @throws CliError `already_sent` when one is under way (unless `force`); ConfigError
   * when the state folder, made now, fails ssh's rule.
   */
  async begin(account: BulkAccount, force: boolean): Promise<void> {
    let held: boolean;
    try {
      held = await this.own.hold();
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      this.fail(err);
      return;
    }
    if (!held && !force) {
      throw alreadySent(`${this.input.label} is being sent to ${this.target.environment} now, by another petstore`);
    }
    await this.checkpoint(account);
  }

  /** Writes the run's state at most every CHECKPOINT_MS while records are sent (what a killed run leaves). */
  async checkpoint(account: BulkAccount): Promise<void> {
    const t = this.opts.now().getTime();
    if (t - this.checkpointAt < CHECKPOINT_MS) return;
    this.checkpointAt = t;
    await this.save(this.key, this.record('running', account, null));
  }

  /**
   * Records how the run ended and the remaining file it wrote. When every record was
   * created and the input is a remaining file petstore wrote, still as written, removes it
   * and counts the runs it came from as complete.
   * @returns notes to print (the files removed).
   */
  async finish(account: BulkAccount, written: WrittenFile | undefined): Promise<string[]> {
    const complete = account.stop === undefined;
    await this.save(this.key, this.record(complete ? 'complete' : 'stopped', account, written ?? null));
    if (written !== undefined) {
      const key = keyOf(this.target, written.sha256);
      await this.save(key, this.unsent(written, account.notCreated));
      // Found by its path too, should it be edited before it is sent (a record fixed by hand).
      if (!this.disabled) {
        await this.folder
          .write(`${pathKeyOf(this.target, written.path)}.path`, key)
          .catch((err: unknown) => this.fail(err));
      }
    }
    const notes = complete ? await this.completeChain() : [];
    await this.own.close();
    return notes;
  }

  /** As `finish` for a run that stopped, synchronously (the process is about to end). */
  finishNow(account: BulkAccount): void {
    if (this.disabled) return;
    try {
      this.own.closeSync(JSON.stringify(this.record('stopped', account, null)));
    } catch {
      // The account on stderr still says what happened.
    }
  }

  /**
   * This input was created in full: if it is a remaining file petstore wrote (at its place,
   * edited or not), removes it when petstore can prove it is that very file, unchanged
   * (`removeIfWritten`), and so up the chain of runs it came from, each now complete. A
   * file that cannot be proven so is kept, and a note says why.
   * @returns notes to print (the files removed or kept).
   */
  private async completeChain(): Promise<string[]> {
    const notes: string[] = [];
    const self = this.input.file;
    // The input itself must be at the place petstore wrote it, not a copy of it elsewhere.
    if (this.origin === undefined || self?.path !== this.origin.written.path) return notes;
    let written: WrittenFile | null = this.origin.written;
    let from = this.origin.from;
    let sha = this.origin.sha256;
    for (let i = 0; i < MAX_CHAIN && written !== null; i++) {
      const removal = await removeIfWritten(written);
      if (removal.removed) notes.push(`removed ${written.path}: every record of it was created (petstore wrote it)`);
      else if (removal.why !== undefined) {
        notes.push(
          `kept ${written.path}: every record of it was created, but ${removal.why}; delete it yourself, as sending it again would create its pets again`,
        );
      }
      if (from === null) break;
      let parent: RunRecord | undefined;
      try {
        parent = await readRecord(this.folder, from);
      } catch (err) {
        // Sent already: what cannot be read now is said, not refused.
        this.opts.warn((err as Error).message);
        break;
      }
      if (parent?.remainingFile?.sha256 !== sha) break;
      await this.save(from, { ...parent, state: 'complete', remainingFile: null, remainingRanges: [] });
      written = parent.written;
      from = parent.from;
      sha = parent.sha256;
    }
    return notes;
  }

  private record(state: RunRecord['state'], account: BulkAccount, remainingFile: WrittenFile | null): RunRecord {
    return {
      version: 1,
      state,
      pid: process.pid,
      environment: this.target.environment,
      input: this.input.label,
      sha256: this.input.sha256,
      records: account.records,
      created: account.createdTotal,
      createdRanges: account.createdRanges(),
      unknownLines: account.mayBeCreatedLines(),
      remainingRanges: state === 'complete' ? [] : account.remainingRanges(),
      remainingFile,
      written: this.origin?.written ?? null,
      from: this.origin?.from ?? null,
      updatedAt: this.opts.now().toISOString(),
    };
  }

  /** The record of a remaining file this run wrote, holding `records` records. */
  private unsent(file: WrittenFile, records: number): RunRecord {
    return {
      version: 1,
      state: 'unsent',
      pid: process.pid,
      environment: this.target.environment,
      input: file.path,
      sha256: file.sha256,
      records,
      created: 0,
      createdRanges: [],
      unknownLines: [],
      remainingRanges: [],
      remainingFile: null,
      written: file,
      from: this.key,
      updatedAt: this.opts.now().toISOString(),
    };
  }

  private async save(key: string, record: RunRecord): Promise<void> {
    if (this.disabled) return;
    try {
      await this.folder.write(`${key}.json`, JSON.stringify(record));
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.disabled) return;
    this.disabled = true;
    this.opts.warn(
      `cannot keep a record of this run in ${this.folder.path}: ${describeFileError(err)}; a later run of the same input will not know what this one created`,
    );
  }
}

/**
 * The file name (without `.path`) that finds the record of the remaining file at `path`
 * written for `target`: 40 hex digits of a SHA-256.
 */
export function pathKeyOf(target: RunTarget, path: string): string {
  return createHash('sha256')
    .update(`${target.environment}\n${target.where}\npath\n${path}`)
    .digest('hex')
    .slice(0, 40);
}

/**
 * The file name (without `.json`) of the record of the input `sha256` (hex) sent to
 * `target`: 40 hex digits of a SHA-256.
 */
export function keyOf(target: RunTarget, sha256: string): string {
  return createHash('sha256').update(`${target.environment}\n${target.where}\n${sha256}`).digest('hex').slice(0, 40);
}

/**
 * The record `key` of the state folder, or undefined when there is none or it is not a
 * record (unparsable, another version's) or cannot be read.
 * @throws ConfigError when the file fails ssh's rule (`StateFolder.read`).
 */
async function readRecord(folder: StateFolder, key: string): Promise<RunRecord | undefined> {
  const bytes = await readState(folder, `${key}.json`, MAX_RECORD_BYTES);
  if (bytes === undefined) return undefined;
  try {
    const parsed = RunRecordSchema.safeParse(JSON.parse(bytes));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The text of the file `name` of the state folder, or undefined when there is none or it
 * cannot be read (as before: a record that cannot be read is no record).
 * @throws ConfigError when it fails ssh's rule.
 */
async function readState(folder: StateFolder, name: string, maxBytes: number): Promise<string | undefined> {
  try {
    return (await folder.read(name, maxBytes))?.toString('utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Whether process `pid` runs (a signal 0 reaches it, or it exists and is not ours). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function alreadySent(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: ExitCode.usage, code: 'already_sent', hint });
}

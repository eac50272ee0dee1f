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
 * The order of a run (cli-contract.md "Bulk create": "a run takes the record's lock first,
 * then judges what was sent, then asks the `confirmWrites` question, then sends"):
 *
 * 1. `hold`: the lock of the record (`file-lock.ts`: `<key>.json.lock`), without waiting:
 *    a live holder means the input is being sent now, and the run is refused; a dead
 *    holder's lock is taken over atomically (of many re-runs after a killed run, one takes
 *    it). Everything after this is judged by the one process that holds it.
 * 2. `recover`: a journal left beside the record (journal.ts) is a run that died before it
 *    folded it (`kill -9`, the OOM killer, a second signal): it is replayed into that run's
 *    account, the records it never sent are saved to a remaining file, and the account
 *    becomes the record, as if that run had stopped partway.
 * 3. `judge`: whether this run may send, by the record (refused with `already_sent`).
 * 4. The caller asks the `confirmWrites` question, still holding the lock.
 * 5. `begin`: this run's journal; every request's intent and outcome go there first.
 * 6. `finish`: the journal folded into the record, the journal removed, the lock let go.
 *
 * Every create carries an `Idempotency-Key` (`idempotencyKey`): from the run's identity (the
 * input's SHA-256, the target, and a random generation that a new run of the input makes
 * and a resumption, `--resend-unknown`, keeps) and the record's index in the input.
 *
 * The records live in the state folder (`state-folder.ts`), used only when nobody else can
 * write it, each file read there judged on its descriptor: a record decides what is sent
 * and what is deleted, so one planted by another user must never be read.
 */
import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { Connection } from '../../../config/settings.js';
import { CliError, ConfigError, describeFileError, ExitCode, UsageError } from '../../../base/errors.js';
import { StateFolder, type HeldFile } from '../../../fs/state-folder.js';
import { usedKeys } from '../../../base/mask.js';
import { shellQuote } from '../../../base/suggest.js';
import {
  BulkAccount,
  describeLines,
  describeUnprinted,
  joinLines,
  type LineRange,
  type Place,
  type UnknownRecord,
  type UnprintedPet,
} from './account.js';
import {
  appendRemaining,
  readJournal,
  replayEvents,
  RunJournal,
  type JournalEvent,
  type JournalHeader,
  type ReadJournal,
} from './journal.js';
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
  /** How many records it holds, and the line of the last one (a dead run's account is rebuilt with them). */
  records: number;
  lastLine: number;
}

/** Longest chain of remaining files followed. */
const MAX_CHAIN = 20;
/**
 * The most of a record read (bytes): far above what a run writes (its line ranges), a
 * bound for a file that is not one.
 */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
/** The most of a journal read (bytes): about 80 bytes a record, so some ten million records. */
const MAX_JOURNAL_BYTES = 1024 * 1024 * 1024;
/** The most of a `.path` file read: it holds a 40-character key. */
const MAX_PATH_KEY_BYTES = 1024;
/**
 * How long a server is taken to keep an idempotency key (ms): 24 hours, as the sandbox and
 * Stripe's API do (cli-contract.md "Bulk create": `--resend-unknown` "within 24 hours").
 */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

const Range = z.tuple([z.number(), z.number()]);
const FileSchema = z.object({
  path: z.string(),
  size: z.number(),
  sha256: z.string(),
  dev: z.number(),
  ino: z.number(),
});
const UnknownSchema = z.object({
  index: z.number(),
  line: z.number(),
  sentAt: z.number().nullable(),
  code: z.string(),
  status: z.number(),
  message: z.string(),
});
const RunRecordSchema = z.object({
  version: z.literal(1),
  /** `unsent`: a remaining file petstore wrote, not sent yet; `running`: an older petstore's checkpoint. */
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
  // Written since the journal (absent from the records of older petstores):
  /** The run's generation: its idempotency keys' identity (`idempotencyKey`). */
  generation: z.string().optional(),
  /** The token of the journal this record folded (journal.ts `JournalHeader.run`). */
  run: z.string().optional(),
  /** How the run ended when it could not say so itself: killed, or ended by a second signal. */
  ended: z.enum(['killed', 'forced']).optional(),
  /** The records that may have been created, by input index, with when they were first sent (epoch ms). */
  unknownRecords: z.array(UnknownSchema).optional(),
  /** Created pets whose ids may not have reached stdout, by input index. */
  unprinted: z.array(z.object({ index: z.number(), line: z.number(), id: z.string() })).optional(),
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

/** What a run sends, once judged: every record, or (`--resend-unknown`) the unknown ones again. */
export type RunPlan = { mode: 'all' } | { mode: 'resend'; records: readonly UnknownRecord[] };

/**
 * Saves the records not created of an account to a remaining file (`saveRemaining`):
 * `isRemaining` says which, by input index. Resolves with the file as written, or
 * undefined when it could not be (the account says why).
 */
export type SaveRemaining = (
  account: BulkAccount,
  isRemaining: (inputIndex: number) => boolean,
) => Promise<WrittenFile | undefined>;

/**
 * The records of one input sent to one target, held by one run from `hold` to `finish`
 * (see the module comment for the order of a run).
 */
export class RunHistory {
  /** The record's file and its lock. */
  private readonly own: HeldFile;
  private readonly key: string;
  /** This run's token (journal.ts `JournalHeader.run`). */
  private readonly token = randomBytes(8).toString('hex');
  private previous: RunRecord | undefined;
  private origin: Origin | undefined;
  private leftover: ReadJournal | undefined;
  /** Whether this run folded a dead run's journal (`recover`). */
  private recovered = false;
  private journal: RunJournal | undefined;
  /** The generation of this run's keys: a dead run's while it is folded, then new or a resumed run's (`judge`). */
  private generation = '';
  /** A resumption's records, by input index in order; null for a run over the whole input. */
  private resend: number[] | null = null;
  /** `resend` by input index (`positionOf`). */
  private positions: Map<number, number> | undefined;
  private runId: string | undefined;

  private constructor(
    private readonly folder: StateFolder,
    private readonly target: RunTarget,
    private readonly input: RunInput,
    private readonly opts: { now: () => Date; warn: (message: string) => void },
  ) {
    this.key = keyOf(target, input.sha256);
    this.own = folder.file(`${this.key}.json`);
  }

  /**
   * The history of `input` sent to `target`, kept in the state folder `dir`; nothing is
   * read or written until `hold`.
   * @throws ConfigError (exit 2, nothing sent) when the state folder fails ssh's rule (see
   * `state-folder.ts`).
   */
  static open(
    dir: string,
    target: RunTarget,
    input: RunInput,
    opts: { now: () => Date; warn: (message: string) => void },
  ): RunHistory {
    const folder = new StateFolder(dir);
    try {
      folder.check();
    } catch (err) {
      // A folder that cannot even be looked at: `hold` says why.
      if (err instanceof ConfigError) throw err;
    }
    return new RunHistory(folder, target, input, opts);
  }

  /**
   * Takes the lock of the record (making the state folder when it is missing) without
   * waiting for it, then reads the record, where the input came from (when it is a
   * remaining file petstore wrote), and a journal a dead run left.
   * @throws CliError `already_sent` (exit 2) when a live process holds the lock: the input
   * is being sent now; ConfigError (exit 2, nothing sent) when the state folder fails ssh's
   * rule, or cannot be made or written (without a record a re-run could not know what this
   * one created).
   */
  async hold(): Promise<void> {
    let held: Awaited<ReturnType<HeldFile['hold']>>;
    try {
      held = await this.own.hold();
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw this.cannotKeep(err);
    }
    if (held !== true) {
      throw alreadySent(
        `${this.input.label} is being sent to ${this.target.environment} now, by another petstore${held.holder === undefined ? '' : ` (${held.holder})`}`,
      );
    }
    this.previous = await readRecord(this.folder, this.key);
    this.origin = await this.findOrigin();
    const bytes = await this.folder.read(`${this.key}.journal`, MAX_JOURNAL_BYTES).catch((err: unknown) => {
      if (err instanceof ConfigError) throw err;
      throw this.cannotKeep(err);
    });
    this.leftover = bytes === undefined ? undefined : readJournal(bytes);
    // A journal with no header (cut short as it was made): nothing was sent from it.
    if (bytes !== undefined && this.leftover === undefined) await this.removeJournal();
  }

  /** Where the input came from, when it is a remaining file petstore wrote (`Origin`). */
  private async findOrigin(): Promise<Origin | undefined> {
    const previous = this.previous;
    if (previous?.written != null) return { written: previous.written, from: previous.from, sha256: previous.sha256 };
    const file = this.input.file;
    if (file === undefined) return undefined;
    const key = (await readState(this.folder, `${pathKeyOf(this.target, file.path)}.path`, MAX_PATH_KEY_BYTES)) ?? '';
    const wrote = /^[0-9a-f]{40}$/.test(key) ? await readRecord(this.folder, key) : undefined;
    if (wrote?.written?.path !== file.path) return undefined;
    return { written: wrote.written, from: wrote.from, sha256: wrote.sha256 };
  }

  /**
   * Folds the journal of a run that died before folding it (`kill -9`, a second signal):
   * its account is rebuilt from the journal (a record with an intent and no outcome is
   * unknown), the records it did not create are saved with `save` (unless it saved them
   * itself, or `save` is undefined: `--force` sends everything again), and the account
   * becomes the record, as for a run that stopped partway (`judge` then refuses it).
   * @throws ConfigError (exit 2, nothing sent) when the record cannot be written.
   */
  async recover(save: SaveRemaining | undefined): Promise<void> {
    const left = this.leftover;
    this.leftover = undefined;
    if (left === undefined) return;
    // Folded already (the run died between writing its record and removing its journal),
    // or nothing was ever sent from it.
    if (left.header.run === this.previous?.run || !left.sentAny) {
      await this.removeJournal();
      return;
    }
    this.generation = left.header.generation;
    this.resend = left.header.resend;
    this.positions = undefined;
    const { account, written: saved, ended } = this.replay(left);
    let written = saved;
    const mine = written === undefined && save !== undefined && account.notCreated > 0;
    if (mine) written = await save(account, (i) => account.isRemaining(this.positionOf(i)));
    // Named by the dead run's token: a run that dies before removing the journal leaves a
    // journal its record has folded already.
    const record = { ...this.fold(account, written, false), ended, run: left.header.run };
    try {
      // Said in the journal first: a run that dies before the record is written uses this
      // file rather than write a second one.
      if (mine && written !== undefined) appendRemaining(this.folder.pathOf(`${this.key}.journal`), written);
      await this.folder.write(`${this.key}.json`, JSON.stringify(record));
    } catch (err) {
      // Nothing changed: the file just written goes again, and the journal stays to be folded.
      if (mine && written !== undefined) await removeIfWritten(written);
      throw this.cannotKeep(err);
    }
    if (written !== undefined) await this.noteRemaining(written, account.notCreated);
    await this.removeJournal();
    this.previous = record;
    this.recovered = true;
    this.resend = null;
    this.positions = undefined;
  }

  /**
   * The account of the dead run `left`, replayed from its events: the records under way
   * when it died are unknown; with the remaining file it wrote, if any.
   */
  private replay(left: ReadJournal): {
    account: BulkAccount;
    written: WrittenFile | undefined;
    ended: 'killed' | 'forced';
  } {
    const { header } = left;
    const resend = header.resend !== null;
    const account = new BulkAccount(resend ? (header.resend?.length ?? 0) : this.input.records, this.input.lastLine, {
      resend,
    });
    const place = (p: Place): Place => ({ index: this.positionOf(p.index), line: p.line });
    let written: WrittenFile | undefined;
    let ended: 'killed' | 'forced' = 'killed';
    replayEvents(
      left,
      (event) => {
        written = applyEvent(account, event, place) ?? written;
        if (event.kind === 'ended') ended = 'forced';
      },
      // The pets below the mark were written to stdout.
      (below) => account.printedBefore((i) => this.inputIndexOf(i) < below),
    );
    account.endedByForce(
      new CliError('the run was killed while the request was under way', {
        exitCode: ExitCode.failure,
        code: 'interrupted',
      }),
    );
    if (written !== undefined) account.saved = { file: written.path };
    return { account, written, ended };
  }

  /**
   * The position in this run of the record at input index `index`: the same, but in a
   * resumption its place among the records sent again (-1 for one it does not send).
   */
  positionOf(index: number): number {
    if (this.resend === null) return index;
    this.positions ??= new Map(this.resend.map((inputIndex, position) => [inputIndex, position]));
    return this.positions.get(index) ?? -1;
  }

  /** How many records a resumption sends again (0 for a run over the whole input). */
  resendCount(): number {
    return this.resend?.length ?? 0;
  }

  /** The input index of the record at `position` in this run. */
  inputIndexOf(position: number): number {
    return this.resend === null ? position : (this.resend[position] ?? position);
  }

  /**
   * Judges this run by the record: an input whose earlier run stopped partway (some records
   * created, or maybe created) — or was killed — is refused unless `mode.force`; one created
   * in full before gets a warning. With `mode.resend`, the records that earlier run left
   * unknown are sent again with their keys, if that run was within 24 hours.
   * @returns what to send.
   * @throws CliError `already_sent` (exit 2) naming the remaining file to send instead;
   * UsageError (exit 2) when `--resend-unknown` finds nothing to send again, or records sent
   * more than 24 hours ago.
   */
  async judge(mode: { force: boolean; resend: boolean }, suggest: (words: string) => string): Promise<RunPlan> {
    const prev = this.previous;
    this.runId = undefined;
    if (mode.resend) return this.judgeResend(prev, suggest);
    // A new run of the input: new keys, whatever a dead run it folded used.
    this.generation = randomBytes(16).toString('hex');
    const when = prev === undefined ? '' : describeWhen(prev.updatedAt);
    if (prev === undefined || prev.state === 'unsent') return { mode: 'all' };
    if (prev.state === 'complete') {
      this.opts.warn(
        `every record of ${this.input.label} was created before (in ${prev.environment}, ${when}); sending it again creates them again`,
      );
      return { mode: 'all' };
    }
    if (mode.force) {
      if (this.recovered) {
        this.opts.warn(
          `${this.input.label} was sent to ${prev.environment} before (${when}), and that run ${endedWords(prev)}: ${summary(prev)}; --force sends every record again`,
        );
      }
      return { mode: 'all' };
    }
    if (prev.created + prev.unknownLines.length === 0) return { mode: 'all' };
    throw await this.refusal(prev, suggest);
  }

  /** The `already_sent` refusal of an input whose earlier run `prev` stopped partway. */
  private async refusal(prev: RunRecord, suggest: (words: string) => string): Promise<CliError> {
    const rest = await this.newestRemaining(prev);
    const lines = `The records not created (${describeLines(prev.remainingRanges)})`;
    // A file saved and since removed was not "never saved": say where it went missing.
    const instead =
      rest !== undefined
        ? `Send the records not created (${describeLines(prev.remainingRanges)}) instead: \`${suggest(`pets create --from-file ${shellQuote(rest)}`)}\`.`
        : prev.remainingFile != null
          ? `${lines} were saved to ${prev.remainingFile.path}, which is gone: send those lines.`
          : prev.remainingRanges.length > 0
            ? `${lines} were not saved: send those lines.`
            : '';
    const unknown = prev.unknownRecords ?? [];
    const resend =
      unknown.length > 0 && prev.generation !== undefined
        ? ` Where the server honours Idempotency-Key (idempotencyKeys), \`${suggest(`pets create --from-file ${this.argument()} --resend-unknown`)}\` sends the records that may have been created again, with their keys, within 24 hours of the run.`
        : '';
    const unprinted = (prev.unprinted ?? []) as UnprintedPet[];
    const ids = unprinted.length > 0 ? ` That run's ${describeUnprinted(unprinted)}.` : '';
    return alreadySent(
      `${this.input.label} was sent to ${prev.environment} before (${describeWhen(prev.updatedAt)}), and that run ${endedWords(prev)}: ${summary(prev)}; sending it again would create them twice`,
      `${instead}${resend} Or add --force to send every record again (a pet cannot be deleted, so a duplicate cannot be undone).${ids}`.trim(),
      recordDetails(prev),
    );
  }

  /**
   * Judges a resumption (`--resend-unknown`): the earlier run's unknown records, each sent
   * again with its own key (same generation, same index), if they were first sent within
   * 24 hours (after that the server may have forgotten the keys).
   * @throws UsageError (exit 2, nothing sent) when there is nothing to send again.
   */
  private judgeResend(prev: RunRecord | undefined, suggest: (words: string) => string): RunPlan {
    const where = `${this.input.label} sent to ${this.target.environment}`;
    const unknown = prev?.unknownRecords ?? [];
    if (prev === undefined || prev.state === 'unsent' || prev.state === 'complete' || prev.unknownLines.length === 0) {
      throw new UsageError(
        `--resend-unknown: no run of ${where} left records whose outcome is unknown; nothing was sent`,
        prev?.state === 'complete'
          ? 'Every record of it was created.'
          : `Send it without --resend-unknown: \`${suggest(`pets create --from-file ${this.argument()}`)}\`.`,
      );
    }
    if (prev.generation === undefined || unknown.length === 0) {
      throw new UsageError(
        `--resend-unknown: the record of the run of ${where} was written by an older petstore and does not say which Idempotency-Key each record was sent with; nothing was sent`,
        `Check which of ${describeLines(joinLines(prev.unknownLines))} exist with \`${suggest('pets list --all')}\`, and send the missing ones from a file of their own.`,
      );
    }
    const first = Math.min(...unknown.map((r) => r.sentAt ?? Date.parse(prev.updatedAt)));
    if (this.opts.now().getTime() - first >= KEY_LIFETIME_MS) {
      throw new UsageError(
        `--resend-unknown: the records of ${where} whose outcome is unknown were first sent at ${describeWhen(new Date(first).toISOString())}, more than 24 hours ago: the server may have forgotten their Idempotency-Keys, so sending them again could create them twice; nothing was sent`,
        `Check which of ${describeLines(joinLines(prev.unknownLines))} exist with \`${suggest('pets list --all')}\`, and send the missing ones from a file of their own.`,
      );
    }
    this.generation = prev.generation;
    const records = [...unknown]
      .sort((a, b) => a.index - b.index)
      .map((r) => ({ ...r, sentAt: r.sentAt ?? undefined }));
    this.resend = records.map((r) => r.index);
    this.positions = undefined;
    return { mode: 'resend', records };
  }

  /**
   * The `Idempotency-Key` of the record at input index `index`: the run's identity (the
   * input's SHA-256, the target and the generation) and the index, so a resumption sends a
   * record with the very key it was first sent with, and a new run with a new one
   * (draft-ietf-httpapi-idempotency-key-header: unique per intended operation).
   */
  idempotencyKey(index: number): string {
    this.runId ??= createHash('sha256')
      .update(`${this.generation}\n${this.input.sha256}\n${this.target.environment}\n${this.target.where}`)
      .digest('hex')
      .slice(0, 32);
    return `${this.runId}-${index}`;
  }

  /**
   * Starts this run's journal (journal.ts), which the account writes ahead into from the
   * first request on.
   * @returns the journal.
   * @throws ConfigError (exit 2, nothing sent) when it cannot be made.
   */
  begin(records: number): RunJournal {
    const header: JournalHeader = {
      run: this.token,
      generation: this.generation,
      records,
      resend: this.resend,
      at: this.opts.now().getTime(),
    };
    try {
      this.journal = RunJournal.create(this.folder.pathOf(`${this.key}.journal`), header);
    } catch (err) {
      throw this.cannotKeep(err);
    }
    return this.journal;
  }

  /**
   * The remaining file of this run was written: a run that folds its journal uses it, not a
   * second one.
   * @returns whether the journal says so (false when it cannot be written: a full disk).
   */
  remainingWritten(file: WrittenFile): boolean {
    return this.journal?.remaining(file) ?? false;
  }

  /**
   * Folds the journal into the record and removes it; records the remaining file this run
   * wrote. When every record was created and the input is a remaining file petstore wrote,
   * still as written, removes it and counts the runs it came from as complete. Lets go of
   * the lock. A record that cannot be written leaves the journal for the next run to fold.
   * @returns notes to print (the files removed).
   */
  async finish(account: BulkAccount, written: WrittenFile | undefined): Promise<string[]> {
    const record = this.fold(account, written, account.stop === undefined);
    let notes: string[] = [];
    try {
      await this.folder.write(`${this.key}.json`, JSON.stringify(record));
      this.journal?.close();
      await this.removeJournal();
      if (written !== undefined) await this.noteRemaining(written, account.notCreated);
      if (record.state === 'complete') notes = await this.completeChain();
    } catch (err) {
      this.opts.warn(
        `cannot write the record of this run in ${this.folder.path}: ${describeFileError(err)}; its journal stays there, and the next run of the same input reads it`,
      );
    } finally {
      this.journal?.close();
      await this.own.close();
    }
    return notes;
  }

  /**
   * The process is ending by force (`signal`, a second one): the journal says so and stays
   * for the next run to fold (it holds every outcome already); the lock is let go at once.
   */
  finishNow(signal: string): void {
    this.journal?.endedByForce(signal);
    this.journal?.close();
    this.own.releaseSync();
  }

  /**
   * Lets go of the lock of a run that did not finish (refused, or failed before sending);
   * a journal it began stays for the next run to fold.
   */
  async close(): Promise<void> {
    this.journal?.close();
    await this.own.close();
  }

  /** The record of `account` (this run's, or a resumption's folded into the one it resumes). */
  private fold(account: BulkAccount, written: WrittenFile | undefined, complete: boolean): RunRecord {
    const base = this.resend === null ? undefined : this.previous;
    const unknownRecords = account.unknownDetails().map((r) => this.unknownEntry(r));
    const unprinted = account
      .unprintedPets()
      .map((p) => ({ index: this.inputIndexOf(p.index), line: p.line, id: p.id }));
    const own = {
      version: 1 as const,
      pid: process.pid,
      environment: this.target.environment,
      input: this.input.label,
      sha256: this.input.sha256,
      records: this.input.records,
      written: this.origin?.written ?? null,
      from: this.origin?.from ?? null,
      updatedAt: this.opts.now().toISOString(),
      generation: this.generation,
      run: this.token,
    };
    if (base === undefined) {
      return {
        ...own,
        state: complete ? 'complete' : 'stopped',
        created: account.createdTotal,
        createdRanges: account.createdRanges(),
        unknownLines: unknownRecords.map((r) => r.line),
        remainingRanges: complete ? [] : account.remainingRanges(),
        remainingFile: written ?? null,
        unknownRecords,
        unprinted,
      };
    }
    // A resumption: its records were the base's unknown ones.
    const settled = new Set(account.settledPositions().map((p) => this.inputIndexOf(p)));
    const stillUnknown = (base.unknownRecords ?? []).filter((r) => !settled.has(r.index));
    const created = base.created + account.createdTotal;
    const remainingRanges = mergeRanges([...base.remainingRanges, ...account.remainingRanges()]);
    return {
      ...own,
      state: created === this.input.records ? 'complete' : 'stopped',
      created,
      createdRanges: mergeRanges([...base.createdRanges, ...account.createdRanges()]),
      unknownLines: stillUnknown.map((r) => r.line),
      remainingRanges,
      remainingFile: base.remainingFile ?? written ?? null,
      unknownRecords: stillUnknown,
      unprinted: [...(base.unprinted ?? []), ...unprinted],
    };
  }

  /** An unknown record of the account as the record keeps it: by input index, with when it was first sent. */
  private unknownEntry(r: UnknownRecord): z.infer<typeof UnknownSchema> {
    return {
      index: this.inputIndexOf(r.index),
      line: r.line,
      sentAt: r.sentAt ?? null,
      // Kept past the run: the key is masked as in its messages (the journal's rule).
      code: usedKeys.mask(r.code),
      status: r.status,
      message: usedKeys.mask(r.message),
    };
  }

  /**
   * Records the remaining file `written` (holding `records` records): its own record, so a
   * run of it is known to come from this one, and the `.path` file that finds it by its
   * place should it be edited before it is sent. Failing to is warned of, not refused.
   */
  private async noteRemaining(written: WrittenFile, records: number): Promise<void> {
    const key = keyOf(this.target, written.sha256);
    try {
      await this.folder.write(`${key}.json`, JSON.stringify(this.unsent(written, records)));
      await this.folder.write(`${pathKeyOf(this.target, written.path)}.path`, key);
    } catch (err) {
      this.opts.warn(
        `cannot keep a record of ${written.path} in ${this.folder.path}: ${describeFileError(err)}; once its records are created, petstore will not remove it`,
      );
    }
  }

  private async removeJournal(): Promise<void> {
    await this.folder.remove(`${this.key}.journal`);
  }

  /** The refusal of a run that cannot keep its record: nothing was sent. */
  private cannotKeep(err: unknown): ConfigError {
    return new ConfigError(
      `cannot keep the record of this run in ${this.folder.path}: ${describeFileError(err)}; without it a later run could not know what this one created, so nothing was sent`,
      'Free some space or make the folder writable, or set PETSTORE_STATE_DIR to a folder of your own.',
    );
  }

  /** The input as a `--from-file` value in a suggested command: its path, or `-` for stdin (send it again). */
  private argument(): string {
    return shellQuote(this.input.file?.path ?? '-');
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
    // The records of the remaining file just created in full, then of each input up the chain.
    let records = this.input.records;
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
      // Its remaining records are created now; records it left unknown still may not be.
      const done: RunRecord = {
        ...parent,
        state: parent.unknownLines.length > 0 ? 'stopped' : 'complete',
        created: parent.created + records,
        createdRanges: mergeRanges([...parent.createdRanges, ...parent.remainingRanges]),
        remainingFile: null,
        remainingRanges: [],
      };
      await this.folder.write(`${from}.json`, JSON.stringify(done));
      if (done.state !== 'complete') break;
      records = parent.records;
      written = parent.written;
      from = parent.from;
      sha = parent.sha256;
    }
    return notes;
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
}

/**
 * Applies one journal event to `account` (a dead run's, being rebuilt), its places turned
 * into the account's by `place`.
 * @returns the remaining file the event names, if it is one.
 */
function applyEvent(account: BulkAccount, event: JournalEvent, place: (p: Place) => Place): WrittenFile | undefined {
  switch (event.kind) {
    case 'intent':
      for (const r of event.records) account.dispatch(place(r), event.at);
      return undefined;
    case 'created':
      account.settleCreated(place(event.record), event.id);
      return undefined;
    case 'failed':
    case 'unknown':
      account.settleNotCreated(place(event.record), event.kind, event.error);
      return undefined;
    case 'back':
      account.unsend(place(event.record));
      return undefined;
    case 'remaining':
      return event.file;
    case 'ended':
      return undefined;
  }
}

/** `2026-11-28 22:05 UTC` of an ISO time. */
function describeWhen(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** How the run of `record` ended, in words that follow "that run". */
function endedWords(record: RunRecord): string {
  if (record.ended === 'killed') return 'ended before it saved its account (killed, or its disk full)';
  if (record.ended === 'forced') return 'was ended by force (a second signal) before it finished';
  return 'stopped partway';
}

/** `3 of 10 records were created (lines 1-3), and line 4 may have been`. */
function summary(record: RunRecord): string {
  const unknown =
    record.unknownLines.length > 0 ? `, and ${describeLines(joinLines(record.unknownLines))} may have been` : '';
  const created = record.created === 0 ? 'none' : describeLines(record.createdRanges);
  return `${formatCount(record.created)} of ${formatCount(record.records)} records were created (${created}${unknown})`;
}

/** The account of `record` as fields of the JSON refusal (docs/commands.md "pets create"). */
function recordDetails(record: RunRecord): Record<string, unknown> {
  const lines = (ranges: LineRange[]): { lines: LineRange }[] => ranges.map((r) => ({ lines: r }));
  return {
    records: record.records,
    created: record.created,
    createdRanges: lines(record.createdRanges),
    unknown: (
      record.unknownRecords ?? record.unknownLines.map((line) => ({ line, code: 'unknown', status: 0, message: '' }))
    ).map((r) => ({ line: r.line, code: r.code, message: r.message, status: r.status })),
    remainingFile: record.remainingFile?.path ?? null,
    remainingRanges: lines(record.remainingRanges),
    idsNotPrinted: (record.unprinted ?? []).map((p) => ({ line: p.line, id: p.id })),
  };
}

/** Line ranges in order, overlapping or adjacent ones joined. */
function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const merged: LineRange[] = [];
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = merged[merged.length - 1];
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
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

function alreadySent(message: string, hint?: string, details?: CliError['details']): CliError {
  return new CliError(message, { exitCode: ExitCode.usage, code: 'already_sent', hint, details });
}

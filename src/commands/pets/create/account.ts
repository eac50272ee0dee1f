/**
 * The account of a bulk create (cli-contract.md "Bulk create", "Network behaviour": a write
 * command reports which records were created, failed, unknown and not sent). Records are
 * settled into it as their answers come: created ones as ranges of lines (memory does not
 * grow with the input; their ids are on stdout), failed and unknown ones each with its line
 * and error, the rest not sent; and where the records not created were saved, or why they
 * could not be. Rendered as a few lines for people (counts as `2,566`, as the progress line
 * writes them; line numbers plain), as fields of the JSON error object (numbers).
 * With several requests in flight the account is right at any moment (a forced end
 * included), several records can fail or be unknown at one stop, and records after a
 * failed one can be created.
 */
import { ApiError, CliError, ExitCode, InterruptedError } from '../../../base/errors.js';
import { describeApiError } from '../../../text/escape.js';
import type { RenderMode } from '../../../render/pets.js';
import { shellQuote } from '../../../base/suggest.js';
import { formatCount } from '../../../text/count.js';

/** Why a record was not created, or may have been: the server's Error, or petstore's own. */
export interface RecordError {
  code: string;
  message: string;
  /** The HTTP status, 0 when no answer was involved. */
  status: number;
  /**
   * A 429's `Retry-After` that was not waited for, in whole seconds: longer than what the
   * record's deadline left (cli-contract.md "Network behaviour"). Not kept in the journal.
   */
  retryAfter?: number;
}

/** A record's place: its 0-based index and the line where it starts. */
export interface Place {
  index: number;
  line: number;
}

/** Lines `[first, last]` of the input. */
export type LineRange = [number, number];

/** How a record's attempt ended, when it was not created. */
export type StopKind =
  /** The server answered with an error, or the request never left: not created. */
  | 'failed'
  /** The request may have reached the server: created or not, nobody knows. */
  | 'unknown'
  /** No request was under way (a signal, a closed stdout, an input that changed). */
  | 'none';

/** Where the records not created went: a file, or why they could not be saved. */
export type Saved = { file: string } | { error: string };

/** Why the records not created were not saved, when the process is ended before they are. */
const ENDED_BEFORE_SAVED = 'the run was ended before they could be written';

/** Most ranges listed in the human form; the rest are counted. */
const RANGES_SHOWN = 5;
/** Most ids not printed listed in the human form; the rest are counted (JSON lists them all). */
const IDS_SHOWN = 10;

/**
 * What the account tells its run's write-ahead journal (journal.ts `RunJournal`), in the
 * run's own positions, before each change shows.
 */
export interface AccountLog {
  /**
   * `records` are about to be sent (their requests leave after this returns), at `at` (epoch ms).
   * @throws an Error (journal.ts `JournalError`) when the line cannot be written: nothing may be sent then.
   */
  intend(records: readonly Place[], at: number): void;
  /** `record` was created as the pet `id`. */
  created(record: Place, id: string): void;
  /** `record` failed (not created) or is unknown (may have been created). */
  settled(record: Place, kind: 'failed' | 'unknown', error: RecordError): void;
  /** `record` was taken back (a 429): not created, not sent until it is sent again. */
  back(record: Place): void;
  /** Every created record before position `position` has been written to stdout. */
  printed(position: number): void;
}

/** A record that may have been created, and when its request was first about to leave. */
export type UnknownRecord = Place & RecordError & { sentAt: number | undefined };

/** A created pet whose line on stdout may not have been written. */
export interface UnprintedPet extends Place {
  id: string;
}

/** How an account counts (`BulkAccount`'s options). */
export interface AccountOptions {
  /**
   * The run's write-ahead journal (journal.ts), told of every change before it shows: the
   * intents of requests about to leave, then their outcomes.
   */
  log?: AccountLog | undefined;
  /**
   * A resumption (`--resend-unknown`): its records are those an earlier run left unknown,
   * so a record it does not send stays unknown, and only the records it sends that the
   * server refuses are not created (the remaining file).
   */
  resend?: boolean;
}

/** The account of one bulk create of `records` records, the last on line `lastLine`. */
export class BulkAccount {
  /** Created records as ranges of consecutive records, in input order. */
  private readonly created: { first: Place; last: Place }[] = [];
  private createdCount = 0;
  private readonly failedRecords: (Place & RecordError)[] = [];
  private readonly unknownRecords: UnknownRecord[] = [];
  /** When each record under way, or sent again, was first about to leave (epoch ms), by index. */
  private readonly sentAt = new Map<number, number>();
  /** Created pets not yet written to stdout, by index (the reorder window at most). */
  private readonly unprinted = new Map<number, UnprintedPet>();
  /** Requests under way, by index. */
  private readonly inFlight = new Map<number, Place>();
  /** Records sent before and taken back (refused, waiting to be sent again; stopped at a proxy): not sent. */
  private readonly takenBack = new Map<number, Place>();
  private readonly failedIndexes = new Set<number>();
  /** One past the highest index sent: every record from there on was never sent. */
  private dispatchedCount = 0;
  private lastDispatchedLine = 0;
  private firstNotSentLine: number | undefined;
  /** What stopped the run: the first record not created and why; undefined while none did. */
  stop: { at: Place | undefined; kind: StopKind; cause: unknown } | undefined;
  /** Where the records not created were saved, or why they could not be. */
  saved: Saved | undefined;

  private readonly log: AccountLog | undefined;
  /** See `AccountOptions.resend`. */
  readonly resend: boolean;

  constructor(
    readonly records: number,
    readonly lastLine: number,
    options: AccountOptions = {},
  ) {
    this.log = options.log;
    this.resend = options.resend === true;
  }

  /**
   * Records that the requests for `records` are about to be sent together, at `at` (epoch
   * ms): their intent goes to the journal first, then each is under way — a new record
   * (records are first sent in input order; the ones after the highest sent are not sent
   * yet), or one taken back that is sent again.
   * @throws JournalError when the intent cannot be written: none of them may be sent.
   */
  dispatchAll(records: readonly Place[], at: number): void {
    if (records.length === 0) return;
    this.log?.intend(records, at);
    for (const record of records) this.dispatch(record, at);
  }

  /** `dispatchAll` of one record, without the journal (a journal read back, `replayAccount`). */
  dispatch(record: Place, at: number): void {
    if (record.index >= this.dispatchedCount) {
      this.dispatchedCount = record.index + 1;
      this.lastDispatchedLine = record.line;
    }
    if (!this.sentAt.has(record.index)) this.sentAt.set(record.index, at);
    this.takenBack.delete(record.index);
    this.inFlight.set(record.index, record);
  }

  /** How many requests are under way. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * The process is ending before the run stops by itself (a second Ctrl-C, the second after
   * a signal): the records whose requests are under way become unknown (they may have
   * reached the server), and the records not created were not saved unless they already are.
   */
  endedByForce(cause: unknown): this {
    const first = [...this.inFlight.values()].sort((a, b) => a.index - b.index)[0];
    for (const record of [...this.inFlight.values()]) this.settleNotCreated(record, 'unknown', cause);
    // A record left unknown says more than a stop between records (the signal that came first).
    if (first !== undefined && (this.stop === undefined || this.stop.kind === 'none')) {
      this.stop = { at: first, kind: 'unknown', cause };
    }
    this.stopped(cause);
    if (this.notCreated > 0) this.saved ??= { error: ENDED_BEFORE_SAVED };
    return this;
  }

  /**
   * Records that `cause` stopped the run between two records, unless a record's failure did
   * first. Returns `cause`.
   */
  stopped(cause: unknown): unknown {
    this.stop ??= { at: undefined, kind: 'none', cause };
    return cause;
  }

  /**
   * Takes back the dispatch of `record`, which surely did not create it (a 429 refused it and
   * it waits to be sent again; a proxy refused the tunnel): until it is sent again, it is
   * not sent, and it is in the remaining file if the run stops now.
   */
  unsend(record: Place): void {
    this.log?.back(record);
    this.inFlight.delete(record.index);
    this.takenBack.set(record.index, record);
  }

  /** Records that `record`, read but never sent, is the first record not sent. */
  notSentFrom(record: Place): void {
    if (record.index >= this.dispatchedCount) this.firstNotSentLine ??= record.line;
  }

  /**
   * Settles `record` as created, as the pet `id` (int64 as a decimal string), in any order
   * (answers come as they come); its id counts as not printed until `printed` says it is.
   */
  settleCreated(record: Place, id: string): void {
    this.log?.created(record, id);
    this.inFlight.delete(record.index);
    this.sentAt.delete(record.index);
    this.unprinted.set(record.index, { index: record.index, line: record.line, id });
    this.createdCount++;
    // Answers come nearly in input order: the place is found from the end.
    let at = this.created.length;
    while (at > 0 && (this.created[at - 1]?.first.index ?? -1) > record.index) at--;
    const before = this.created[at - 1];
    const after = this.created[at];
    const joinsBefore = before !== undefined && before.last.index + 1 === record.index;
    const joinsAfter = after !== undefined && after.first.index - 1 === record.index;
    if (joinsBefore && joinsAfter) {
      before.last = after.last;
      this.created.splice(at, 1);
    } else if (joinsBefore) before.last = record;
    else if (joinsAfter) after.first = record;
    else this.created.splice(at, 0, { first: record, last: record });
  }

  /** Settles `record` as failed (not created) or unknown (may have been), with `error`. */
  settleNotCreated(record: Place, kind: 'failed' | 'unknown', error: unknown): void {
    const why = recordError(error);
    this.log?.settled(record, kind, why);
    this.inFlight.delete(record.index);
    this.takenBack.delete(record.index);
    const sentAt = this.sentAt.get(record.index);
    this.sentAt.delete(record.index);
    if (kind === 'failed') {
      this.failedIndexes.add(record.index);
      this.failedRecords.push({ ...record, ...why });
    } else this.unknownRecords.push({ ...record, ...why, sentAt });
  }

  /**
   * The created pet of `record` was written to stdout (pets are written in input order, so
   * every created one before it was too).
   */
  printed(record: Place): void {
    this.unprinted.delete(record.index);
    this.log?.printed(record.index + 1);
  }

  /** The positions of the records created or failed (settled for good), in no order. */
  settledPositions(): number[] {
    const out: number[] = [...this.failedIndexes];
    for (const r of this.created) for (let i = r.first.index; i <= r.last.index; i++) out.push(i);
    return out;
  }

  /**
   * The created pets at the positions `written` says were written to stdout were (a journal
   * read back, whose marks say so). The pets waiting to be printed are at most the reorder
   * window, but with a table written at the end.
   */
  printedBefore(written: (position: number) => boolean): void {
    for (const index of this.unprinted.keys()) if (written(index)) this.unprinted.delete(index);
  }

  /** Created pets whose line on stdout may not have been written, in input order. */
  unprintedPets(): UnprintedPet[] {
    return byLine([...this.unprinted.values()]);
  }

  /** The records that may have been created, in input order, with when they were first about to leave. */
  unknownDetails(): UnknownRecord[] {
    return byLine(this.unknownRecords);
  }

  /** How many were created. */
  get createdTotal(): number {
    return this.createdCount;
  }

  /** Records not sent: never sent, or taken back. */
  get notSent(): number {
    return this.records - this.dispatchedCount + this.takenBack.size;
  }

  /**
   * Records surely not created (failed or not sent): what the remaining file holds. In a
   * resumption, a record not sent again is still unknown: only the failed ones.
   */
  get notCreated(): number {
    return this.failedRecords.length + (this.resend ? 0 : this.notSent);
  }

  /** The lines of the created records, as ranges. */
  createdRanges(): LineRange[] {
    return this.created.map((r) => [r.first.line, r.last.line]);
  }

  /** The lines of the records that may have been created, in input order. */
  unknownLines(): number[] {
    return byLine(this.unknownRecords).map((r) => r.line);
  }

  /** The number (1-based) of the last record sent and not taken back; 0 when none was. */
  private lastSent(): number {
    let n = this.dispatchedCount;
    while (n > 0 && this.takenBack.has(n - 1)) n--;
    return n;
  }

  /** Whether the record at `index` is one the remaining file holds. */
  isRemaining(index: number): boolean {
    if (this.resend) return this.failedIndexes.has(index);
    return index >= this.dispatchedCount || this.takenBack.has(index) || this.failedIndexes.has(index);
  }

  /** The lines of the records not created, as ranges (to rebuild them when they could not be saved). */
  remainingRanges(): LineRange[] {
    const ranges: LineRange[] = [...this.failedRecords, ...(this.resend ? [] : this.takenBack.values())].map((r) => [
      r.line,
      r.line,
    ]);
    if (!this.resend && this.records > this.dispatchedCount) {
      ranges.push([this.firstNotSentLine ?? this.lastDispatchedLine + 1, this.lastLine]);
    }
    ranges.sort((a, b) => a[0] - b[0]);
    const merged: LineRange[] = [];
    for (const r of ranges) {
      const prev = merged[merged.length - 1];
      if (prev !== undefined && r[0] <= prev[1] + 1) prev[1] = Math.max(prev[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    return merged;
  }

  /**
   * The account for people: a few lines of counts and ranges. `suggest` turns command words
   * into a command that goes where this run went (`ctx.suggest`); `label` names the input;
   * `target`, when given (on a terminal: cli-contract.md "Environments"), is where the pets
   * were created (`describeTarget`), named in the first line.
   */
  lines(suggest: (words: string) => string, label: string, target?: string): string[] {
    const out: string[] = [];
    const created = this.createdRanges();
    const where = target === undefined ? '' : ` in ${target}`;
    out.push(
      this.createdCount === 0
        ? `created${where}: none`
        : `created ${formatCount(this.createdCount)}${where}: ${describeLines(created)}`,
    );
    const failed = joinLines(byLine(this.failedRecords).map((r) => r.line));
    if (failed.length > 0)
      out.push(`failed ${formatCount(this.failedRecords.length)}: ${describeLines(failed)}, not created`);
    const unknown = joinLines(byLine(this.unknownRecords).map((r) => r.line));
    if (unknown.length > 0) {
      out.push(
        `unknown ${formatCount(this.unknownRecords.length)}: ${describeLines(unknown)}: the request may have reached the server, so it may have been created; it is not retried and not in the remaining file (check with \`${suggest('pets list')}\`)`,
      );
    }
    if (this.notSent > 0) {
      out.push(
        this.resend
          ? `not sent again ${formatCount(this.notSent)}: still unknown`
          : `not sent ${formatCount(this.notSent)}`,
      );
    }
    const unprinted = this.unprintedPets();
    if (unprinted.length > 0) out.push(describeUnprinted(unprinted));
    const count = this.notCreated;
    const records = `${formatCount(count)} record${count === 1 ? '' : 's'} not created`;
    if (this.saved !== undefined && 'file' in this.saved) {
      out.push(`the ${records} ${count === 1 ? 'is' : 'are'} in ${this.saved.file}; after fixing the cause, run:`);
      out.push(`  \`${suggest(`pets create --from-file ${shellQuote(this.saved.file)}`)}\``);
    } else if (this.saved !== undefined) {
      out.push(
        `the ${records} could not be saved: ${this.saved.error}; they are ${describeLines(this.remainingRanges())} of ${label}`,
      );
    }
    return out;
  }

  /** The account as fields of the JSON error object (docs/commands.md "pets create"). */
  details(): Record<string, unknown> {
    const lines = (ranges: LineRange[]): { lines: LineRange }[] => ranges.map((r) => ({ lines: r }));
    const settled = (r: Place & RecordError): Record<string, unknown> => ({
      line: r.line,
      code: r.code,
      message: r.message,
      status: r.status,
      ...(r.retryAfter === undefined ? {} : { retryAfter: r.retryAfter }),
    });
    return {
      records: this.records,
      created: this.createdCount,
      createdRanges: lines(this.createdRanges()),
      failed: byLine(this.failedRecords).map(settled),
      unknown: byLine(this.unknownRecords).map(settled),
      notSent: this.notSent,
      remaining: this.notCreated,
      remainingFile: this.saved !== undefined && 'file' in this.saved ? this.saved.file : null,
      remainingRanges: lines(this.remainingRanges()),
      idsNotPrinted: this.unprintedPets().map((p) => ({ line: p.line, id: p.id })),
    };
  }

  /**
   * The account as the error a stopped run ends with: the exit code and code of what
   * stopped it (the signal, when the run's `signal` was aborted), the account in its hint
   * (text) or its fields (`output` json or ndjson, where the message also carries the
   * counts). `target` is `lines`'s.
   */
  toError(opts: {
    signal: AbortSignal;
    suggest: (words: string) => string;
    label: string;
    output: RenderMode;
    target?: string | undefined;
  }): CliError {
    const json = opts.output === 'json' || opts.output === 'ndjson';
    const interruption = opts.signal.aborted ? InterruptedError.from(opts.signal) : undefined;
    const stop = this.stop ?? { at: undefined, kind: 'none', cause: interruption };
    const of = formatCount(this.records);
    const at =
      stop.at === undefined
        ? ''
        : `stopped at record ${formatCount(stop.at.index + 1)} of ${of} (line ${stop.at.line})`;
    const sent = this.lastSent();
    const what =
      stop.kind === 'none' || stop.at === undefined
        ? sent === 0
          ? `stopped before the first of ${of} records`
          : `stopped after record ${formatCount(sent)} of ${of}`
        : stop.kind === 'failed'
          ? `${at}, not created`
          : `${at}, which may have been created`;
    const summary = `${what}: ${describeCause(stop.cause)}`;
    const stoppedBy = interruption ?? (stop.cause instanceof CliError ? stop.cause : undefined);
    const saved =
      this.saved === undefined
        ? ''
        : 'file' in this.saved
          ? `; saved to ${this.saved.file}`
          : `; not saved: ${this.saved.error}`;
    return new CliError(
      json
        ? `${summary}; ${formatCount(this.createdCount)} created; ${formatCount(this.notCreated)} not created${saved}`
        : summary,
      {
        exitCode: stoppedBy?.exitCode ?? ExitCode.failure,
        code: stoppedBy?.code ?? 'internal',
        status: stoppedBy?.status ?? 0,
        hint: this.lines(opts.suggest, opts.label, opts.target).join('\n'),
        cause: stop.cause,
        details: { ...this.details(), ...refusedWaitOf(stoppedBy) },
      },
    );
  }
}

/** The error of a run stopped by `interruption` (a signal) before its first request. */
export function nothingSent(interruption: InterruptedError): CliError {
  return new CliError(`${interruption.message} before anything was sent; nothing was created`, {
    exitCode: interruption.exitCode,
    code: 'interrupted',
  });
}

/**
 * The line naming created pets whose ids may not have reached stdout (a second signal cut
 * it short, or it closed): `ids not printed: line 67: 1067, line 68: 1068` (the first
 * IDS_SHOWN, then how many more).
 */
export function describeUnprinted(pets: readonly UnprintedPet[]): string {
  const shown = pets.slice(0, IDS_SHOWN).map((p) => `line ${p.line}: ${p.id}`);
  const more = pets.length - shown.length;
  return `ids not printed on stdout ${formatCount(pets.length)}: ${shown.join(', ')}${more > 0 ? `, and ${formatCount(more)} more` : ''}`;
}

/** Lines in order as ranges, consecutive lines joined (`3, 4, 5, 9` → `3-5, 9`). */
export function joinLines(lines: number[]): LineRange[] {
  const ranges: LineRange[] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] + 1 === line) last[1] = line;
    else ranges.push([line, line]);
  }
  return ranges;
}

/** Whether `v` is a plain `RecordError` (a journal's), not an Error. */
function isRecordError(v: unknown): v is RecordError {
  if (typeof v !== 'object' || v === null || v instanceof Error) return false;
  const { code, message, status } = v as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' && typeof status === 'number';
}

/** `records` in input order (answers come in any order). */
function byLine<T extends Place>(records: T[]): T[] {
  return [...records].sort((a, b) => a.index - b.index);
}

/** `line 3`, `lines 1-4`, `lines 3, 5-7`: at most RANGES_SHOWN ranges, then how many more. */
export function describeLines(ranges: LineRange[]): string {
  const one = ranges.length === 1 && ranges[0]?.[0] === ranges[0]?.[1];
  const shown = ranges.slice(0, RANGES_SHOWN).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`));
  const more = ranges.length - shown.length;
  return `line${one ? '' : 's'} ${shown.join(', ')}${more > 0 ? `, and ${formatCount(more)} more range${more === 1 ? '' : 's'}` : ''}`;
}

/** What stopped the run, in a few words (the server's message with its code and status). */
function describeCause(err: unknown): string {
  // The server's text, escaped here: it must not start a line of its own in the account.
  if (err instanceof ApiError) return describeApiError(err);
  return err instanceof Error ? err.message : String(err);
}

/**
 * A failure as a record's error: the server's Error, petstore's own code, one read back from
 * a journal as it is, or `internal`.
 */
function recordError(err: unknown): RecordError {
  if (isRecordError(err)) return { code: err.code, message: err.message, status: err.status };
  if (err instanceof ApiError) {
    // A Retry-After not waited for: the message names the wait and the time left (ApiError's).
    const wait = refusedWaitOf(err);
    const message = wait.retryAfter === undefined ? err.body.message : err.message;
    return { code: err.body.code, message, status: err.status, ...wait };
  }
  if (err instanceof CliError) return { code: err.code, message: err.message, status: err.status };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 0 };
}

/**
 * `{ retryAfter }` (whole seconds) when `err` is an answer whose `Retry-After` was not waited
 * for (ApiError's `details`), else nothing: a field of the JSON error and of a failed record.
 */
function refusedWaitOf(err: unknown): { retryAfter?: number } {
  const retryAfter = err instanceof CliError ? err.details?.retryAfter : undefined;
  return typeof retryAfter === 'number' ? { retryAfter } : {};
}

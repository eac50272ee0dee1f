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
import { ApiError, CliError, ExitCode, InterruptedError } from '../../../errors.js';
import { describeApiError } from '../../../text/escape.js';
import type { RenderMode } from '../../../render/pets.js';
import { shellQuote } from '../../../suggest.js';
import { formatCount } from '../../../text/count.js';

/** Why a record was not created, or may have been: the server's Error, or petstore's own. */
export interface RecordError {
  code: string;
  message: string;
  /** The HTTP status, 0 when no answer was involved. */
  status: number;
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

/** The account of one bulk create of `records` records, the last on line `lastLine`. */
export class BulkAccount {
  /** Created records as ranges of consecutive records, in input order. */
  private readonly created: { first: Place; last: Place }[] = [];
  private createdCount = 0;
  private readonly failedRecords: (Place & RecordError)[] = [];
  private readonly unknownRecords: (Place & RecordError)[] = [];
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

  constructor(
    readonly records: number,
    readonly lastLine: number,
  ) {}

  /**
   * Records that the request for `record` is about to be sent: a new record (records are
   * first sent in input order; the ones after the highest sent are not sent yet), or one
   * taken back that is sent again.
   */
  dispatch(record: Place): void {
    if (record.index >= this.dispatchedCount) {
      this.dispatchedCount = record.index + 1;
      this.lastDispatchedLine = record.line;
    }
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
    this.inFlight.delete(record.index);
    this.takenBack.set(record.index, record);
  }

  /** Records that `record`, read but never sent, is the first record not sent. */
  notSentFrom(record: Place): void {
    if (record.index >= this.dispatchedCount) this.firstNotSentLine ??= record.line;
  }

  /** Settles `record` as created (in any order: answers come as they come). */
  settleCreated(record: Place): void {
    this.inFlight.delete(record.index);
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
    this.inFlight.delete(record.index);
    this.takenBack.delete(record.index);
    if (kind === 'failed') this.failedIndexes.add(record.index);
    (kind === 'failed' ? this.failedRecords : this.unknownRecords).push({ ...record, ...recordError(error) });
  }

  /** How many were created. */
  get createdTotal(): number {
    return this.createdCount;
  }

  /** Records not sent: never sent, or taken back. */
  get notSent(): number {
    return this.records - this.dispatchedCount + this.takenBack.size;
  }

  /** Records surely not created (failed or not sent): what the remaining file holds. */
  get notCreated(): number {
    return this.failedRecords.length + this.notSent;
  }

  /** The lines of the created records, as ranges. */
  createdRanges(): LineRange[] {
    return this.created.map((r) => [r.first.line, r.last.line]);
  }

  /** The lines of the records that may have been created, in input order. */
  unknownLines(): number[] {
    return byLine(this.unknownRecords).map((r) => r.line);
  }

  /**
   * The lines of the records that may have been created should the process die now: the
   * unknown ones and those whose requests are under way (what a run's record says while it
   * runs).
   */
  mayBeCreatedLines(): number[] {
    return [...this.unknownLines(), ...[...this.inFlight.values()].map((r) => r.line)].sort((a, b) => a - b);
  }

  /** The number (1-based) of the last record sent and not taken back; 0 when none was. */
  private lastSent(): number {
    let n = this.dispatchedCount;
    while (n > 0 && this.takenBack.has(n - 1)) n--;
    return n;
  }

  /** Whether the record at `index` is one the remaining file holds. */
  isRemaining(index: number): boolean {
    return index >= this.dispatchedCount || this.takenBack.has(index) || this.failedIndexes.has(index);
  }

  /** The lines of the records not created, as ranges (to rebuild them when they could not be saved). */
  remainingRanges(): LineRange[] {
    const ranges: LineRange[] = [...this.failedRecords, ...this.takenBack.values()].map((r) => [r.line, r.line]);
    if (this.records > this.dispatchedCount) {
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
    if (this.notSent > 0) out.push(`not sent ${formatCount(this.notSent)}`);
    const count = this.notCreated;
    const records = `${formatCount(count)} record${count === 1 ? '' : 's'} not created`;
    if (this.saved !== undefined && 'file' in this.saved) {
      out.push(`the ${records} ${count === 1 ? 'is' : 'are'} in ${this.saved.file}; after fixing the cause, run:`);
      out.push(`  ${suggest(`pets create --from-file ${shellQuote(this.saved.file)}`)}`);
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
        details: this.details(),
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

/** Lines in order as ranges, consecutive lines joined (`3, 4, 5, 9` → `3-5, 9`). */
function joinLines(lines: number[]): LineRange[] {
  const ranges: LineRange[] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] + 1 === line) last[1] = line;
    else ranges.push([line, line]);
  }
  return ranges;
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

/** A failure as a record's error: the server's Error, petstore's own code, or `internal`. */
function recordError(err: unknown): RecordError {
  if (err instanceof ApiError) return { code: err.body.code, message: err.body.message, status: err.status };
  if (err instanceof CliError) return { code: err.code, message: err.message, status: err.status };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 0 };
}

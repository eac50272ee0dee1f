/**
 * The write-ahead journal of a bulk create (cli-contract.md "Bulk create": "before a request
 * leaves, the run record holds its intent ...; after the answer, its outcome"): an
 * append-only NDJSON file beside the run's record, `<key>.journal`, in the state folder. It
 * lives while a run sends; the run folds it into its record when it ends, and the next run
 * of the same input folds it when the process died first (`kill -9`, the OOM killer).
 *
 * - **Intent before the request.** The records about to be sent together (at most
 *   `--concurrency`, fewer as answers free places) are one line, written before any of their
 *   requests is made: after a crash at any instant, a record with an intent and no outcome
 *   is unknown, so at most `--concurrency` records are.
 * - **Outcome after the answer**: created (with the pet's id), failed (the server's Error,
 *   not created), unknown (the request may have reached the server), or taken back (a 429:
 *   not created, waiting to be sent again). An outcome goes with the next intent, in the
 *   same write (the answer freed the place that intent takes), or on the next turn of the
 *   event loop when none comes: a record whose outcome is not written yet counts as in
 *   flight, so there are still at most `--concurrency` of them; and a created pet's id is
 *   on stdout, in the journal, or both.
 * - **What reached stdout**: lines carry `p`, the index below which every created pet was
 *   written to stdout (they are written in input order), so the next run names the ids that
 *   may not have reached it.
 * - **Durability.** Each line is one `write(2)` to a file opened `O_APPEND`, made
 *   synchronously before the request leaves: once it returns, the kernel holds the line,
 *   which survives the process's death however it dies. It is not fsynced: a power cut may
 *   lose the last lines (docs/commands.md says so).
 *
 * Lines (indexes are the records' 0-based places in the input, lines their first lines):
 *
 * ```
 * {"run":"TOKEN","generation":"HEX","records":N,"resend":[I,...]|null,"at":MS}   header
 * {"s":[I,LINE,I,LINE,...],"at":MS,"p":P}    intent: these requests are about to leave
 * {"c":[I,LINE,"ID"],"p":P}                  created, with the pet's id (int64 as a string)
 * {"f":[I,LINE,STATUS,"CODE","MESSAGE"]}     failed: the server refused it (not created)
 * {"u":[I,LINE,STATUS,"CODE","MESSAGE"]}     unknown: it may have been created
 * {"b":[I,LINE]}                             taken back (429): not created, not sent now
 * {"r":{"path":…,"size":…,"sha256":…,"dev":…,"ino":…}}   the remaining file written
 * {"e":"SIGNAL"}                             ended by force (a second signal)
 * ```
 */
import { closeSync, constants, ftruncateSync, openSync, writeSync } from 'node:fs';
import { CliError, describeFileError, ExitCode } from '../../../base/errors.js';
import { usedKeys } from '../../../base/mask.js';
import type { AccountLog, Place, RecordError } from './account.js';
import type { WrittenFile } from './remaining.js';

/** What the journal's first line says of its run. */
export interface JournalHeader {
  /** A token new for every run (process): the record that folded this journal names it. */
  run: string;
  /** The run's generation (its idempotency keys' identity), kept by a resumption. */
  generation: string;
  /** Records of the input. */
  records: number;
  /**
   * With `--resend-unknown`: the input indexes of the records sent again, in order (the
   * run's own positions 0..n-1 stand for them); null for a run over the whole input.
   */
  resend: number[] | null;
  /** When the run began (epoch ms). */
  at: number;
}

/** One event of the journal, as `replayJournal` hands it on (indexes are the input's). */
export type JournalEvent =
  | { kind: 'intent'; records: Place[]; at: number }
  | { kind: 'created'; record: Place; id: string }
  | { kind: 'failed' | 'unknown'; record: Place; error: RecordError }
  | { kind: 'back'; record: Place }
  | { kind: 'remaining'; file: WrittenFile }
  | { kind: 'ended'; signal: string };

/**
 * The journal could not be written (a full disk): the run stops before another request
 * leaves, so that a later run still knows what this one sent. Exit 1, code `state`
 * (docs/errors.md): requests may have been sent before it.
 */
export class JournalError extends CliError {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(
      `cannot write the journal of this run, ${path}: ${describeFileError(cause)}; sending stopped, so that a later run knows what this one sent`,
      {
        exitCode: ExitCode.failure,
        code: 'state',
        hint: 'Free some space on that disk, or set PETSTORE_STATE_DIR to a folder on another one, then send the remaining file.',
        cause,
      },
    );
    this.name = 'JournalError';
  }
}

/**
 * A run's journal, open for appending: every line one synchronous `write(2)` (see the
 * module comment). Positions of a resumption are written as the input's indexes.
 */
export class RunJournal implements AccountLog {
  private fd: number | undefined;
  /** Bytes written so far: where a write cut short is cut back to. */
  private size = 0;
  /** One past the highest position whose created pets are all on stdout (not yet written). */
  private printedMark: number | undefined;
  /**
   * Outcome lines not yet written: they go with the next intent, in the same `write(2)`, or
   * on the next turn of the event loop when none comes first. A record is in flight or
   * pending until then, and one leaves only when another takes its place: records with an
   * intent and no outcome written stay at most `--concurrency`.
   */
  private pending = '';
  private flushing: NodeJS.Immediate | undefined;
  /** The first write that failed: every intent after it is refused with it. */
  private broken: JournalError | undefined;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly inputIndex: (position: number) => number,
  ) {
    this.fd = fd;
  }

  /**
   * Creates the journal at `path` (exclusively, without following a link, mode 0600) and
   * writes its header. `header.resend` maps the run's positions to input indexes.
   * @throws the file system's error (EEXIST when one is there: the caller folds it first).
   */
  static create(path: string, header: JournalHeader): RunJournal {
    const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = constants;
    const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW, 0o600);
    const resend = header.resend;
    const journal = new RunJournal(path, fd, resend === null ? (p) => p : (p) => resend[p] ?? p);
    try {
      journal.append(`${JSON.stringify(header)}\n`);
    } catch (err) {
      journal.close();
      throw err;
    }
    return journal;
  }

  intend(records: readonly Place[], at: number): void {
    if (this.broken !== undefined) throw this.broken;
    let pairs = '';
    for (const r of records) pairs += `${pairs === '' ? '' : ','}${this.inputIndex(r.index)},${r.line}`;
    this.append(`${this.takePending()}{"s":[${pairs}],"at":${at}${this.mark()}}\n`);
  }

  created(record: Place, id: string): void {
    this.later(`{"c":[${this.inputIndex(record.index)},${record.line},${JSON.stringify(id)}]}\n`);
  }

  settled(record: Place, kind: 'failed' | 'unknown', error: RecordError): void {
    // The server's words may quote the key; the journal outlives the run, and a later run
    // (with another key) reads them back into its account.
    const fields = [
      this.inputIndex(record.index),
      record.line,
      error.status,
      usedKeys.mask(error.code),
      usedKeys.mask(error.message),
    ];
    this.later(`{"${kind === 'failed' ? 'f' : 'u'}":${JSON.stringify(fields)}}\n`);
  }

  back(record: Place): void {
    this.later(`{"b":[${this.inputIndex(record.index)},${record.line}]}\n`);
  }

  printed(position: number): void {
    this.printedMark = position;
  }

  /**
   * The remaining file of the records not created was written: a later run uses it, not a
   * second one.
   * @returns whether the journal says so (false: it cannot be written).
   */
  remaining(file: WrittenFile): boolean {
    this.now(`{"r":${JSON.stringify(file)}}\n`);
    return this.broken === undefined;
  }

  /** The run is ended by force (`signal`): said for the run that folds the journal. */
  endedByForce(signal: string): void {
    this.now(`{"e":${JSON.stringify(signal)}}\n`);
  }

  /** Writes what is pending and closes the file (the journal stays for the record to fold). */
  close(): void {
    if (this.fd === undefined) return;
    this.now('');
    try {
      closeSync(this.fd);
    } catch {
      // Closing a file only appended to loses nothing written.
    }
    this.fd = undefined;
  }

  /** `,"p":N` when stdout took more since the last line, else nothing. */
  private mark(): string {
    const p = this.printedMark;
    if (p === undefined) return '';
    this.printedMark = undefined;
    return `,"p":${this.inputIndex(p - 1) + 1}`;
  }

  /** The outcome lines pending, taken to be written now. */
  private takePending(): string {
    const lines = this.pending;
    this.pending = '';
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
    return lines;
  }

  /** Keeps an outcome line for the next write, written on the next turn at the latest. */
  private later(line: string): void {
    if (this.broken !== undefined) return;
    this.pending += line;
    this.flushing ??= setImmediate(() => {
      this.flushing = undefined;
      this.now('');
    });
  }

  /**
   * Writes what is pending, `lines`, and how far stdout got when that moved since (a line of
   * its own); a failure is kept for the next intent, which then stops the run.
   */
  private now(lines: string): void {
    const mark = this.mark();
    const text = this.takePending() + lines + (mark === '' ? '' : `{${mark.slice(1)}}\n`);
    if (this.broken !== undefined || text === '' || this.fd === undefined) return;
    try {
      this.append(text);
    } catch {
      // Kept in `broken` by `append`.
    }
  }

  /**
   * Writes `text` (whole lines) in one `write(2)`; a short write (a full disk) is cut off
   * again, so the journal keeps ending with a whole line.
   * @throws JournalError
   */
  private append(text: string): void {
    if (this.broken !== undefined) throw this.broken;
    const fd = this.fd;
    if (fd === undefined) throw (this.broken = new JournalError(this.path, new Error('the journal is closed')));
    const bytes = Buffer.from(text);
    try {
      const written = writeSync(fd, bytes);
      if (written !== bytes.length) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      this.size += written;
    } catch (err) {
      try {
        ftruncateSync(fd, this.size);
      } catch {
        // A last line without its newline is ignored by `replayEvents`.
      }
      throw (this.broken = new JournalError(this.path, err));
    }
  }
}

/**
 * Appends to the journal a dead run left at `path` that its remaining file was written
 * (by the run that folds it, holding its lock): a run that dies before the fold is
 * recorded uses that file instead of writing a second one.
 * @throws the file system's error (a full disk).
 */
export function appendRemaining(path: string, file: WrittenFile): void {
  const { O_WRONLY, O_APPEND, O_NOFOLLOW } = constants;
  const fd = openSync(path, O_WRONLY | O_APPEND | O_NOFOLLOW);
  try {
    const bytes = Buffer.from(`{"r":${JSON.stringify(file)}}\n`);
    if (writeSync(fd, bytes) !== bytes.length) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
  } finally {
    closeSync(fd);
  }
}

/** A journal read back: its header, and its bytes, whose events `replayEvents` hands on. */
export interface ReadJournal {
  header: JournalHeader;
  bytes: Buffer;
  /** Where the first event starts (after the header's line). */
  start: number;
  /** Whether any request's intent is in it: nothing was sent from a journal without one. */
  sentAny: boolean;
}

/**
 * The journal in `bytes`: its header (the first line), undefined when that is missing or
 * not one (a journal cut short as it was made: nothing was sent from it).
 */
export function readJournal(bytes: Buffer): ReadJournal | undefined {
  const end = bytes.indexOf(0x0a);
  if (end < 0) return undefined;
  let header: JournalHeader | undefined;
  try {
    header = asHeader(JSON.parse(bytes.toString('utf8', 0, end)));
  } catch {
    header = undefined;
  }
  if (header === undefined) return undefined;
  // An intent line starts `{"s":`: enough to know without parsing every line.
  return { header, bytes, start: end + 1, sentAny: bytes.includes('\n{"s":', end) };
}

/**
 * Hands on the events of `journal` in order (indexes are the input's), and each rise of the
 * mark of what reached stdout (`p`: every created record below it was written there) as it
 * comes, so that nothing but the account grows with the journal. A last line without its
 * newline (a write cut short) is ignored; so is a line that is not an event (never written
 * by petstore).
 */
export function replayEvents(
  journal: ReadJournal,
  onEvent: (event: JournalEvent) => void,
  onPrinted: (below: number) => void,
): void {
  const { bytes } = journal;
  let at = journal.start;
  let printed = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) break;
    const text = bytes.toString('utf8', at, end);
    at = end + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const event = asEvent(value);
    if (event !== undefined) onEvent(event);
    const p = (value as { p?: unknown } | null)?.p;
    if (typeof p === 'number' && Number.isSafeInteger(p) && p > printed) onPrinted((printed = p));
  }
}

function isIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function asHeader(v: unknown): JournalHeader | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { run, generation, records, resend, at } = v as Record<string, unknown>;
  if (typeof run !== 'string' || typeof generation !== 'string' || !isIndex(records) || !isIndex(at)) return undefined;
  if (resend !== null && !(Array.isArray(resend) && resend.every(isIndex))) return undefined;
  return { run, generation, records, resend, at };
}

/** The place in `[index, line, ...]`, when it is one. */
function placeOf(v: unknown): Place | undefined {
  if (!Array.isArray(v) || !isIndex(v[0]) || !isIndex(v[1])) return undefined;
  return { index: v[0], line: v[1] };
}

function errorOf(v: unknown[]): RecordError | undefined {
  const [, , status, code, message] = v;
  if (typeof status !== 'number' || typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { status, code, message };
}

function asEvent(v: unknown): JournalEvent | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.s) && isIndex(o.at)) {
    const records: Place[] = [];
    for (let i = 0; i + 1 < o.s.length; i += 2) {
      const place = placeOf([o.s[i], o.s[i + 1]]);
      if (place === undefined) return undefined;
      records.push(place);
    }
    return { kind: 'intent', records, at: o.at };
  }
  if (Array.isArray(o.c)) {
    const record = placeOf(o.c);
    const id: unknown = o.c[2];
    return record === undefined || typeof id !== 'string' ? undefined : { kind: 'created', record, id };
  }
  for (const [key, kind] of [
    ['f', 'failed'],
    ['u', 'unknown'],
  ] as const) {
    const fields = o[key];
    if (!Array.isArray(fields)) continue;
    const record = placeOf(fields);
    const error = errorOf(fields);
    return record === undefined || error === undefined ? undefined : { kind, record, error };
  }
  if (Array.isArray(o.b)) {
    const record = placeOf(o.b);
    return record === undefined ? undefined : { kind: 'back', record };
  }
  if (typeof o.r === 'object' && o.r !== null) {
    const { path, size, sha256, dev, ino } = o.r as Record<string, unknown>;
    if (typeof path !== 'string' || !isIndex(size) || typeof sha256 !== 'string' || !isIndex(dev) || !isIndex(ino))
      return undefined;
    return { kind: 'remaining', file: { path, size, sha256, dev, ino } };
  }
  if (typeof o.e === 'string') return { kind: 'ended', signal: o.e };
  return undefined;
}

/**
 * NewPet records from a file for `pets create --from-file` (cli-contract.md "Commands"):
 * a JSON array or NDJSON, detected by the first non-blank character. Input is read in
 * chunks by `RecordSplitter`, which cuts it into record texts with the line where each
 * starts, in one pass (linear time, memory bounded by the longest record), so a 100 MB file
 * is validated and sent without holding it. Every record is checked strictly (`checkRecord`)
 * before anything is sent, and every problem is reported with its line. Pure: no I/O.
 */
import { isUtf8 } from 'node:buffer';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../../../client/constants.js';
import type { NewPet } from '../../../client/schemas.js';
import { isInteger, isSafeNumber, parse } from 'lossless-json';
import { z } from 'zod';
import { Int64Schema, PetStatusSchema } from '../../../client/schemas.js';
import { formatCount } from '../../../text/count.js';

/** The text of one record of the input and the 1-based line where it starts. */
export interface RecordText {
  line: number;
  text: string;
}

/** A valid NewPet and where it came from. */
export interface NewPetRecord {
  line: number;
  pet: NewPet;
}

/** A problem with the input: the line and what is wrong. */
export interface RecordProblem {
  line: number;
  message: string;
}

/** Input that is not UTF-8 text: the first place where it is not, as a problem on its line. */
export class NotTextError extends Error {
  constructor(readonly problem: RecordProblem) {
    super(`line ${problem.line}: ${problem.message}`);
    this.name = 'NotTextError';
  }
}

/**
 * Decodes bulk input from bytes, refusing anything but UTF-8 text (RFC 8259 §8.1: JSON
 * exchanged between systems is UTF-8): an invalid or truncated sequence, or a NUL byte
 * (no JSON text holds one; it means a binary file such as /dev/zero), stops it with a
 * NotTextError on the line where it is. Nothing is replaced by U+FFFD, so what is sent is
 * what was written. A sequence cut by a chunk boundary is carried to the next chunk.
 */
export class Utf8Text {
  /** Line of the first byte not decoded yet (1-based). */
  private line = 1;
  private carry: Buffer = Buffer.alloc(0);

  /** The text of the next chunk (up to its last complete character). @throws NotTextError */
  push(chunk: Buffer): string {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const cut = completeLength(bytes);
    const body = bytes.subarray(0, cut);
    this.carry = Buffer.from(bytes.subarray(cut));
    if (!isUtf8(body)) this.refuse(body, firstInvalidUtf8(body), 'not valid UTF-8');
    const nul = body.indexOf(0);
    if (nul !== -1) this.refuse(body, nul, 'not text: a NUL byte (is it a binary file?)');
    for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) this.line++;
    return body.toString('utf8');
  }

  /** Ends the input. @throws NotTextError when it ends inside a character. */
  end(): void {
    if (this.carry.length > 0) this.refuse(this.carry, 0, 'not valid UTF-8');
  }

  private refuse(body: Buffer, at: number, what: string): never {
    let line = this.line;
    for (let i = body.indexOf(10); i !== -1 && i < at; i = body.indexOf(10, i + 1)) line++;
    const byte = body[at];
    const shown = byte === undefined ? '' : ` (the byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')})`;
    throw new NotTextError({ line, message: `${what}${what.startsWith('not valid') ? shown : ''}` });
  }
}

/** Bytes of `bytes` up to the end of its last complete UTF-8 sequence (a cut one is left out). */
function completeLength(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const b = bytes[bytes.length - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needs > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Offset of the first byte of `bytes` that starts no valid UTF-8 sequence (RFC 3629 §4). */
function firstInvalidUtf8(bytes: Buffer): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i] ?? 0;
    const needs =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (needs === 0 || !isUtf8(bytes.subarray(i, i + needs))) return i;
    i += needs;
  }
  return bytes.length;
}

/** The two input formats. */
export type RecordFormat = 'json' | 'ndjson';

/** The fields NewPet defines (spec §2). Others are refused: a typo such as `categoryid` must not pass unnoticed. */
const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const;

/**
 * Longest record accepted, in characters (1 MiB): a NewPet is tens of bytes, and a server
 * takes no larger body (the sandbox refuses one over 1 MiB). Longer text is a problem, not
 * a reason to hold a whole file in memory.
 */
export const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * A JSON number written other than as plain integer digits (`1e2`, `1.0`) whose value is
 * nevertheless integral, or too large for a double (`1e400`): kept as written so that it is refused as a categoryId, since
 * `--category-id` refuses the same forms (cli-contract.md "Input rules": exact int64).
 */
class InexactNumber {
  constructor(readonly text: string) {}
}

/** Parses record JSON: integer digits become number or bigint (exact int64), see InexactNumber. */
function parseRecordJson(text: string): unknown {
  return parse(text, null, (t: string) => {
    if (isInteger(t)) return isSafeNumber(t) ? Number(t) : BigInt(t);
    const n = Number(t);
    // `1e400` is Infinity, which JSON.stringify would describe as `null`: keep its text too.
    return Number.isInteger(n) || !Number.isFinite(n) ? new InexactNumber(t) : n;
  });
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Cuts bulk input, fed in chunks of text, into record texts: the elements of a JSON array
 * (first non-blank character `[`) or the non-blank lines of NDJSON. Each record carries the
 * line where it starts. One pass over the text; structural problems of an array (a missing
 * comma, text after `]`, an unclosed array) and records over MAX_RECORD_CHARS are collected
 * in `problems`. A byte-order mark is ignored.
 */
export class RecordSplitter {
  /** Detected from the first non-blank character; undefined until then. */
  format: RecordFormat | undefined;
  /** Structural problems and overlong records, in order. */
  readonly problems: RecordProblem[] = [];
  /** Records cut so far. */
  count = 0;
  private line = 1;
  private pending = '';
  // NDJSON: the current line so far, and whether it is being skipped as overlong.
  private partial = '';
  private skipping = false;
  // JSON array: the scanner's state and the element being read.
  private state: 'start' | 'first' | 'afterComma' | 'value' | 'afterValue' | 'end' | 'broken' = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  private elem = '';
  private elemLine = 0;

  /** Feeds the next chunk; returns the records it completed. */
  push(chunk: string): RecordText[] {
    const out: RecordText[] = [];
    let text = chunk;
    if (this.format === undefined) {
      text = (this.pending + text).replace(/^\uFEFF/, '');
      const first = /\S/.exec(text);
      if (first === null) {
        this.pending = text;
        return out;
      }
      this.pending = '';
      this.format = first[0] === '[' ? 'json' : 'ndjson';
    }
    if (this.format === 'ndjson') this.pushNdjson(text, out);
    else this.pushJson(text, out);
    this.count += out.length;
    return out;
  }

  /** Ends the input; returns the last record, if one was still open. */
  end(): RecordText[] {
    const out: RecordText[] = [];
    if (this.format === 'ndjson') this.finishLine(this.partial, out);
    else if (this.format === 'json' && this.state !== 'end' && this.state !== 'broken') {
      this.problem(this.line, 'the array is not closed: a ] is missing at the end');
    }
    this.partial = '';
    this.count += out.length;
    return out;
  }

  private problem(line: number, message: string): void {
    this.problems.push({ line, message });
  }

  private pushNdjson(text: string, out: RecordText[]): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const piece = nl === -1 ? text.slice(start) : text.slice(start, nl);
      if (!this.skipping && this.partial.length + piece.length > MAX_RECORD_CHARS) {
        this.skipping = true;
        this.partial = '';
        this.problem(this.line, `the record is longer than ${formatCount(MAX_RECORD_CHARS)} characters`);
      }
      if (!this.skipping) this.partial += piece;
      if (nl === -1) return;
      this.finishLine(this.partial, out);
      this.partial = '';
      this.skipping = false;
      this.line++;
      start = nl + 1;
    }
  }

  private finishLine(raw: string, out: RecordText[]): void {
    if (this.skipping) return;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() !== '') out.push({ line: this.line, text });
  }

  private pushJson(text: string, out: RecordText[]): void {
    let elemStart = this.state === 'value' ? 0 : -1;
    for (let i = 0; i < text.length && this.state !== 'broken'; i++) {
      const c = text.charCodeAt(i);
      if (this.state === 'value') {
        if (this.scanValue(c)) {
          // The element ends before this character (a scalar's delimiter) or with it (a closing bracket).
          const endsHere = !this.scalar;
          this.elem += text.slice(elemStart, endsHere ? i + 1 : i);
          this.completeElement(out);
          elemStart = -1;
          if (!endsHere) {
            i--;
            continue;
          }
        }
      } else if (!isSpace(c)) {
        if (this.structural(c)) {
          elemStart = i;
          this.startElement(c);
        }
      }
      if (c === 10) this.line++;
    }
    if (this.state === 'value' && elemStart !== -1) {
      this.elem += text.slice(elemStart);
      if (this.elem.length > MAX_RECORD_CHARS) {
        this.problem(this.elemLine, `the record is longer than ${formatCount(MAX_RECORD_CHARS)} characters`);
        this.state = 'broken';
      }
    }
  }

  /** Handles a non-blank character outside an element; true when it starts an element. */
  private structural(c: number): boolean {
    switch (this.state) {
      case 'start':
        this.state = 'first';
        return false; // detection made sure this is the opening [
      case 'first':
      case 'afterComma':
        if (c === 93 /* ] */) {
          if (this.state === 'afterComma') this.problem(this.line, 'a record is missing after the last comma');
          this.state = 'end';
          return false;
        }
        return true;
      case 'afterValue':
        if (c === 44 /* , */) this.state = 'afterComma';
        else if (c === 93) this.state = 'end';
        else {
          this.problem(this.line, 'not valid JSON: a comma or ] is missing between records');
          this.state = 'broken';
        }
        return false;
      default:
        this.problem(this.line, 'not valid JSON: text after the closing ] of the array');
        this.state = 'broken';
        return false;
    }
  }

  private startElement(c: number): void {
    this.state = 'value';
    this.elem = '';
    this.elemLine = this.line;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.scalar = c !== 123 /* { */ && c !== 91; /* [ */
    // The first character is scanned by scanValue like any other.
    this.scanValue(c);
  }

  /** Scans one character of an element; true when the element is complete. */
  private scanValue(c: number): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 92 /* \ */) this.escaped = true;
      else if (c === 34 /* " */) this.inString = false;
      return false;
    }
    if (c === 34) {
      this.inString = true;
      return false;
    }
    if (c === 123 || c === 91) {
      this.depth++;
      return false;
    }
    if (c === 125 || c === 93) {
      if (this.depth === 0) return true; // a scalar ended by the array's ]
      this.depth--;
      return this.depth === 0 && !this.scalar;
    }
    return this.scalar && this.depth === 0 && (c === 44 || isSpace(c));
  }

  private completeElement(out: RecordText[]): void {
    if (this.elem.length > MAX_RECORD_CHARS) {
      this.problem(this.elemLine, `the record is longer than ${formatCount(MAX_RECORD_CHARS)} characters`);
    } else {
      out.push({ line: this.elemLine, text: this.elem });
    }
    this.elem = '';
    this.state = 'afterValue';
  }
}

/** Turns a lossless-json "at position N" message into a problem on the right line of `record`. */
function syntaxProblem(record: RecordText, err: unknown): RecordProblem {
  const message = err instanceof Error ? err.message : String(err);
  const at = /position (\d+)/.exec(message);
  let line = record.line;
  if (at !== null) {
    const upTo = Math.min(Number(at[1]), record.text.length);
    for (let i = 0; i < upTo; i++) if (record.text.charCodeAt(i) === 10) line++;
  }
  return { line, message: `not valid JSON: ${message.replace(/\s*\(?at position \d+\)?/, '')}` };
}

/**
 * Parses and checks one record: a NewPet, or the problem with it (syntax, or every field
 * problem of `checkNewPet` joined), on the record's line.
 */
export function checkRecord(record: RecordText): NewPetRecord | RecordProblem {
  let value: unknown;
  try {
    value = parseRecordJson(record.text);
  } catch (err) {
    return syntaxProblem(record, err);
  }
  const issues = checkNewPet(value);
  return issues.length > 0
    ? { line: record.line, message: issues.join('; ') }
    : { line: record.line, pet: value as NewPet };
}

/** True for a problem, false for a NewPet. */
export function isProblem(r: NewPetRecord | RecordProblem): r is RecordProblem {
  return 'message' in r;
}

/** NewPet as a bulk file must hold it: the spec's fields and no other (spec §2). */
const StrictNewPetSchema = z.strictObject({
  name: z.string(),
  categoryId: Int64Schema,
  status: PetStatusSchema.optional(),
});

function describeValue(v: unknown): string {
  if (v instanceof InexactNumber) return v.text;
  if (typeof v === 'bigint') return String(v);
  return v === undefined ? 'undefined' : JSON.stringify(v);
}

function closestField(key: string): string | undefined {
  const k = key.toLowerCase().replace(/[-_\s]/g, '');
  return NEW_PET_FIELDS.find(
    (f) => f.toLowerCase() === k || (f === 'categoryId' && (k === 'category' || k === 'categoryid')),
  );
}

/**
 * Checks one value against NewPet strictly (spec §2): an object with `name` (string),
 * `categoryId` (int64, exact: a safe integer or a bigint in range; `1.5` and `"7"` are
 * refused), optional `status` (one of the PetStatus values) and no other field.
 * Returns every problem (empty when valid).
 */
export function checkNewPet(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      `must be a JSON object with name and categoryId, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    ];
  }
  const o = value as Record<string, unknown>;
  const result = StrictNewPetSchema.safeParse(o);
  if (result.success) return [];
  const problems: string[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const near = closestField(key);
        problems.push(
          `unknown field ${JSON.stringify(key)}${near !== undefined ? ` (did you mean ${near}?)` : ''}; NewPet has name, categoryId, status`,
        );
      }
      continue;
    }
    const field = String(issue.path[0] ?? '');
    const missing = !(field in o);
    if (field === 'name') problems.push(missing ? 'name is missing (a string is required)' : 'name must be a string');
    else if (field === 'categoryId') {
      problems.push(
        missing
          ? 'categoryId is missing (an int64 is required)'
          : `categoryId must be an integer from ${INT64_MIN} to ${INT64_MAX} (int64), got ${describeValue(o.categoryId)}`,
      );
    } else if (field === 'status')
      problems.push(`status must be one of ${PET_STATUSES.join(', ')}, got ${describeValue(o.status)}`);
  }
  return problems;
}

/** Result of reading a whole text: every record valid, or the list of problems. */
export type ReadResult =
  | { ok: true; format: RecordFormat; records: NewPetRecord[] }
  | { ok: false; format: RecordFormat | undefined; problems: RecordProblem[] };

/**
 * Reads NewPet records from a whole text (the same rules as the streaming path, in one
 * chunk). Empty input and an empty array are problems (nothing to create).
 */
export function readNewPetRecords(input: string): ReadResult {
  const splitter = new RecordSplitter();
  const texts = [...splitter.push(input), ...splitter.end()];
  const problems = [...splitter.problems];
  const records: NewPetRecord[] = [];
  for (const t of texts) {
    const r = checkRecord(t);
    if (isProblem(r)) problems.push(r);
    else records.push(r);
  }
  const empty = emptyInputProblem(splitter);
  if (empty !== undefined) problems.push(empty);
  problems.sort((a, b) => a.line - b.line);
  return problems.length > 0
    ? { ok: false, format: splitter.format, problems }
    : { ok: true, format: splitter.format ?? 'ndjson', records };
}

/** The problem of an input that holds no record at all, if it is one. */
export function emptyInputProblem(splitter: RecordSplitter): RecordProblem | undefined {
  if (splitter.count > 0 || splitter.problems.length > 0) return undefined;
  return {
    line: 1,
    message: splitter.format === 'json' ? 'no records: the array is empty' : 'no records: the input is empty',
  };
}

/** A record's text with its 0-based place in the input. */
export interface IndexedText extends RecordText {
  index: number;
}

/** A valid record with its 0-based place in the input, and its text as written. */
export interface IndexedRecord extends NewPetRecord {
  index: number;
  text: string;
}

/** `bytes` as text (`Utf8Text`), `seen` told of each chunk first. @throws NotTextError */
export async function* decodedText(
  bytes: AsyncIterable<Buffer>,
  seen: (chunk: Buffer) => void = () => undefined,
): AsyncGenerator<string> {
  const text = new Utf8Text();
  for await (const chunk of bytes) {
    seen(chunk);
    yield text.push(chunk);
  }
  text.end();
}

/** The record texts of `bytes`, in order, with their places (a pass that parses nothing). */
export async function* recordTexts(bytes: AsyncIterable<Buffer>): AsyncGenerator<IndexedText> {
  const splitter = new RecordSplitter();
  let index = 0;
  for await (const text of decodedText(bytes)) {
    for (const record of splitter.push(text)) yield { ...record, index: index++ };
  }
  for (const record of splitter.end()) yield { ...record, index: index++ };
}

/**
 * The records of `bytes`, which an earlier pass found valid and counted (`count`), read
 * again in order. A record that is no longer valid, or one more than `count`, means the
 * input changed: `changed` makes the error that stops the reading then.
 */
export async function* checkedRecords(
  bytes: AsyncIterable<Buffer>,
  count: number,
  changed: (what: string) => Error,
): AsyncGenerator<IndexedRecord> {
  for await (const text of recordTexts(bytes)) {
    if (text.index >= count) throw changed(`it holds more than the ${formatCount(count)} records checked`);
    const r = checkRecord(text);
    if (isProblem(r)) throw changed(`line ${r.line} is no longer valid: ${r.message}`);
    yield { ...r, index: text.index, text: text.text };
  }
}

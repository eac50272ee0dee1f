/**
 * NewPet records from a file for `pets create --from-file` (cli-contract.md "Commands"):
 * a JSON array or NDJSON, detected by the first non-blank character. Every record is
 * checked strictly before anything is sent, and every problem is reported with the line
 * where its record starts. Pure: no I/O, no zod (messages per field, all at once).
 */
import { INT64_MAX, INT64_MIN, PET_STATUSES } from './constants.js';
import type { NewPet } from './schemas.js';
import { isInteger, isSafeNumber, parse } from 'lossless-json';
import { z } from 'zod';
import { Int64Schema, PetStatusSchema } from './schemas.js';

/** One record of the input, with the 1-based line where it starts. */
export interface SourceRecord {
  line: number;
  value: unknown;
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

/** Result of reading a file: every record valid, or the list of problems. */
export type ReadResult =
  | { ok: true; format: 'json' | 'ndjson'; records: NewPetRecord[] }
  | { ok: false; format: 'json' | 'ndjson' | undefined; problems: RecordProblem[] };

/** The fields NewPet defines (spec §2). Others are refused: a typo such as `categoryid` must not pass unnoticed. */
export const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const;

/**
 * A JSON number written other than as plain integer digits (`1e2`, `1.0`) whose value is
 * nevertheless integral: kept as written so that it is refused as a categoryId, since
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
    return Number.isInteger(n) ? new InexactNumber(t) : n;
  });
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Offsets where each top-level element of a JSON array starts. Assumes `text` is valid
 * JSON whose first value is an array (checked by the caller's parse); tracks strings and
 * nesting depth only.
 */
export function arrayElementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (depth === 1 && expectValue && c !== ']') {
      offsets.push(i);
      expectValue = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectValue = true;
  }
  return offsets;
}

/** Turns a lossless-json "at position N" message into a line number. */
function syntaxProblem(text: string, err: unknown, lineOffset: number): RecordProblem {
  const message = err instanceof Error ? err.message : String(err);
  const m = /position (\d+)/.exec(message);
  const line = m === null ? lineOffset : lineOffset + lineAt(text, Number(m[1])) - 1;
  return { line, message: `not valid JSON: ${message.replace(/\s*\(?at position \d+\)?/, '')}` };
}

/**
 * Splits the input into records: a JSON array (first non-blank character `[`) or NDJSON
 * (one JSON value per non-blank line). A byte-order mark is ignored.
 */
export function splitRecords(input: string): {
  format: 'json' | 'ndjson';
  records: SourceRecord[];
  problems: RecordProblem[];
} {
  const text = input.replace(/^\uFEFF/, '');
  const first = /\S/.exec(text);
  if (first !== null && first[0] === '[') {
    let parsed: unknown;
    try {
      parsed = parseRecordJson(text);
    } catch (err) {
      return { format: 'json', records: [], problems: [syntaxProblem(text, err, 1)] };
    }
    const values = parsed as unknown[];
    const offsets = arrayElementOffsets(text);
    return {
      format: 'json',
      records: values.map((value, i) => ({ line: lineAt(text, offsets[i] ?? 0), value })),
      problems: [],
    };
  }
  const records: SourceRecord[] = [];
  const problems: RecordProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    try {
      records.push({ line: i + 1, value: parseRecordJson(line) });
    } catch (err) {
      problems.push(syntaxProblem(line, err, i + 1));
    }
  });
  return { format: 'ndjson', records, problems };
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

/**
 * Reads NewPet records from file text: splits (JSON array or NDJSON) and checks each
 * record. Empty input is a problem (nothing to create).
 */
export function readNewPetRecords(input: string): ReadResult {
  if (input.trim() === '')
    return { ok: false, format: undefined, problems: [{ line: 1, message: 'no records: the input is empty' }] };
  const { format, records, problems } = splitRecords(input);
  if (format === 'json' && problems.length === 0 && records.length === 0) {
    return { ok: false, format, problems: [{ line: 1, message: 'no records: the array is empty' }] };
  }
  const all = [...problems];
  const valid: NewPetRecord[] = [];
  for (const r of records) {
    const issues = checkNewPet(r.value);
    if (issues.length > 0) all.push({ line: r.line, message: issues.join('; ') });
    else valid.push({ line: r.line, pet: r.value as NewPet });
  }
  all.sort((a, b) => a.line - b.line);
  return all.length > 0 ? { ok: false, format, problems: all } : { ok: true, format, records: valid };
}

/**
 * The text of the sandbox's two files (see `store.ts`): the snapshot `sandbox.json` and the
 * journal `sandbox.json.journal`. Pure functions, no I/O.
 *
 * The snapshot is ordinary JSON, `{"generation":N,"nextId":M,"pets":[...]}`, written one
 * pet per line so it can be read line by line: `JSON.parse` on each line is about ten
 * times faster than lossless-json on the whole text (10,000 pets: ~15 ms against ~150 ms),
 * and only a line holding an integer of 16 digits or more, which may lie beyond 2^53, goes
 * through lossless-json (json.ts). Any other JSON of that shape (a file written by an
 * older petstore, or by hand) is read by the general path.
 *
 * The journal is NDJSON: a header line `{"generation":N}` naming the snapshot it belongs
 * to, then one created pet per line. Only lines ending in a newline count: a last line
 * without one is a write that never finished, and is ignored.
 */
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../client/constants.js';
import type { Pet } from '../client/schemas.js';
import { parseJson } from '../json.js';

/** A decoded snapshot. */
export interface Snapshot {
  /** Pairs the snapshot with its journal (0 for a file without one). */
  generation: number;
  nextId: bigint;
  pets: Pet[];
  /** Read by the general path: not in the layout `encodeSnapshot` writes. */
  foreign?: boolean;
}

/** The first line of the snapshot layout this module writes. */
const SNAPSHOT_HEAD = /^\{"generation":(\d{1,15}),"nextId":(-?\d{1,20}),"pets":\[$/;
/** An integer literal that may not survive `JSON.parse` exactly. */
const LONG_DIGITS = /\d{16}/;

/** One pet as a JSON object on one line, in the spec's field order (no newline). */
export function encodePet(p: Pet): string {
  const status = p.status === undefined ? '' : `,"status":${JSON.stringify(p.status)}`;
  return `{"id":${String(p.id)},"name":${JSON.stringify(p.name)},"categoryId":${String(p.categoryId)}${status}}`;
}

/** The snapshot text: one header line, one pet per line, and a closing line. */
export function encodeSnapshot(s: Snapshot): string {
  const body = s.pets.map(encodePet).join(',\n');
  return `{"generation":${s.generation},"nextId":${String(s.nextId)},"pets":[\n${body}${body === '' ? '' : '\n'}]}\n`;
}

/** The journal's header line (with its newline). */
export function encodeJournalHeader(generation: number): string {
  return `{"generation":${generation}}\n`;
}

/** Parses one line of JSON, exactly for long integers. @throws SyntaxError */
function parseLine(line: string): unknown {
  return LONG_DIGITS.test(line) ? parseJson(line) : JSON.parse(line);
}

function isInt64(v: unknown): v is number | bigint {
  return typeof v === 'number' ? Number.isSafeInteger(v) : typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX;
}

/** The pet in `v` (only the spec's fields), or undefined when `v` is not a Pet. */
function toPet(v: unknown): Pet | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const { id, name, categoryId, status } = v as Record<string, unknown>;
  if (!isInt64(id) || typeof name !== 'string' || !isInt64(categoryId)) return undefined;
  if (status === undefined) return { id, name, categoryId };
  const known = PET_STATUSES.find((s) => s === status);
  return known === undefined ? undefined : { id, name, categoryId, status: known };
}

/**
 * Decodes snapshot text: the fast line-by-line path for the layout `encodeSnapshot`
 * writes, else any JSON of the same shape.
 * @returns the snapshot, or a description of what is wrong with the text.
 */
export function decodeSnapshot(text: string): Snapshot | string {
  return decodeOwnLayout(text) ?? decodeAnyJson(text);
}

function decodeOwnLayout(text: string): Snapshot | undefined {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const head = SNAPSHOT_HEAD.exec(lines[0] ?? '');
  if (head === null || lines[lines.length - 1] !== ']}' || lines.length < 2) return undefined;
  const pets: Pet[] = [];
  const last = lines.length - 2;
  for (let i = 1; i <= last; i++) {
    let line = lines[i] ?? '';
    if (i < last) {
      if (!line.endsWith(',')) return undefined;
      line = line.slice(0, -1);
    }
    let pet: Pet | undefined;
    try {
      pet = toPet(parseLine(line));
    } catch {
      return undefined;
    }
    if (pet === undefined) return undefined;
    pets.push(pet);
  }
  return { generation: Number(head[1]), nextId: BigInt(head[2] ?? '0'), pets };
}

function decodeAnyJson(text: string): Snapshot | string {
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch (err) {
    return `not valid JSON (${text.trim() === '' ? 'the file is empty' : (err as Error).message})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not a JSON object';
  const { generation, nextId, pets } = parsed as Record<string, unknown>;
  if (generation !== undefined && !(typeof generation === 'number' && Number.isSafeInteger(generation))) {
    return 'generation: not a whole number';
  }
  if (!isInt64(nextId)) return 'nextId: not an int64';
  if (!Array.isArray(pets)) return 'pets: not an array';
  const out: Pet[] = [];
  for (const [i, item] of pets.entries()) {
    const pet = toPet(item);
    if (pet === undefined)
      return `pets[${i}]: not a Pet (id and categoryId int64, name a string, status one of ${PET_STATUSES.join(', ')})`;
    out.push(pet);
  }
  return { generation: generation ?? 0, nextId: BigInt(nextId), pets: out, foreign: true };
}

/** The journal's header: its generation and length in bytes, or a problem; undefined while its line is incomplete. */
export function decodeJournalHeader(
  bytes: Buffer,
): { generation: number; length: number } | { problem: string } | undefined {
  const end = bytes.indexOf(0x0a);
  if (end < 0) return undefined;
  const m = /^\{"generation":(\d{1,15})\}$/.exec(bytes.toString('utf8', 0, end));
  return m === null ? { problem: 'not a journal header' } : { generation: Number(m[1]), length: end + 1 };
}

/** What a run of journal lines holds. */
export interface JournalChunk {
  /** The pets of the complete lines, up to the first bad one. */
  pets: Pet[];
  /** Bytes of the complete lines decoded (where the next read starts). */
  consumed: number;
  /** A complete line that is not a pet: its number within the chunk (1-based). */
  badLine?: number;
}

/** Decodes journal pet lines; a last line without its newline is left for later. */
export function decodeJournalPets(bytes: Buffer): JournalChunk {
  const end = bytes.lastIndexOf(0x0a);
  const chunk: JournalChunk = { pets: [], consumed: end + 1 };
  if (end < 0) return chunk;
  const lines = bytes.toString('utf8', 0, end).split('\n');
  for (const [i, line] of lines.entries()) {
    let pet: Pet | undefined;
    try {
      pet = toPet(parseLine(line));
    } catch {
      pet = undefined;
    }
    if (pet === undefined) return { ...chunk, badLine: i + 1 };
    chunk.pets.push(pet);
  }
  return chunk;
}

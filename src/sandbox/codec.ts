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
 *
 * A pet created with an `Idempotency-Key` (`idempotency.ts`) carries it on its own line, in
 * either file, as one more member after the spec's fields:
 * `"idempotency":{"key":"K","fingerprint":"s","at":<epoch ms>}` (`s` or `-`, see
 * `idempotency.ts` `requestFingerprint`). Readers that
 * know only the spec's fields ignore it, and no answer shows it (pets are decoded to the
 * spec's fields alone). A member that is not of that shape (a file edited by hand) is
 * ignored: the pet stays, its key is forgotten.
 */
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../client/constants.js';
import type { Pet } from '../client/schemas.js';
import { parseJson } from '../base/json.js';
import { isValidKey } from './idempotency.js';

/** The `idempotency` member of a pet line: the key it was created with, its fingerprint, when (epoch ms). */
export interface IdempotencyRecord {
  key: string;
  fingerprint: string;
  at: number;
}

/** The `idempotency` members of a run of pet lines, by the pet's index in that run (0-based). */
export type KeyedLines = Map<number, IdempotencyRecord>;

/** A decoded snapshot. */
export interface Snapshot {
  /** Pairs the snapshot with its journal (0 for a file without one). */
  generation: number;
  nextId: bigint;
  pets: Pet[];
  /** The pets' `idempotency` members, by index in `pets`; absent when none has one. */
  keys?: KeyedLines;
  /** Read by the general path: not in the layout `encodeSnapshot` writes. */
  foreign?: boolean;
}

/** The first line of the snapshot layout this module writes. */
const SNAPSHOT_HEAD = /^\{"generation":(\d{1,15}),"nextId":(-?\d{1,20}),"pets":\[$/;
/**
 * A number literal of 16 digits or more, which may not survive `JSON.parse` exactly: a
 * JSON number follows `:`, `,` or `[` (and white space) and holds only digits, `.`, `e`,
 * `E`, `+` and `-`. Bare digit runs elsewhere (a key) are inside
 * strings, which `JSON.parse` reads exactly, so they do not send a line to lossless-json;
 * a string that happens to hold `:` and 16 digits does, which costs time, not exactness.
 */
const LONG_NUMBER = /[:,[]\s*-?[\d.eE+-]*\d{16}/;
/** A fingerprint as `idempotency.ts` makes it: `s` or `-`. */
const FINGERPRINT = /^[s-]$/;

/**
 * One pet as a JSON object on one line, in the spec's field order (no newline), with the
 * `idempotency` member after them when the pet has a key.
 */
export function encodePet(p: Pet, key?: IdempotencyRecord): string {
  const status = p.status === undefined ? '' : `,"status":${JSON.stringify(p.status)}`;
  const idempotency =
    key === undefined
      ? ''
      : `,"idempotency":{"key":${JSON.stringify(key.key)},"fingerprint":"${key.fingerprint}","at":${key.at}}`;
  return `{"id":${String(p.id)},"name":${JSON.stringify(p.name)},"categoryId":${String(p.categoryId)}${status}${idempotency}}`;
}

/** The snapshot text: one header line, one pet per line (with its key, if any), and a closing line. */
export function encodeSnapshot(s: Snapshot): string {
  const body = s.pets.map((p, i) => encodePet(p, s.keys?.get(i))).join(',\n');
  return `{"generation":${s.generation},"nextId":${String(s.nextId)},"pets":[\n${body}${body === '' ? '' : '\n'}]}\n`;
}

/** The journal's header line (with its newline). */
export function encodeJournalHeader(generation: number): string {
  return `{"generation":${generation}}\n`;
}

/** Parses one line of JSON, exactly for long integers. @throws SyntaxError */
function parseLine(line: string): unknown {
  return LONG_NUMBER.test(line) ? parseJson(line) : JSON.parse(line);
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

/** The `idempotency` member of a decoded pet line, or undefined when it has none of that shape. */
function toKey(v: unknown): IdempotencyRecord | undefined {
  const member = (v as { idempotency?: unknown }).idempotency;
  if (typeof member !== 'object' || member === null) return undefined;
  const { key, fingerprint, at } = member as Record<string, unknown>;
  if (!isValidKey(key) || typeof fingerprint !== 'string' || !FINGERPRINT.test(fingerprint)) return undefined;
  return typeof at === 'number' && Number.isSafeInteger(at) && at >= 0 ? { key, fingerprint, at } : undefined;
}

/**
 * Decodes one pet line into `pets` and its key into `keys`.
 * @returns false when the line is not a pet (or not JSON).
 */
function addPetLine(line: string, pets: Pet[], keys: KeyedLines): boolean {
  let value: unknown;
  try {
    value = parseLine(line);
  } catch {
    return false;
  }
  return addPet(value, pets, keys);
}

/** Adds the pet in `value` to `pets` and its key to `keys`; false when `value` is not a Pet. */
function addPet(value: unknown, pets: Pet[], keys: KeyedLines): boolean {
  const pet = toPet(value);
  if (pet === undefined) return false;
  const key = toKey(value);
  if (key !== undefined) keys.set(pets.length, key);
  pets.push(pet);
  return true;
}

/** `snapshot` with `keys` when there are any (a snapshot without keys has no such member). */
function withKeys(snapshot: Snapshot, keys: KeyedLines): Snapshot {
  return keys.size === 0 ? snapshot : { ...snapshot, keys };
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
  const keys: KeyedLines = new Map();
  const last = lines.length - 2;
  for (let i = 1; i <= last; i++) {
    let line = lines[i] ?? '';
    if (i < last) {
      if (!line.endsWith(',')) return undefined;
      line = line.slice(0, -1);
    }
    if (!addPetLine(line, pets, keys)) return undefined;
  }
  return withKeys({ generation: Number(head[1]), nextId: BigInt(head[2] ?? '0'), pets }, keys);
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
  const keys: KeyedLines = new Map();
  for (const [i, item] of pets.entries()) {
    if (!addPet(item, out, keys))
      return `pets[${i}]: not a Pet (id and categoryId int64, name a string, status one of ${PET_STATUSES.join(', ')})`;
  }
  return withKeys({ generation: generation ?? 0, nextId: BigInt(nextId), pets: out, foreign: true }, keys);
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
  /** Their `idempotency` members, by index in `pets`. */
  keys: KeyedLines;
  /** Bytes of the complete lines decoded (where the next read starts). */
  consumed: number;
  /** A complete line that is not a pet: its number within the chunk (1-based). */
  badLine?: number;
}

/** Decodes journal pet lines; a last line without its newline is left for later. */
export function decodeJournalPets(bytes: Buffer): JournalChunk {
  const end = bytes.lastIndexOf(0x0a);
  const chunk: JournalChunk = { pets: [], keys: new Map(), consumed: end + 1 };
  if (end < 0) return chunk;
  const lines = bytes.toString('utf8', 0, end).split('\n');
  for (const [i, line] of lines.entries()) {
    if (!addPetLine(line, chunk.pets, chunk.keys)) return { ...chunk, badLine: i + 1 };
  }
  return chunk;
}

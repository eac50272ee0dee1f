/**
 * Pure renderers of pets (cli-contract.md "Output"): the tab-separated machine form,
 * JSON and NDJSON. The table is in `table.ts`, loaded only when a table is printed.
 */
import type { Int64, NewPet } from '../api/schemas.js';
import { stringifyJson } from '../json.js';
import { escapeJsonText, escapeTsvField } from './escape.js';

/**
 * Output modes after the TTY decision: without `--output`, a terminal gets `table` and a
 * pipe `tsv`; an explicit `--output` is honoured as given.
 */
export type RenderMode = 'table' | 'tsv' | 'json' | 'ndjson';

/**
 * What the renderers print: a Pet, or a NewPet not created yet (`pets create --from-file
 * --dry-run`), whose id is left empty.
 */
export type PetRow = NewPet & { id?: Int64 };

/** One pet as a machine-form (`tsv`) line: id, name, categoryId, status, tab-separated, ending in `\n`. */
export function renderPetTsv(pet: PetRow): string {
  return `${String(pet.id ?? '')}\t${escapeTsvField(pet.name)}\t${String(pet.categoryId)}\t${pet.status ?? ''}\n`;
}

/**
 * One record as an NDJSON line (compact JSON, exact int64, ending in `\n`); control, bidi
 * and format characters in strings are written as `\uHHHH` (same value, safe on a terminal).
 */
export function renderNdjson(record: unknown): string {
  return escapeJsonText(stringifyJson(record)) + '\n';
}

/** A value as indented JSON (2 spaces, exact int64, ending in `\n`). */
export function renderJson(value: unknown): string {
  return escapeJsonText(stringifyJson(value, 2)) + '\n';
}

/**
 * One element of an indented JSON array, for writing an array piece by piece: the text
 * `renderJson(array)` would hold for it, preceded by `[` or `,` and a newline. Streaming a
 * long listing this way keeps memory flat and prints exactly what `renderJson` would.
 */
export function renderJsonArrayItem(record: unknown, first: boolean): string {
  const body = escapeJsonText(stringifyJson(record, 2)).replace(/^/gm, '  ');
  return `${first ? '[' : ','}\n${body}`;
}

/** Closes an array written with `renderJsonArrayItem` (`[]` when it had no element). */
export function renderJsonArrayEnd(count: number): string {
  return count === 0 ? '[]\n' : '\n]\n';
}

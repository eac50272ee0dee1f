/**
 * Pure renderers of pets (cli-contract.md "Output"): the tab-separated machine form, CSV,
 * JSON and NDJSON, each of every field or of the fields `--fields` names. The table is in
 * `table.ts`, loaded only when a table is printed.
 */
import { PET_FIELDS, type PetField } from '../client/constants.js';
import type { Pet } from '../client/schemas.js';
import { stringifyJson } from '../base/json.js';
import { csvRow } from './csv.js';
import { escapeForTerminal, escapeJsonText, escapeTsvField } from '../text/escape.js';

/**
 * Output modes after the TTY decision: without `--output`, a terminal gets `table` and a
 * pipe `tsv`; an explicit `--output` is honoured as given.
 */
export type RenderMode = 'table' | 'tsv' | 'csv' | 'json' | 'ndjson';

/** A pet's field as text: int64 values exact, a missing status empty. */
export function fieldText(pet: Pet, field: PetField): string {
  const value = pet[field];
  return value === undefined ? '' : String(value);
}

/**
 * The record `--fields` keeps (cli-contract.md "Output"): only `fields`, in that order,
 * a field the pet lacks (an optional `status`) left out; `pet` itself without `fields`.
 */
export function pickFields(pet: Pet, fields: readonly PetField[] | undefined): Record<string, unknown> {
  if (fields === undefined) return pet;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (pet[f] !== undefined) out[f] = pet[f];
  return out;
}

/**
 * One pet as a machine-form (`tsv`) line: its fields (id, name, categoryId, status, or
 * `fields`), tab-separated, ending in `\n`.
 */
export function renderPetTsv(pet: Pet, fields: readonly PetField[] = PET_FIELDS): string {
  return `${fields.map((f) => (f === 'name' ? escapeTsvField(pet.name) : fieldText(pet, f))).join('\t')}\n`;
}

/** The header row of the CSV form: the field names, CRLF-terminated. */
export function renderCsvHeader(fields: readonly PetField[] = PET_FIELDS): string {
  return csvRow(fields.map((f) => ({ text: f, kind: 'text' })));
}

/**
 * One pet as a CSV record (RFC 4180, see `csv.ts`): ids exact, text made inert for
 * spreadsheets. On a terminal (`forTerminal`) the name's control, bidi and format
 * characters are escaped first, as everywhere text from a server reaches one; piped, the
 * name is written exactly.
 */
export function renderPetCsv(pet: Pet, fields: readonly PetField[] = PET_FIELDS, forTerminal = false): string {
  return csvRow(
    fields.map((f) =>
      f === 'id' || f === 'categoryId'
        ? { text: fieldText(pet, f), kind: 'integer' }
        : { text: forTerminal ? escapeForTerminal(fieldText(pet, f)) : fieldText(pet, f), kind: 'text' },
    ),
  );
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

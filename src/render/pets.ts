/**
 * Pure renderers of pets (cli-contract.md "Output"): the tab-separated machine form,
 * JSON and NDJSON. The TTY table is in `table.ts` so cli-table3 loads only when needed.
 */
import type { Pet } from '../api/schemas.js';
import { stringifyJson } from '../json.js';

/** Output modes after the TTY decision: `table` on a TTY becomes `tsv` when piped. */
export type RenderMode = 'table' | 'tsv' | 'json' | 'ndjson';

/** Columns of the table and the machine form, in order. */
export const PET_COLUMNS = ['id', 'name', 'categoryId', 'status'] as const;

/**
 * Escapes a field for the tab-separated form: backslash, tab, CR and LF become `\\`,
 * `\t`, `\r`, `\n`, so each record stays on one line with exactly four fields; any other
 * control character (C0, DEL, C1) becomes `\xHH`, so a name sent by the server cannot
 * drive the terminal of someone who pipes the output through `cat` or `less -R`.
 */
export function escapeTsvField(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\\\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    if (c === '\n') return '\\n';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** One pet as a machine-form line: id, name, categoryId, status, tab-separated, ending in `\n`. */
export function renderPetTsv(pet: Pet): string {
  return `${String(pet.id)}\t${escapeTsvField(pet.name)}\t${String(pet.categoryId)}\t${pet.status ?? ''}\n`;
}

/** One record as an NDJSON line (compact JSON, exact int64, ending in `\n`). */
export function renderNdjson(record: unknown): string {
  return stringifyJson(record) + '\n';
}

/** A value as indented JSON (2 spaces, exact int64, ending in `\n`). */
export function renderJson(value: unknown): string {
  return stringifyJson(value, 2) + '\n';
}

/**
 * One element of an indented JSON array, for writing an array piece by piece: the text
 * `renderJson(array)` would hold for it, preceded by `[` or `,` and a newline. Streaming a
 * long listing this way keeps memory flat and prints exactly what `renderJson` would.
 */
export function renderJsonArrayItem(record: unknown, first: boolean): string {
  const body = stringifyJson(record, 2).replace(/^/gm, '  ');
  return `${first ? '[' : ','}\n${body}`;
}

/** Closes an array written with `renderJsonArrayItem` (`[]` when it had no element). */
export function renderJsonArrayEnd(count: number): string {
  return count === 0 ? '[]\n' : '\n]\n';
}

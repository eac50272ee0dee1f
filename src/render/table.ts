/**
 * The table of pets (cli-contract.md "Output"): the header `ID  NAME  CATEGORY  STATUS`
 * (gh's and kubectl's upper-case headers), columns aligned by display width and two spaces
 * apart, the status coloured. Given the terminal's width, the table never exceeds it: only
 * the name is shortened, with `…`; ids, categories and statuses are never cut, since a
 * shortened id would be a wrong id. The machine forms (tsv, json, ndjson) are never shortened.
 */
import { PET_FIELDS, type PetField } from '../client/constants.js';
import type { Pet } from '../client/schemas.js';
import type { Colors } from '../io/io.js';
import { escapeForTerminal } from '../text/escape.js';
import { fieldText } from './pets.js';
import { displayWidth, padToWidth, truncateToWidth } from '../text/width.js';

/** The column header of each field (gh's and kubectl's upper-case headers). */
const HEADERS: Record<PetField, string> = { id: 'ID', name: 'NAME', categoryId: 'CATEGORY', status: 'STATUS' };

/** Columns between two columns. */
const GAP = '  ';

/**
 * Colours a status: available green, pending yellow, sold dim (no red: nothing here is an
 * error). Unknown values are left plain.
 */
export function colorStatus(status: string | undefined, c: Colors): string {
  if (status === undefined) return '';
  if (status === 'available') return c.green(status);
  if (status === 'pending') return c.yellow(status);
  if (status === 'sold') return c.dim(status);
  return status;
}

/**
 * Renders pets as an aligned table ending in `\n`; lines carry no trailing spaces. The
 * columns are `fields` in order (default: ID, NAME, CATEGORY, STATUS). `columns` is the
 * terminal's width: when the table would be wider, the name column is narrowed (never
 * below its header) and longer names end in `…`; no other column is ever cut. Without
 * `columns` (stdout is not a terminal) names are never shortened.
 */
export function renderPetTable(
  pets: readonly Pet[],
  c: Colors,
  columns?: number,
  fields: readonly PetField[] = PET_FIELDS,
): string {
  const rows = pets.map((p) => fields.map((f) => (f === 'name' ? escapeForTerminal(p.name) : fieldText(p, f))));
  // Each column is as wide as its widest cell or its header, whichever is wider.
  const widths = fields.map((f, i) => Math.max(HEADERS[f].length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const nameAt = fields.indexOf('name');
  if (nameAt >= 0 && columns !== undefined) {
    const others = widths.reduce((sum, w, i) => (i === nameAt ? sum : sum + w), 0);
    const room = columns - others - (fields.length - 1) * GAP.length;
    widths[nameAt] = Math.max(HEADERS.name.length, Math.min(widths[nameAt] ?? 0, room));
  }
  // Cells are padded before they are coloured, so escape codes never count as columns; the
  // last column is not padded, and no line ends in spaces.
  const line = (cells: readonly string[], paint: (cell: string, column: number) => string): string =>
    cells
      .map((cell, i) => paint(i === cells.length - 1 ? cell : padToWidth(cell, widths[i] ?? 0), i))
      .join(GAP)
      .trimEnd();
  const out = [
    line(
      fields.map((f) => HEADERS[f]),
      (cell) => c.bold(cell),
    ),
  ];
  for (const row of rows) {
    const cells = row.map((cell, i) => (i === nameAt ? truncateToWidth(cell, widths[i] ?? 0) : cell));
    out.push(
      line(cells, (cell, i) =>
        fields[i] === 'status' ? colorStatus(cell.trimEnd() === '' ? undefined : cell.trimEnd(), c) + pad(cell) : cell,
      ),
    );
  }
  return out.join('\n') + '\n';
}

/** The padding spaces at the end of a padded cell (kept outside the colour codes). */
function pad(cell: string): string {
  return cell.slice(cell.trimEnd().length);
}

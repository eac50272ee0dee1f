/**
 * The table of pets (cli-contract.md "Output"): the header `ID  NAME  CATEGORY  STATUS`
 * (gh's and kubectl's upper-case headers), columns aligned by display width and two spaces
 * apart, the status coloured. Given the terminal's width, the table never exceeds it: only
 * the name is shortened, with `…`; ids, categories and statuses are never cut, since a
 * shortened id would be a wrong id. The machine forms (tsv, json, ndjson) are never shortened.
 */
import type { Colors } from '../io.js';
import { escapeForTerminal } from './escape.js';
import type { PetRow } from './pets.js';
import { displayWidth, padToWidth, truncateToWidth } from './width.js';

/** The table's column headers, in order. */
const TABLE_HEADERS = ['ID', 'NAME', 'CATEGORY', 'STATUS'] as const;

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
 * Renders pets as an aligned table ending in `\n`; lines carry no trailing spaces.
 * `columns` is the terminal's width: when the table would be wider, the name column is
 * narrowed (never below its header) and longer names end in `…`. Without `columns` (stdout
 * is not a terminal) names are never shortened.
 */
export function renderPetTable(pets: readonly PetRow[], c: Colors, columns?: number): string {
  const rows = pets.map((p) => [String(p.id ?? ''), escapeForTerminal(p.name), String(p.categoryId), p.status ?? '']);
  // Each column is as wide as its widest cell or its header, whichever is wider.
  const widths = TABLE_HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const [idWidth = 0, fullNameWidth = 0, categoryWidth = 0, statusWidth = 0] = widths;
  const room = columns === undefined ? Infinity : columns - idWidth - categoryWidth - statusWidth - 3 * GAP.length;
  widths[1] = Math.max('NAME'.length, Math.min(fullNameWidth, room));
  const nameWidth = widths[1];
  // Cells are padded before they are coloured, so escape codes never count as columns; the
  // last column is not padded, and no line ends in spaces.
  const line = (cells: string[], paint: (cell: string, column: number) => string): string =>
    cells
      .map((cell, i) => paint(i === cells.length - 1 ? cell : padToWidth(cell, widths[i] ?? 0), i))
      .join(GAP)
      .trimEnd();
  const out = [line([...TABLE_HEADERS], (cell) => c.bold(cell))];
  for (const [id = '', name = '', category = '', status = ''] of rows) {
    out.push(
      line([id, truncateToWidth(name, nameWidth), category, status], (cell, i) =>
        i === 3 ? colorStatus(cell === '' ? undefined : cell, c) : cell,
      ),
    );
  }
  return out.join('\n') + '\n';
}

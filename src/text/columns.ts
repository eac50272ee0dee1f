/**
 * Aligned columns for a terminal (`config list`, `env list`): cells padded to their
 * column's width, two spaces apart, no line wider than the terminal when its width is
 * known. Columns that may be shortened are shortened with `…`, in stages (the details
 * first, then the values), so what a person needs most stays whole longest; the full
 * values are in `-o tsv|json`.
 */
import { displayWidth, padToWidth, truncateToWidth } from './width.js';

/**
 * One stage of shortening: `columns` (indexes) are shortened, the widest first, down to
 * `min` cells each; or `column` takes its cells' `shorter` forms (one per row, in the
 * rows' order), all at once, when the rows are still too wide (`env list`: the key's
 * source without the masked key).
 */
type ShrinkStage = { columns: readonly number[]; min: number } | { column: number; shorter: readonly string[] };

/** How `renderColumns` lays out its rows. */
export interface ColumnsLayout {
  /** The terminal's width in cells; undefined (not a terminal): nothing is shortened. */
  width: number | undefined;
  /** The stages of shortening, in order; columns in none keep their width. */
  shrink: readonly ShrinkStage[];
  /** Styles a cell's text (after shortening; padding is added outside the style), e.g. dims a column. */
  style?: (column: number, text: string) => string;
  /** The first row is a header row (`NAME  BASE URL ...`), styled with this instead of `style`. */
  header?: (text: string) => string;
}

const GAP = 2;

/**
 * Renders `given` rows (cells already escaped for a terminal) as aligned lines, each ending
 * in `\n`, trailing spaces trimmed. Rows may have fewer cells than others (the missing ones are
 * empty).
 */
export function renderColumns(given: readonly (readonly string[])[], layout: ColumnsLayout): string {
  let rows = given;
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widthOf = (i: number): number => Math.max(0, ...rows.map((r) => displayWidth(r[i] ?? '')));
  const widths = Array.from({ length: count }, (_, i) => widthOf(i));
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, count - 1);
  const over = (): boolean => layout.width !== undefined && total() > layout.width;
  for (const stage of layout.shrink) {
    if ('shorter' in stage) {
      if (!over()) continue;
      const { column, shorter } = stage;
      rows = rows.map((r, n) => r.map((cell, i) => (i === column ? (shorter[n] ?? cell) : cell)));
      widths[column] = Math.min(widths[column] ?? 0, widthOf(column));
      continue;
    }
    while (over()) {
      // The widest column of the stage still above its minimum; on a tie, the first listed.
      let pick: number | undefined;
      for (const i of stage.columns) {
        const w = widths[i] ?? 0;
        if (w > stage.min && (pick === undefined || w > (widths[pick] ?? 0))) pick = i;
      }
      if (pick === undefined) break;
      widths[pick] = (widths[pick] ?? 0) - 1;
    }
  }
  const plain = layout.style ?? ((_c: number, t: string) => t);
  const header = layout.header;
  return rows
    .map((row, n) => {
      const style = n === 0 && header !== undefined ? (_c: number, t: string) => header(t) : plain;
      const cells = widths.map((w, i) => {
        const text = truncateToWidth(row[i] ?? '', w);
        // The last column is not padded: its line is trimmed anyway.
        return i === count - 1 ? style(i, text) : style(i, text) + padToWidth('', w - displayWidth(text));
      });
      return `${cells.join(' '.repeat(GAP)).trimEnd()}\n`;
    })
    .join('');
}

/**
 * CSV for spreadsheets (cli-contract.md "Output", `-o csv`): RFC 4180 records (fields
 * separated by commas, CRLF line ends, a field holding a comma, a double quote, CR or LF
 * enclosed in double quotes with its quotes doubled), and OWASP's rule against CSV
 * injection: a text cell starting with `=`, `+`, `-`, `@`, a tab or a CR, which a
 * spreadsheet would run as a formula, gets a `'` in front and is quoted. Integer cells (ids,
 * categories) are written as they are, a negative one included: they are exact numbers,
 * never formulas. Pure.
 */

/** One cell: its text and whether it is an integer (written as is) or text (guarded). */
export interface CsvCell {
  text: string;
  kind: 'integer' | 'text';
}

/** What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** What RFC 4180 §2 (6) asks to enclose in double quotes. */
const NEEDS_QUOTES = /[",\r\n]/;

/** One field of a record: guarded when it is text that would start a formula, quoted when it must be. */
export function csvField(cell: CsvCell): string {
  const guarded = cell.kind === 'text' && FORMULA_START.test(cell.text);
  const text = guarded ? `'${cell.text}` : cell.text;
  return guarded || NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record: the fields joined by commas, ending in CRLF (RFC 4180 §2 (1)). */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

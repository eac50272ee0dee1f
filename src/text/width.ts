/**
 * Display width of text on a terminal, in columns: what the table, help and message
 * wrapping measure with, so that a name in Chinese or with an emoji neither breaks the
 * alignment nor makes a line wider than the terminal. Pure.
 *
 * The widths come from `string-width` (with `get-east-asian-width` under it), which follows
 * each Unicode release: grapheme clusters (UAX #29) of 0, 1 or 2 columns, 2 for East Asian
 * Wide and Fullwidth characters (UAX #11) and for emoji (UTS #51, keycaps and ZWJ
 * sequences included), 0 for controls, format characters and lone combining marks;
 * ambiguous-width characters count 1, as on wcwidth-based terminals (xterm, tmux, VTE).
 * A hand-kept list of ranges drifted with every Unicode release; this does not.
 */
/** string-width's default export. */
type StringWidth = (s: string) => number;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

let segmenter: Intl.Segmenter | undefined;
let stringWidth: StringWidth | undefined;

/**
 * Columns of `s`, by string-width, which is loaded on the first text that is not plain
 * ASCII: it builds an `Intl.Segmenter` as it loads (10-25 ms of ICU data), which most runs
 * (ASCII help, ids, messages) never need, and this module is on every command's start-up
 * path. Loaded with a synchronous `require`: in the bundle, esbuild turns the ES module into
 * one initialised on that first call; from the sources, Node requires the ES module itself.
 */
function measure(s: string): number {
  stringWidth ??= loadStringWidth();
  return stringWidth(s);
}

function loadStringWidth(): StringWidth {
  if (typeof require === 'function') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require, which esbuild bundles as a lazily initialised module
    return (require('string-width') as { default: StringWidth }).default;
  }
  const { createRequire } = process.getBuiltinModule('node:module');
  return (createRequire(import.meta.url)('string-width') as { default: StringWidth }).default;
}

/** The grapheme clusters of `s` (what a reader sees as one character each). */
function graphemes(s: string): string[] {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(segmenter.segment(s), (g) => g.segment);
}

/** Columns `s` takes on a terminal (see the module comment). `s` holds no line break. */
export function displayWidth(s: string): number {
  // Most text is plain ASCII: one column a character, no segmentation needed.
  if (PRINTABLE_ASCII.test(s)) return s.length;
  return measure(s);
}

/**
 * Shortens `s` to at most `width` columns, ending it with `…` when anything was cut;
 * whole grapheme clusters only, so a wide character or an emoji is never split. Returns
 * `s` itself when it fits. `width` below 1 gives `…`.
 */
export function truncateToWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  const room = Math.max(width - 1, 0);
  let out = '';
  let used = 0;
  for (const g of graphemes(s)) {
    const w = displayWidth(g);
    if (used + w > room) break;
    out += g;
    used += w;
  }
  return `${out}…`;
}

/** `s` followed by spaces up to `width` columns (unchanged when already that wide). */
export function padToWidth(s: string, width: number): string {
  const pad = width - displayWidth(s);
  return pad > 0 ? s + ' '.repeat(pad) : s;
}

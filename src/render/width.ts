/**
 * Display width of text on a terminal, in columns: what the table, help and message
 * wrapping measure with, so that a name in Chinese or with an emoji neither breaks the
 * alignment nor makes a line wider than the terminal. Pure; no dependencies.
 *
 * Text is cut into grapheme clusters (`Intl.Segmenter`, UAX #29), and each cluster takes
 * 0, 1 or 2 columns: 2 for East Asian Wide and Fullwidth characters (UAX #11) and for
 * emoji shown as emoji (UTS #51: Emoji_Presentation, or a text emoji with VS16), 0 for a
 * lone combining mark or format character, 1 for anything else. That is what wcwidth-based
 * terminals (xterm, tmux, VTE) draw for these characters; ambiguous-width characters count 1.
 */

/** East Asian Wide (W) and Fullwidth (F) ranges, UAX #11 (emoji are handled apart). */
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo Extended-A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff], // Tangut
  [0x1b000, 0x1b2ff], // Kana supplement and extensions, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x3fffd], // CJK Extensions B and later
];

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;
const ZERO_WIDTH = /^[\p{M}\p{Cf}\p{Cc}]+$/u;

let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of `s` (what a reader sees as one character each). */
function graphemes(s: string): string[] {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(segmenter.segment(s), (g) => g.segment);
}

function isWide(cp: number): boolean {
  if (cp < 0x1100) return false;
  for (const [lo, hi] of WIDE_RANGES) {
    if (cp < lo) return false;
    if (cp <= hi) return true;
  }
  return false;
}

/** Columns taken by one grapheme cluster: 0, 1 or 2. */
function clusterWidth(cluster: string): number {
  if (cluster.length === 1 && cluster >= ' ' && cluster <= '~') return 1;
  if (ZERO_WIDTH.test(cluster)) return 0;
  if (EMOJI_PRESENTATION.test(cluster) || REGIONAL_INDICATOR.test(cluster)) return 2;
  if (cluster.includes('\ufe0f') && PICTOGRAPHIC.test(cluster)) return 2;
  return isWide(cluster.codePointAt(0) ?? 0) ? 2 : 1;
}

/** Columns `s` takes on a terminal (see the module comment). `s` holds no line break. */
export function displayWidth(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  let width = 0;
  for (const g of graphemes(s)) width += clusterWidth(g);
  return width;
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
    const w = clusterWidth(g);
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

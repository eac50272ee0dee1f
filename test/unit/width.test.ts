/**
 * Display widths from string-width, compared with the hand-typed ranges petstore measured
 * with before (test/fixtures/width-before.ts): the cases whose width changed are listed
 * here, with both widths; every other case measures, cuts, pads and lays out a table
 * exactly as before, at 60, 80 and 120 columns.
 */
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../src/client/schemas.js';
import { noColors } from '../../src/io/io.js';
import { escapeForTerminal } from '../../src/text/escape.js';
import { renderPetTable } from '../../src/render/table.js';
import { wrapMessage } from '../../src/text/wrap.js';
import { displayWidth, padToWidth, truncateToWidth } from '../../src/text/width.js';
import * as before from '../fixtures/width-before.js';

/** Names a shop might hold, across scripts and emoji, one case each. */
const CASES = [
  'Rex',
  'Zoë',
  'Renée',
  'e\u0301',
  'a\u0308\u0301',
  'Øyvind',
  'Ωmega',
  'Ñandú',
  '犬',
  '日本語の猫',
  '한국어',
  '가나다',
  '\u1100\u1161',
  'ｆｕｌｌ',
  'ア',
  'ｱ',
  '〜',
  '\u3000',
  'ภาษาไทย',
  'العربية',
  'עברית',
  'Ελληνικά',
  'Кот',
  '🐶',
  '🫎',
  '🐕‍🦺',
  '❤',
  '❤️',
  '©',
  '©️',
  '☺',
  '☺️',
  '⌚',
  '⚽',
  '✅',
  '☔',
  '⭐',
  '🀄',
  '🃏',
  '🆚',
  '🅰',
  '🅰️',
  'ℹ️',
  'Ⓜ️',
  '👨‍👩‍👧',
  '🏳️‍🌈',
  '🧑‍💻',
  '👁️‍🗨️',
  '👍🏽',
  '🇫🇷',
  '🇯🇵',
  '±',
  '①',
  '€',
  '…',
  '—',
  '中文 and English',
  'zero\u200bwidth',
  'soft\u00adhyphen',
  '\u{20000}',
  '#️⃣',
  '1️⃣',
  '#\u20e3',
  'हिन्दी',
  'ｶﾞ',
  '\u{1f1e6}',
];

/** The cases whose width changed: [case, columns before, columns now]. */
const CHANGED: [string, number, number][] = [
  // Keycaps are emoji (UTS #51): terminals draw them two columns wide.
  ['#️⃣', 1, 2],
  ['1️⃣', 1, 2],
  ['#\u20e3', 1, 2],
  // Devanagari's spacing vowel signs take a column of their own.
  ['हिन्दी', 2, 4],
  // A halfwidth katakana with a halfwidth voiced mark: two halfwidth columns.
  ['ｶﾞ', 1, 2],
  // A lone regional indicator (half a flag) is narrow.
  ['\u{1f1e6}', 2, 1],
];

const COLUMNS = [60, 80, 120];
const unchanged = CASES.filter((s) => !CHANGED.some(([c]) => c === s));

describe('display widths from string-width', () => {
  it('differ from the widths before only in the listed cases', () => {
    const changed = CASES.filter((s) => displayWidth(s) !== before.displayWidth(s)).map((s) => [
      s,
      before.displayWidth(s),
      displayWidth(s),
    ]);
    expect(changed).toEqual(CHANGED);
  });

  it.each(unchanged)('%s is measured, cut and padded as before at every width up to 120', (s) => {
    const long = s.repeat(40);
    expect(displayWidth(long)).toBe(before.displayWidth(long));
    for (let w = 1; w <= 120; w++) {
      expect(truncateToWidth(long, w)).toBe(before.truncateToWidth(long, w));
      expect(padToWidth(s, w)).toBe(before.padToWidth(s, w));
    }
  });

  it.each(COLUMNS)('lays out a table of every unchanged case as before at %i columns', (columns) => {
    const pets: Pet[] = unchanged.map((s, i) => ({
      id: 9007199254740993n + BigInt(i),
      name: `${s} `.repeat(30),
      categoryId: 1,
      status: 'available',
    }));
    const lines = renderPetTable(pets, noColors, columns).trimEnd().split('\n');
    const header = lines[0] ?? '';
    const nameAt = header.indexOf('NAME');
    const nameWidth = header.indexOf('CATEGORY') - 2 - nameAt;
    for (const [i, pet] of pets.entries()) {
      const line = lines[i + 1] ?? '';
      expect(before.displayWidth(line), line).toBeLessThanOrEqual(columns);
      // The table shows a name escaped (a zero-width joiner as `\u{200d}`), cut to the column.
      const shown = escapeForTerminal(pet.name.replace(/ +$/, ''));
      const cell = before.padToWidth(before.truncateToWidth(shown, nameWidth), nameWidth);
      expect(line.slice(nameAt, nameAt + cell.length), line).toBe(cell);
    }
  });

  it.each(COLUMNS)('wraps a message holding every unchanged case as before at %i columns', (columns) => {
    const message = unchanged.map((s, i) => `pet ${i} is called ${s}`).join(', ');
    // Wrapping measures nothing but words: each measures as before, so each line breaks where it did.
    for (const word of message.split(' ')) expect(displayWidth(word), word).toBe(before.displayWidth(word));
    const lines = wrapMessage(message, columns, 'warning: '.length, 2).split('\n');
    expect(before.displayWidth(lines[0] ?? '') + 'warning: '.length).toBeLessThanOrEqual(columns);
    for (const line of lines.slice(1)) expect(before.displayWidth(line), line).toBeLessThanOrEqual(columns);
  });
});

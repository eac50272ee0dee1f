/** Renderers of cli-contract.md "Output": machine form, json, ndjson, the TTY table, colour. */
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../src/client/schemas.js';
import { loadColors, noColors } from '../../src/io/io.js';
import { escapeForTerminal, escapeJsonText, escapeKeepingLines, escapeTsvField } from '../../src/text/escape.js';
import { csvField } from '../../src/render/csv.js';
import {
  renderCsvHeader,
  renderPetCsv,
  renderJson,
  renderJsonArrayEnd,
  renderJsonArrayItem,
  renderNdjson,
  renderPetTsv,
} from '../../src/render/pets.js';
import { colorStatus, renderPetTable } from '../../src/render/table.js';
import { displayWidth, truncateToWidth } from '../../src/text/width.js';

const ESC = '\u001b';
// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const SGR = /\u001b\[[0-9;]*m/g;

const PETS: Pet[] = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 9007199254740993n, name: 'Atlas', categoryId: 9223372036854775807n, status: 'pending' },
  { id: 12, name: 'Polly Parrot', categoryId: -9223372036854775808n, status: 'sold' },
  { id: 13, name: 'Nameless status', categoryId: 3 },
];

describe('escapeTsvField', () => {
  it.each([
    ['plain', 'plain'],
    ['a\tb', 'a\\tb'],
    ['a\nb', 'a\\nb'],
    ['a\r\nb', 'a\\r\\nb'],
    ['back\\slash', 'back\\\\slash'],
    ['\\t literally', '\\\\t literally'],
    ['', ''],
  ])('escapes %j as %j', (raw, want) => {
    expect(escapeTsvField(raw)).toBe(want);
  });
});

describe('renderPetTsv', () => {
  it('writes exactly four tab-separated fields, no header, exact int64', () => {
    const out = PETS.map((p) => renderPetTsv(p)).join('');
    expect(out).toBe(
      '1\tRex\t1\tavailable\n' +
        '9007199254740993\tAtlas\t9223372036854775807\tpending\n' +
        '12\tPolly Parrot\t-9223372036854775808\tsold\n' +
        '13\tNameless status\t3\t\n',
    );
    for (const line of out.slice(0, -1).split('\n')) expect(line.split('\t')).toHaveLength(4);
  });

  it('keeps a name with tab, newline and backslash on one line of four fields', () => {
    const line = renderPetTsv({ id: 5, name: 'a\tb\nc\\d', categoryId: 2, status: 'sold' });
    expect(line).toBe('5\ta\\tb\\nc\\\\d\t2\tsold\n');
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(line.slice(0, -1).split('\t')).toHaveLength(4);
  });
});

describe('renderJson / renderNdjson', () => {
  it('prints int64 exactly in json and ndjson', () => {
    expect(renderJson(PETS[1])).toBe(
      '{\n  "id": 9007199254740993,\n  "name": "Atlas",\n  "categoryId": 9223372036854775807,\n  "status": "pending"\n}\n',
    );
    expect(renderNdjson(PETS[1])).toBe(
      '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"pending"}\n',
    );
    expect(renderJson([])).toBe('[]\n');
  });
});

describe('renderPetTable', () => {
  it('has a header and aligned columns, no colour with noColors', () => {
    const out = renderPetTable(PETS, noColors);
    expect(out).not.toContain(ESC);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(PETS.length + 1);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS$/);
    // Each column starts at the same offset on every line.
    const header = lines[0] ?? '';
    const starts = ['NAME', 'CATEGORY', 'STATUS'].map((h) => header.indexOf(h));
    const rows = [
      ['1', 'Rex', '1', 'available'],
      ['9007199254740993', 'Atlas', '9223372036854775807', 'pending'],
      ['12', 'Polly Parrot', '-9223372036854775808', 'sold'],
    ];
    rows.forEach((cells, i) => {
      const line = lines[i + 1] ?? '';
      expect(line.startsWith(cells[0] ?? '')).toBe(true);
      cells.slice(1).forEach((cell, j) => expect(line.indexOf(cell, 1)).toBe(starts[j]));
    });
    for (const l of lines) expect(l).toBe(l.trimEnd());
  });

  it('colours the status (green, yellow, dim: no red) and bolds the header with chalk colours', async () => {
    const c = await loadColors(true);
    const out = renderPetTable(PETS, c);
    expect(out).toContain(`${ESC}[32mavailable${ESC}[39m`);
    expect(out).toContain(`${ESC}[33mpending${ESC}[39m`);
    expect(out).toContain(`${ESC}[2msold${ESC}[22m`);
    expect(out).not.toContain(`${ESC}[31m`);
    expect(out).toMatch(new RegExp(`^${ESC}\\[1mID +${ESC}\\[22m`));
    // Colour does not shift the columns.
    expect(out.replace(SGR, '')).toBe(renderPetTable(PETS, noColors));
  });

  it('aligns by display width: wide and combining characters', () => {
    const out = renderPetTable(
      [
        { id: 1, name: 'Zoë', categoryId: 1, status: 'sold' },
        { id: 2, name: '犬犬', categoryId: 1, status: 'sold' },
        { id: 3, name: 'e\u0301e', categoryId: 1, status: 'sold' },
      ],
      noColors,
    );
    expect(out).toBe(
      'ID  NAME  CATEGORY  STATUS\n' +
        '1   Zoë   1         sold\n' +
        '2   犬犬  1         sold\n' +
        '3   e\u0301e    1         sold\n',
    );
  });

  it('sanitizes control characters in names, so a name cannot drive the terminal', () => {
    const evil = `Evil${ESC}[2J${ESC}]0;title\u0007\r\nX\u009b`;
    const out = renderPetTable([{ id: 1, name: evil, categoryId: 1, status: 'sold' }], noColors);
    expect(out).not.toContain(ESC);
    expect(out).not.toContain('\u0007');
    expect(out).not.toContain('\r');
    expect(out).not.toContain('\u009b');
    expect(out.trimEnd().split('\n')).toHaveLength(2);
    expect(out).toContain('Evil\\x1b[2J\\x1b]0;title\\x07\\x0d\\x0aX\\x9b');
  });
});

describe('renderPetTable at a terminal width', () => {
  const LONG = 'A'.repeat(30) + ' the longest name in the shop, 60 chars';
  const WIDE: Pet[] = [
    { id: 9007199254740993n, name: LONG, categoryId: 9223372036854775807n, status: 'available' },
    { id: 2, name: '犬'.repeat(30), categoryId: 1, status: 'pending' },
    { id: 3, name: '🐶'.repeat(30), categoryId: -9223372036854775808n, status: 'sold' },
    { id: 4, name: 'e\u0301'.repeat(40), categoryId: 1 },
    { id: 5, name: 'Rex', categoryId: 1, status: 'available' },
  ];

  it.each([80, 60, 55])('is never wider than %i columns; ids, categories and statuses stay whole', (columns) => {
    const out = renderPetTable(WIDE, noColors, columns);
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS$/);
    for (const [i, pet] of WIDE.entries()) {
      const line = lines[i + 1] ?? '';
      expect(line.startsWith(`${String(pet.id)} `)).toBe(true);
      expect(line).toMatch(new RegExp(`  ${String(pet.categoryId)}(  |$)`));
      if (pet.status !== undefined) expect(line.endsWith(` ${pet.status}`)).toBe(true);
    }
    // Only the long names are shortened, with an ellipsis; short ones are whole.
    expect(lines[1]).toContain('…');
    expect(lines[5]).toMatch(/^5\s+Rex\s+1\s+available$/);
  });

  it('keeps the columns aligned by display width when names are cut', () => {
    const out = renderPetTable(WIDE, noColors, 60);
    const lines = out.trimEnd().split('\n');
    const at = displayWidth((lines[0] ?? '').slice(0, (lines[0] ?? '').indexOf('CATEGORY')));
    for (const [i, pet] of WIDE.entries()) {
      const line = lines[i + 1] ?? '';
      expect(displayWidth(line.slice(0, line.lastIndexOf(`  ${String(pet.categoryId)}`) + 2)), line).toBe(at);
    }
  });

  it('narrower than the other columns allow, only the name shrinks, down to its header', () => {
    const lines = renderPetTable(WIDE, noColors, 40).trimEnd().split('\n');
    // 16 (id) + 4 (NAME) + 20 (category) + 9 (status) + 3 gaps of 2.
    expect(lines[0]).toBe('ID                NAME  CATEGORY              STATUS');
    expect(lines[1]).toBe('9007199254740993  AAA…  9223372036854775807   available');
  });

  it('cuts wide characters and emoji whole, never half', () => {
    expect(truncateToWidth('犬犬犬犬', 5)).toBe('犬犬…');
    expect(truncateToWidth('🐶🐶🐶🐶', 4)).toBe('🐶…');
    expect(truncateToWidth('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
    expect(truncateToWidth('Rex', 3)).toBe('Rex');
    expect(displayWidth('🐶 Zoë 犬')).toBe(9);
  });

  it('without a width (stdout not a terminal), names stay whole', () => {
    const out = renderPetTable(WIDE, noColors);
    expect(out).toContain(LONG);
    expect(out).not.toContain('…');
  });

  it('colour codes never count as columns', async () => {
    const c = await loadColors(true);
    expect(renderPetTable(WIDE, c, 60).replace(SGR, '')).toBe(renderPetTable(WIDE, noColors, 60));
  });
});

describe('escapeForTerminal / colorStatus', () => {
  it('leaves printable text, including non-ASCII, alone', () => {
    expect(escapeForTerminal('Zoë 🐶 Kätzchen')).toBe('Zoë 🐶 Kätzchen');
    expect(escapeForTerminal('a\u0000b\u007fc')).toBe('a\\x00b\\x7fc');
  });
  it('colours only known statuses', async () => {
    const c = await loadColors(true);
    expect(colorStatus(undefined, c)).toBe('');
    expect(colorStatus('weird', c)).toBe('weird');
    expect(colorStatus('sold', noColors)).toBe('sold');
  });
});

describe('renderJsonArrayItem / renderJsonArrayEnd', () => {
  const pets = [
    { id: 1, name: 'Rex', categoryId: 9223372036854775807n, status: 'available' as const },
    { id: 9007199254740993n, name: 'Tab\there', categoryId: 2 },
    { id: 3, name: 'Kiwi', categoryId: 4, status: 'sold' as const },
  ];

  it.each([0, 1, 3])('written piece by piece, %i records print exactly what renderJson prints', (n) => {
    const some = pets.slice(0, n);
    const pieces = some.map((p, i) => renderJsonArrayItem(p, i === 0)).join('') + renderJsonArrayEnd(some.length);
    expect(pieces).toBe(renderJson(some));
  });
});

describe('escapeTsvField: other control characters', () => {
  it.each([
    ['Ev\u001b]0;pwned\u0007il', 'Ev\\x1b]0;pwned\\x07il'],
    ['clear\u001b[2J', 'clear\\x1b[2J'],
    ['del\u007f', 'del\\x7f'],
    ['csi\u009b31m', 'csi\\x9b31m'],
    ['back\\x1b', 'back\\\\x1b'],
    ['Zoë 🐈', 'Zoë 🐈'],
  ])('%j is written as %j', (raw, want) => {
    expect(escapeTsvField(raw)).toBe(want);
    // eslint-disable-next-line no-control-regex -- no control character may remain
    expect(escapeTsvField(raw)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

/** Every class of character a server could use to drive a terminal or hide text. */
const UNSAFE_CASES: [string, string, string][] = [
  ['C0: ESC of a CSI clear-screen', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
  ['C0: BEL ending an OSC title', '\u001b]0;t\u0007', '\\x1b]0;t\\x07'],
  ['C0: CR and LF (a forged line)', 'x\r\nerror: y', 'x\\x0d\\x0aerror: y'],
  ['DEL', 'd\u007f', 'd\\x7f'],
  ['C1: CSI', 'c\u009b31m', 'c\\x9b31m'],
  ['bidi: RIGHT-TO-LEFT OVERRIDE', 'abc\u202Efdp.exe', 'abc\\u{202e}fdp.exe'],
  ['bidi: isolates U+2066-2069', '\u2066x\u2069', '\\u{2066}x\\u{2069}'],
  ['bidi: marks U+200E/200F', 'a\u200Eb\u200F', 'a\\u{200e}b\\u{200f}'],
  ['format: ZERO WIDTH SPACE', 'ad\u200Bmin', 'ad\\u{200b}min'],
  ['separators U+2028/2029', 'l\u2028p\u2029', 'l\\u{2028}p\\u{2029}'],
];

describe('escaping server text', () => {
  it.each(UNSAFE_CASES)('escapeForTerminal: %s', (_name, raw, want) => {
    expect(escapeForTerminal(raw)).toBe(want);
  });

  it.each(UNSAFE_CASES)('escapeTsvField escapes %s too, and the line keeps four fields', (_name, raw) => {
    const line = renderPetTsv({ id: 1, name: raw, categoryId: 1, status: 'sold' });
    expect(line.slice(0, -1).split('\t')).toHaveLength(4);
    expect(line.slice(0, -1)).not.toMatch(
      // eslint-disable-next-line no-control-regex -- nothing unsafe may remain
      /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/,
    );
  });

  it.each(UNSAFE_CASES)('the table escapes %s', (_name, raw, want) => {
    expect(renderPetTable([{ id: 1, name: raw, categoryId: 1, status: 'sold' }], noColors)).toContain(want);
  });

  it.each(UNSAFE_CASES)('JSON: %s is escaped as \\uHHHH and parses back to the same value', (_name, raw) => {
    const text = renderJson({ name: raw });
    // eslint-disable-next-line no-control-regex -- nothing unsafe may remain raw
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/);
    expect((JSON.parse(text) as { name: string }).name).toBe(raw);
    expect((JSON.parse(renderNdjson({ name: raw })) as { name: string }).name).toBe(raw);
  });

  it('escapeJsonText writes a character beyond the BMP as a surrogate pair', () => {
    const tag = String.fromCodePoint(0xe0041); // TAG LATIN CAPITAL LETTER A, a format character
    const text = escapeJsonText(JSON.stringify({ s: tag }));
    expect(text).toBe('{"s":"\\udb40\\udc41"}');
    expect((JSON.parse(text) as { s: string }).s).toBe(tag);
  });

  it('escapeKeepingLines keeps line feeds and escapes the rest', () => {
    expect(escapeKeepingLines('one\ntwo\u001b[2J\r')).toBe('one\ntwo\\x1b[2J\\x0d');
  });
});

describe('csvField (RFC 4180, OWASP CSV injection)', () => {
  it.each([
    ['Rex', 'text', 'Rex'],
    ['a,b', 'text', '"a,b"'],
    ['say "hi"', 'text', '"say ""hi"""'],
    ['two\nlines', 'text', '"two\nlines"'],
    ['cr\rhere', 'text', '"cr\rhere"'],
    ['=1+1', 'text', `"'=1+1"`],
    ['+1', 'text', `"'+1"`],
    ['-1', 'text', `"'-1"`],
    ['@SUM(A1)', 'text', `"'@SUM(A1)"`],
    ['\tx', 'text', `"'\tx"`],
    ['\rx', 'text', `"'\rx"`],
    ['=HYPERLINK("u")', 'text', `"'=HYPERLINK(""u"")"`],
    ['Zoë 🐶', 'text', 'Zoë 🐶'],
    ['', 'text', ''],
    ['-9223372036854775808', 'integer', '-9223372036854775808'],
    ['9007199254740993', 'integer', '9007199254740993'],
  ] as const)('%j (%s) is written %j', (text, kind, want) => {
    expect(csvField({ text, kind })).toBe(want);
  });

  it('ends every record in CRLF', () => {
    expect(renderCsvHeader()).toBe('id,name,categoryId,status\r\n');
    expect(renderPetCsv(PETS[2]!)).toBe('12,Polly Parrot,-9223372036854775808,sold\r\n');
    expect(renderPetCsv(PETS[3]!, ['status', 'name'])).toBe(',Nameless status\r\n');
  });
});

describe('renderPetTable with --fields', () => {
  it('shows those columns in that order; only the name is ever cut', () => {
    const out = renderPetTable(PETS, noColors, 30, ['name', 'id']);
    expect(out.split('\n')[0]).toBe('NAME          ID');
    expect(out).toContain('Nameless st…  13');
    expect(out).toContain('9007199254740993');
    for (const line of out.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    expect(renderPetTable(PETS, noColors, 20, ['categoryId', 'status'])).toContain('-9223372036854775808  sold');
  });

  it('colours the status wherever its column is, padding outside the colour', async () => {
    const c = await loadColors(true);
    const out = renderPetTable(PETS, c, undefined, ['status', 'id']);
    expect(out).toContain(`${ESC}[32mavailable${ESC}[39m  1`);
    expect(out.replace(SGR, '')).toBe(renderPetTable(PETS, noColors, undefined, ['status', 'id']));
  });
});

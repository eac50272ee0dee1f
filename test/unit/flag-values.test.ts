/** Flag values by the rules of cli-contract.md "Input rules" (src/base/flag-values.ts): --limit, --status, int64 ids, pets watch's --max-events and --for; and the argv pre-scan. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { prescan } from '../../src/global-options.js';
import {
  parseDuration,
  parseFields,
  parseInt64,
  parseLimit,
  parseMaxEvents,
  parseSort,
  parseStatus,
} from '../../src/base/flag-values.js';

/** Runs `fn` and returns the UsageError it throws (fails the test if it does not). */
function usageErrorOf(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

describe('parseLimit', () => {
  const accepted: [string, number][] = [
    ['1', 1],
    ['100', 100],
    ['007', 7],
    ['20', 20],
    ['0100', 100],
    ['00000000000000000001', 1],
  ];
  it.each(accepted)('accepts %j as %d', (raw, want) => {
    expect(parseLimit(raw)).toBe(want);
  });

  const refused = [
    '0',
    '101',
    '1.5',
    'abc',
    '10abc',
    '+5',
    '1e2',
    '-1',
    '',
    ' 5',
    '5 ',
    '٥',
    '0x10',
    '000',
    '1000',
    '9'.repeat(400),
  ];
  it.each(refused)('refuses %j naming the flag, the value and the range', (raw) => {
    const err = usageErrorOf(() => parseLimit(raw));
    expect(err.exitCode).toBe(2);
    expect(err.code).toBe('usage');
    expect(err.message).toContain('--limit');
    expect(err.message).toContain(JSON.stringify(raw));
    expect(err.message).toContain('1 to 100');
  });
});

describe('parseStatus', () => {
  it.each(['available', 'pending', 'sold'])('accepts %j', (raw) => {
    expect(parseStatus(raw)).toBe(raw);
  });
  it.each(['Available', 'SOLD', 'available ', ' pending', '', 'bogus', 'availabl', 'sold\n'])('refuses %j', (raw) => {
    const err = usageErrorOf(() => parseStatus(raw));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('--status');
    expect(err.message).toContain(JSON.stringify(raw));
    expect(err.message).toContain('available, pending, sold');
  });
});

describe('parseInt64', () => {
  const accepted: [string, bigint][] = [
    ['0', 0n],
    ['1', 1n],
    ['-1', -1n],
    ['-0', 0n],
    ['007', 7n],
    ['-007', -7n],
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['0009223372036854775807', 9223372036854775807n],
  ];
  it.each(accepted)('accepts %j exactly', (raw, want) => {
    expect(parseInt64(raw, 'pet ID')).toBe(want);
  });

  const refused = [
    '9223372036854775808',
    '-9223372036854775809',
    '18446744073709551616',
    '9'.repeat(1000),
    '',
    '-',
    '+1',
    '1.0',
    '1e3',
    '0x1f',
    ' 1',
    '1 ',
    'abc',
    '٣',
    '--1',
  ];
  it.each(refused)('refuses %j naming what, the value and the int64 range', (raw) => {
    const err = usageErrorOf(() => parseInt64(raw, '--category-id'));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('--category-id');
    expect(err.message).toContain(JSON.stringify(raw));
    expect(err.message).toContain('-9223372036854775808 to 9223372036854775807');
  });
});

describe('parseFields / parseSort / prescan', () => {
  it.each([
    ['id', ['id']],
    ['name,id', ['name', 'id']],
    ['status, categoryId ,id', ['status', 'categoryId', 'id']],
  ])('--fields %j is %j', (raw, want) => {
    expect(parseFields(raw)).toEqual(want);
  });

  it.each([
    ['nme', 'unknown field "nme"'],
    ['Id', 'unknown field "Id"'],
    ['id,', 'unknown field an empty name'],
    ['', 'unknown field an empty name'],
    ['id,name,id', 'id is named twice'],
  ])('--fields %j is refused: %s', (raw, message) => {
    expect(() => parseFields(raw)).toThrow(message);
  });

  it.each([
    ['id', { field: 'id', descending: false }],
    ['-categoryId', { field: 'categoryId', descending: true }],
    ['name', { field: 'name', descending: false }],
  ])('--sort %j', (raw, want) => {
    expect(parseSort(raw)).toEqual(want);
  });

  it.each(['', '-', '--id', 'ID', '+id', 'colour'])('--sort %j is refused', (raw) => {
    expect(() => parseSort(raw)).toThrow(UsageError);
  });

  const valueFlags = new Set(['--name', '-o', '--jq', '--fields']);
  it.each([
    [
      ['pets', 'list', '--json', 'id,name'],
      ['pets', 'list', '--json-fields', 'id,name'],
    ],
    [
      ['--json', 'pets', 'list'],
      ['--json', 'pets', 'list'],
    ],
    [
      ['pets', 'get', '--json', '5'],
      ['pets', 'get', '--json', '5'],
    ],
    [
      ['pets', 'list', '--json=status'],
      ['pets', 'list', '--json-fields', 'status'],
    ],
    [
      ['pets', 'create', '--name', '--json', 'name'],
      ['pets', 'create', '--name', '--json', 'name'],
    ],
    [
      ['pets', 'list', '--', '--json', 'id'],
      ['pets', 'list', '--', '--json', 'id'],
    ],
    [
      ['pets', 'list', '--json', 'id,nme'],
      ['pets', 'list', '--json', 'id,nme'],
    ],
    // An optional value is taken only after `=`: the next word stays what it is.
    [
      ['api', '--dry-run', 'pets'],
      ['api', '--dry-run=', 'pets'],
    ],
    [
      ['api', 'pets', '--dry-run=curl'],
      ['api', 'pets', '--dry-run=curl'],
    ],
    [
      ['pets', 'create', '--name', '--dry-run', '--json', 'name'],
      ['pets', 'create', '--name', '--dry-run', '--json-fields', 'name'],
    ],
    [
      ['api', '--', '--dry-run'],
      ['api', '--', '--dry-run'],
    ],
  ])('%j is read as %j', (argv, want) => {
    expect(prescan(argv, (f) => (f === '--dry-run' ? 'attached' : valueFlags.has(f))).argv).toEqual(want);
  });

  it('--json=LIST with a word that is not a field is refused', () => {
    expect(prescan(['--json=id,nme']).refused?.message).toContain('unknown field "nme"');
  });
});

describe('parseMaxEvents / parseDuration (pets watch)', () => {
  it.each([
    ['1', 1],
    ['007', 7],
    ['1000000000', 1_000_000_000],
  ])('--max-events accepts %j as %d', (raw, want) => {
    expect(parseMaxEvents(raw)).toBe(want);
  });
  it.each(['0', '1000000001', '1.5', '-1', '+1', '1e3', 'abc', ''])('--max-events refuses %j', (raw) => {
    expect(usageErrorOf(() => parseMaxEvents(raw)).message).toContain(`invalid --max-events ${JSON.stringify(raw)}`);
  });
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['1.5', 1500],
    ['1.5m', 90_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['168h', 604_800_000],
    ['604800', 604_800_000],
  ])('--for accepts %j as %d ms', (raw, want) => {
    expect(parseDuration(raw)).toBe(want);
  });
  it.each(['0', '0.5', '0.5s', '604801', '169h', '8d', '1e3', '-1', '10 m', '10M', 'm', 's', 'abc', ''])(
    '--for refuses %j, naming the flag, the value and what is allowed',
    (raw) => {
      const err = usageErrorOf(() => parseDuration(raw));
      expect(err.message).toContain(`invalid --for ${JSON.stringify(raw)}`);
      expect(err.message).toContain('90s, 10m, 2h');
      expect(err.exitCode).toBe(2);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { arrayElementOffsets, checkNewPet, readNewPetRecords } from '../../src/api/records.js';
import { classifyCreateFailure } from '../../src/commands/pets/create-from-file.run.js';
import { parseMaxPages, toListOptions } from '../../src/commands/pets/list.js';
import {
  ApiError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
  UsageError,
} from '../../src/errors.js';

describe('arrayElementOffsets', () => {
  it('finds top-level elements, skipping strings and nesting', () => {
    const text = '[ {"a":"x,]"}, [1,2],"s\\"]",3 ]';
    expect(arrayElementOffsets(text).map((o) => text[o])).toEqual(['{', '[', '"', '3']);
  });
  it('gives nothing for an empty array', () => {
    expect(arrayElementOffsets('[ ]')).toEqual([]);
  });
});

describe('checkNewPet', () => {
  it('accepts a NewPet with exact int64', () => {
    expect(checkNewPet({ name: 'Rex', categoryId: 9223372036854775807n, status: 'sold' })).toEqual([]);
  });
  it.each([
    [{ name: 'Rex', categoryId: 9223372036854775808n }, 'categoryId must be an integer'],
    [{ name: 'Rex', categoryId: 2 ** 60 }, 'categoryId must be an integer'],
    [{ name: 'Rex', categoryId: 1, extra: true }, 'unknown field "extra"'],
    [{ name: 'Rex', category_id: 1 }, '(did you mean categoryId?)'],
    [{ categoryId: 1 }, 'name is missing'],
    [null, 'must be a JSON object'],
  ])('case %#: %s', (value, message) => {
    expect(checkNewPet(value).join('; ')).toContain(message);
  });
});

describe('readNewPetRecords', () => {
  it('detects NDJSON and numbers lines, blank lines skipped', () => {
    const r = readNewPetRecords('{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":2}\r\n');
    expect(r.ok && r.format).toBe('ndjson');
    expect(r.ok && r.records.map((x) => x.line)).toEqual([1, 3]);
  });
  it('detects a JSON array and gives each record the line where it starts', () => {
    const r = readNewPetRecords('\n[\n  {"name":"A",\n   "categoryId":1},\n  {"name":"B","categoryId":2}]');
    expect(r.ok && r.format).toBe('json');
    expect(r.ok && r.records.map((x) => x.line)).toEqual([3, 5]);
  });
  it('reports a syntax error in an array with its line', () => {
    const r = readNewPetRecords('[\n{"name":"A","categoryId":1},\n{"name":}\n]');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]?.line).toBe(3);
  });
  it.each(['1e2', '1.0', '100.00', '1E+2'])(
    'refuses categoryId %s, as --category-id does: only integer digits are exact',
    (num) => {
      for (const text of [`{"name":"A","categoryId":${num}}`, `[{"name":"A","categoryId":${num}}]`]) {
        const r = readNewPetRecords(text);
        expect(r.ok).toBe(false);
        expect(!r.ok && r.problems[0]?.message).toContain(
          `categoryId must be an integer from -9223372036854775808 to 9223372036854775807 (int64), got ${num}`,
        );
      }
    },
  );
  it('keeps categoryId digits beyond 2^53 exact', () => {
    const r = readNewPetRecords('{"name":"A","categoryId":9007199254740993}');
    expect(r.ok && r.records[0]?.pet.categoryId).toBe(9007199254740993n);
  });
  it('refuses an empty array', () => {
    expect(readNewPetRecords('[]')).toMatchObject({
      ok: false,
      problems: [{ message: 'no records: the array is empty' }],
    });
  });
});

describe('classifyCreateFailure', () => {
  it.each([
    [new ApiError({ code: 'x', message: 'm', status: 500 }, 500), 'not_created'],
    [new InvalidResponseError('bad body', 502), 'not_created'],
    [new InvalidResponseError('bad pet', 201), 'unknown'],
    [new NetworkError('refused', { cause: { code: 'ECONNREFUSED' } }), 'not_created'],
    [new NetworkError('reset', { cause: { code: 'ECONNRESET' } }), 'unknown'],
    [new TimeoutError('late'), 'unknown'],
    [new InterruptedError(), 'unknown'],
    [new Error('bug'), 'unknown'],
  ])('%s → %s', (err, want) => {
    expect(classifyCreateFailure(err)).toBe(want);
  });
});

describe('pets list options', () => {
  it('defaults --all to pages of 100 and 1000 pages', () => {
    expect(toListOptions({ all: true })).toEqual({ query: { limit: 100 }, all: true, maxPages: 1000 });
    expect(toListOptions({})).toEqual({ query: {}, all: false, maxPages: 1000 });
  });
  it.each(['1', '0010', '10000'])('accepts --max-pages %s', (v) => {
    expect(parseMaxPages(v)).toBe(Number(v));
  });
  it.each(['0', '10001', '', '-1', '+5', '1.5', '1e3', '000000000000000000001x'])('refuses --max-pages %j', (v) => {
    expect(() => parseMaxPages(v)).toThrow(UsageError);
  });
  it('refuses --max-pages without --all', () => {
    expect(() => toListOptions({ maxPages: 5 })).toThrow('--max-pages needs --all');
  });
});

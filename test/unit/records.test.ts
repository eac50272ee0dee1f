import { describe, expect, it } from 'vitest';
import {
  checkNewPet,
  checkRecord,
  isProblem,
  MAX_RECORD_CHARS,
  readNewPetRecords,
  RecordSplitter,
  type RecordText,
} from '../../src/commands/pets/create/records.js';
import { classifyCreateFailure } from '../../src/commands/pets/create/sender.js';
import { toListOptions } from '../../src/commands/pets/list/list.js';
import { parseMaxPages } from '../../src/base/flag-values.js';
import {
  ApiError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  ProxyError,
  TimeoutError,
  UsageError,
} from '../../src/base/errors.js';

/** Feeds `input` to a splitter in the given chunks and returns what it made. */
function split(chunks: string[]): { format: string | undefined; records: RecordText[]; problems: unknown[] } {
  const splitter = new RecordSplitter();
  const records = [...chunks.flatMap((c) => splitter.push(c)), ...splitter.end()];
  return { format: splitter.format, records, problems: splitter.problems };
}

describe('RecordSplitter', () => {
  const array = '\uFEFF\n[ {"a":"x,]\\"}"},\n [1,2] , "s\\"]",3,\n{"n":\n 1}\n]\n';
  const ndjson = '{"name":"A","categoryId":1}\r\n\n  \n{"name":"B",\t"categoryId":2}\n{"c":"é"}';

  it('cuts a JSON array into its elements, skipping strings and nesting, each with its line', () => {
    expect(split([array])).toEqual({
      format: 'json',
      records: [
        { line: 2, text: '{"a":"x,]\\"}"}' },
        { line: 3, text: '[1,2]' },
        { line: 3, text: '"s\\"]"' },
        { line: 3, text: '3' },
        { line: 4, text: '{"n":\n 1}' },
      ],
      problems: [],
    });
  });

  it('cuts NDJSON into its non-blank lines, CRLF or LF', () => {
    expect(split([ndjson])).toEqual({
      format: 'ndjson',
      records: [
        { line: 1, text: '{"name":"A","categoryId":1}' },
        { line: 4, text: '{"name":"B",\t"categoryId":2}' },
        { line: 5, text: '{"c":"é"}' },
      ],
      problems: [],
    });
  });

  it.each([
    ['array', array],
    ['ndjson', ndjson],
  ])('gives the same records for every way of cutting the %s into chunks', (_name, input) => {
    const whole = split([input]);
    for (let at = 0; at <= input.length; at++) expect(split([input.slice(0, at), input.slice(at)])).toEqual(whole);
    expect(split(Array.from({ length: input.length }, (_, i) => input.charAt(i)))).toEqual(whole);
  });

  it.each([
    ['a missing comma', '[\n{"a":1}\n{"b":2}]', 3, 'a comma or ] is missing'],
    ['text after the closing ]', '[{"a":1}]\n{"b":2}', 2, 'text after the closing ]'],
    ['an unclosed array', '[\n{"a":1},\n{"b":2}\n', 4, 'a ] is missing'],
    ['a trailing comma', '[{"a":1},\n]', 2, 'missing after the last comma'],
  ])('reports %s with its line', (_name, input, line, message) => {
    const { problems } = split([input]);
    expect(problems).toEqual([{ line, message: expect.stringContaining(message) as unknown }]);
  });

  it('refuses a record over MAX_RECORD_CHARS without holding it, in either format', () => {
    const long = `{"name":"${'x'.repeat(MAX_RECORD_CHARS)}","categoryId":1}`;
    const nd = split([
      `{"name":"A","categoryId":1}\n`,
      long.slice(0, 1000),
      long.slice(1000),
      '\n{"name":"B","categoryId":2}\n',
    ]);
    expect(nd.records.map((r) => r.line)).toEqual([1, 3]);
    expect(nd.problems).toEqual([{ line: 2, message: expect.stringContaining('longer than') as unknown }]);
    const arr = split(['[', long, ']']);
    expect(arr.problems).toEqual([{ line: 1, message: expect.stringContaining('longer than') as unknown }]);
  });

  it('checkRecord numbers a syntax error by the line inside a multi-line record', () => {
    const r = checkRecord({ line: 10, text: '{"name":"A",\n "categoryId": }' });
    expect(isProblem(r) && r.line).toBe(11);
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
  it('refuses an empty array and empty input', () => {
    expect(readNewPetRecords('[]')).toMatchObject({
      ok: false,
      problems: [{ message: 'no records: the array is empty' }],
    });
    expect(readNewPetRecords(' \n\n')).toMatchObject({
      ok: false,
      problems: [{ message: 'no records: the input is empty' }],
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
    [new ProxyError('407', { proxy: 'http://proxy/', status: 407 }), 'not_sent'],
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

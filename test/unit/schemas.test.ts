/** The spec's schemas (spec §2) as zod code, and describeIssue's one-line messages. */
import { describe, expect, it } from 'vitest';
import { ErrorSchema, NewPetSchema, PetSchema, PetsSchema, describeIssue } from '../../src/client/schemas.js';
import { parseJson } from '../../src/base/json.js';

describe('PetSchema', () => {
  const accepted: [string, unknown][] = [
    ['a full pet', { id: 1, name: 'Rex', categoryId: 1, status: 'available' }],
    ['no status', { id: 1, name: 'Rex', categoryId: 1 }],
    ['an extra field (kept)', { id: 1, name: 'Rex', categoryId: 1, status: 'sold', tag: 'x' }],
    ['int64 above 2^53 as bigint', { id: 9007199254740993n, name: 'Atlas', categoryId: 9223372036854775807n }],
    ['int64 minimum as bigint', { id: -9223372036854775808n, name: 'Min', categoryId: 0 }],
    ['an empty name (the server judges names)', { id: 1, name: '', categoryId: 1 }],
  ];
  it.each(accepted)('accepts %s', (_what, value) => {
    expect(PetSchema.safeParse(value).success).toBe(true);
  });

  const refused: [string, unknown, string][] = [
    ['missing name', { id: 1, categoryId: 1 }, 'name: required field is missing'],
    ['missing id', { name: 'Rex', categoryId: 1 }, 'id: '],
    ['float id', { id: 1.5, name: 'Rex', categoryId: 1 }, 'id: expected an int64 integer'],
    ['id 2^63 as bigint', { id: 2n ** 63n, name: 'Rex', categoryId: 1 }, 'id: expected an int64 integer'],
    [
      'categoryId below int64',
      { id: 1, name: 'Rex', categoryId: -(2n ** 63n) - 1n },
      'categoryId: expected an int64 integer',
    ],
    ['string categoryId', { id: 1, name: 'Rex', categoryId: '1' }, 'categoryId: expected an int64 integer'],
    ['unknown status', { id: 1, name: 'Rex', categoryId: 1, status: 'lost' }, 'status: '],
    ['status in upper case', { id: 1, name: 'Rex', categoryId: 1, status: 'SOLD' }, 'status: '],
    ['number name', { id: 1, name: 7, categoryId: 1 }, 'name: '],
    // Not an object at all: the message says what was expected and what came instead.
    ['an array', [], 'expected object, received array'],
    ['null', null, 'expected object, received null'],
  ];
  it.each(refused)('refuses %s and describes it', (_what, value, described) => {
    const r = PetSchema.safeParse(value);
    expect(r.success).toBe(false);
    if (!r.success) expect(describeIssue(r.error)).toContain(described);
  });

  it('names the field of a missing name exactly', () => {
    const r = PetSchema.safeParse({ id: 1, categoryId: 1 });
    expect(r.success).toBe(false);
    if (!r.success) expect(describeIssue(r.error)).toBe('name: required field is missing');
  });

  it('accepts int64 values parsed from JSON text exactly', () => {
    const r = PetSchema.safeParse(parseJson('{"id":9223372036854775807,"name":"A","categoryId":-9223372036854775808}'));
    expect(r.success).toBe(true);
    if (r.success) {
      expect(r.data.id).toBe(9223372036854775807n);
      expect(r.data.categoryId).toBe(-9223372036854775808n);
    }
  });

  it('refuses 2^63 parsed from JSON text', () => {
    expect(PetSchema.safeParse(parseJson('{"id":9223372036854775808,"name":"A","categoryId":1}')).success).toBe(false);
  });
});

describe('PetsSchema', () => {
  it('accepts an empty array and a list of pets', () => {
    expect(PetsSchema.safeParse([]).success).toBe(true);
    expect(
      PetsSchema.safeParse([
        { id: 1, name: 'a', categoryId: 1 },
        { id: 2, name: 'b', categoryId: 2, status: 'sold' },
      ]).success,
    ).toBe(true);
  });
  it('refuses an object and names the index and field of a bad record', () => {
    expect(PetsSchema.safeParse({ id: 1, name: 'a', categoryId: 1 }).success).toBe(false);
    const r = PetsSchema.safeParse([
      { id: 1, name: 'a', categoryId: 1 },
      { id: 2, categoryId: 1 },
    ]);
    expect(r.success).toBe(false);
    if (!r.success) expect(describeIssue(r.error)).toBe('[1].name: required field is missing');
  });
});

describe('NewPetSchema', () => {
  it.each([
    { name: 'Rex', categoryId: 1 },
    { name: 'Rex', categoryId: 9223372036854775807n, status: 'pending' },
    { name: 'Rex', categoryId: -5 },
  ])('accepts %o', (value) => {
    expect(NewPetSchema.safeParse(value).success).toBe(true);
  });
  it.each([
    [{ categoryId: 1 }, 'name: required field is missing'],
    [{ name: 'Rex' }, 'categoryId: '],
    [{ name: 'Rex', categoryId: 1.25 }, 'categoryId: expected an int64 integer'],
    [{ name: 'Rex', categoryId: 1, status: 'gone' }, 'status: '],
  ])('refuses %o', (value, described) => {
    const r = NewPetSchema.safeParse(value);
    expect(r.success).toBe(false);
    if (!r.success) expect(describeIssue(r.error)).toContain(described);
  });
});

describe('ErrorSchema', () => {
  it('accepts an Error body, extra fields kept', () => {
    const r = ErrorSchema.safeParse({ code: 'not_found', message: 'pet 5 not found', status: 404, requestId: 'x' });
    expect(r.success).toBe(true);
  });
  it.each([
    [{ message: 'm', status: 404 }, 'code: required field is missing'],
    [{ code: 'c', status: 404 }, 'message: required field is missing'],
    [{ code: 'c', message: 'm' }, 'status: '],
    [{ code: 'c', message: 'm', status: '404' }, 'status: '],
    [{ code: 'c', message: 'm', status: 404.5 }, 'status: '],
  ])('refuses %o', (value, described) => {
    const r = ErrorSchema.safeParse(value);
    expect(r.success).toBe(false);
    if (!r.success) expect(describeIssue(r.error)).toContain(described);
  });
});

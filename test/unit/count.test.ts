/**
 * The one number format of messages (src/text/count.ts): thousands separated by commas,
 * the word plural unless the count is one.
 */
import { describe, expect, it } from 'vitest';
import { countOf, formatCount } from '../../src/text/count.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [7100, '7,100'],
    [10485760, '10,485,760'],
    [-1474, '-1,474'],
    [9007199254740993n, '9,007,199,254,740,993'],
  ] as const)('%s is %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });
});

describe('countOf', () => {
  it.each([
    [1, 'pet', undefined, '1 pet'],
    [0, 'pet', undefined, '0 pets'],
    [7100, 'pet', undefined, '7,100 pets'],
    [2, 'retry', 'retries', '2 retries'],
    [1n, 'byte', undefined, '1 byte'],
  ] as const)('%s %s is %s', (n, singular, plural, text) => {
    expect(countOf(n, singular, plural)).toBe(text);
  });
});

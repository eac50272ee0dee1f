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
    [-12345678901234567890n, '-12,345,678,901,234,567,890'],
    [1e21, '1,000,000,000,000,000,000,000'],
    [1.5, '2'],
    [2.5, '3'],
    [-2.5, '-3'],
    [1234.4, '1,234'],
  ] as const)('%s is %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });

  it('writes what toLocaleString("en-US") writes, for counts of every size and sign', () => {
    const samples: (number | bigint)[] = [];
    for (let digits = 1; digits <= 21; digits++) {
      const n = 10 ** (digits - 1) + 7 * digits;
      samples.push(n, -n, n + 0.5, n - 0.49, BigInt('9'.repeat(digits)), -BigInt('3'.repeat(digits)));
    }
    for (const n of samples)
      expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US', { maximumFractionDigits: 0 }));
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

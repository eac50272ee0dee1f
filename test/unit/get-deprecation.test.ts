/**
 * The deprecation warning of `pets get` (two lines of at most 80 columns with the
 * `warning: ` prefix, cli-contract.md "Commands"), the word wrapping behind it, and the
 * options of `pets get`.
 */
import { describe, expect, it } from 'vitest';
import { toGetOptions } from '../../src/commands/pets/get/get.js';
import { describeGetDeprecation, WARNING_COLUMNS } from '../../src/commands/pets/get/run.js';
import { UsageError } from '../../src/base/errors.js';
import { wrapWords } from '../../src/text/wrap.js';
import { specOperation } from '../fixtures/api-spec.js';

/** getPet's removal date (spec §4.3), `YYYY-MM-DD`. */
const REMOVAL = specOperation('getPet').deprecated!.removal;

describe('wrapWords', () => {
  it('breaks at spaces so that no line is wider than the width, the first line after `used` columns', () => {
    expect(wrapWords('aaa bbb ccc ddd', 7)).toBe('aaa bbb\nccc ddd');
    expect(wrapWords('aaa bbb ccc ddd', 7, 4)).toBe('aaa\nbbb ccc\nddd');
    expect(wrapWords('aaa bbb', 80)).toBe('aaa bbb');
  });
  it('keeps a word longer than a line whole, on a line of its own', () => {
    expect(wrapWords('a abcdefghij b', 5)).toBe('a\nabcdefghij\nb');
  });
  it('never leaves a space at a line end or start', () => {
    for (const line of wrapWords('one  two   three four', 9).split('\n')) {
      expect(line).toBe(line.trim());
    }
  });
});

describe('describeGetDeprecation', () => {
  const NOW = new Date('2026-11-22T00:00:00Z');
  it('names the removal date with the days left, the replacement and --via-list', () => {
    const days = (Date.parse(`${REMOVAL}T00:00:00Z`) - NOW.getTime()) / 86_400_000;
    expect(describeGetDeprecation({ subject: '`pets get`', removal: REMOVAL }, NOW)).toBe(
      `\`pets get\` is deprecated and will be removed on ${REMOVAL} (in ${days.toLocaleString('en-US')} days); replaced by \`pets list --status STATUS\`: add --via-list to use it now`,
    );
  });
  it('lets the Sunset header win, also when it has passed', () => {
    expect(
      describeGetDeprecation({ subject: 's', sunset: new Date('2026-11-21T00:00:00Z') }, NOW).startsWith(
        '`pets get` is deprecated and was to be removed on 2026-11-21 (1 day ago);',
      ),
    ).toBe(true);
  });
  it.each([
    ['the spec date, today', {}, '2026-11-22T00:00:00Z'],
    ['the spec date, on its day', {}, `${REMOVAL}T00:00:00Z`],
    ['a Sunset far ahead', { sunset: new Date('2999-12-31T00:00:00Z') }, '2026-11-22T00:00:00Z'],
    ['a Sunset long past', { sunset: new Date('1970-01-01T00:00:00Z') }, '2999-12-31T00:00:00Z'],
    [
      'every header at once',
      { sunset: new Date('2999-12-31T00:00:00Z'), deprecation: { date: new Date('2998-01-01T00:00:00Z') } },
      '2026-11-22T00:00:00Z',
    ],
  ])('%s: two lines of at most 80 columns with the prefix', (_name, headers, now) => {
    const text = describeGetDeprecation({ subject: '`pets get`', ...headers }, new Date(now));
    const lines = `warning: ${wrapWords(text, WARNING_COLUMNS, 'warning: '.length)}`.split('\n');
    expect(lines.length).toBeLessThanOrEqual(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toContain('pets list --status');
    expect(text).toContain('--via-list');
    expect(text).toMatch(/removed on \d{4}-\d\d-\d\d/);
  });
});

describe('toGetOptions', () => {
  it('defaults: getPet, 1000 pages for the list path', () => {
    expect(toGetOptions(7n, {})).toEqual({ petId: 7n, viaList: false, maxPages: 1000 });
  });
  it('--via-list with --status and --max-pages', () => {
    expect(toGetOptions(7n, { viaList: true, status: 'sold', maxPages: 3 })).toEqual({
      petId: 7n,
      viaList: true,
      status: 'sold',
      maxPages: 3,
    });
  });
  it.each([{ status: 'sold' as const }, { maxPages: 3 }])('%j without --via-list is a usage error', (flags) => {
    expect(() => toGetOptions(7n, flags)).toThrow(UsageError);
  });
});

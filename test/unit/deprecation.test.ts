import { describe, expect, it } from 'vitest';
import {
  daysBetween,
  describeDeprecation,
  DeprecationReporter,
  parseDeprecation,
  parseSunset,
} from '../../src/http/deprecation.js';

const NOW = new Date('2026-11-22T02:40:00Z');

describe('parseDeprecation (RFC 9745)', () => {
  it('reads an sf-date', () => {
    expect(parseDeprecation('@1764892800')).toEqual({ date: new Date('2025-12-05T00:00:00Z') });
    expect(parseDeprecation(' @-86400 ')).toEqual({ date: new Date('1969-12-31T00:00:00Z') });
  });
  it('tolerates the obsolete `true` as date unknown', () => {
    expect(parseDeprecation('true')).toEqual({ date: undefined });
  });
  it.each([undefined, '', 'yes', '@1.5', '1764892800', '@abc', '@1764892800; x'])('ignores %j', (v) => {
    expect(parseDeprecation(v)).toBeUndefined();
  });
});

describe('parseSunset (RFC 8594)', () => {
  it('reads an IMF-fixdate', () => {
    expect(parseSunset('Thu, 05 Dec 2030 00:00:00 GMT')?.toISOString()).toBe('2030-12-05T00:00:00.000Z');
  });
  it('ignores garbage', () => {
    expect(parseSunset('soon')).toBeUndefined();
  });
});

describe('describeDeprecation', () => {
  it('counts whole UTC days', () => {
    expect(daysBetween(NOW, new Date('2026-11-23T00:00:00Z'))).toBe(1);
    expect(daysBetween(NOW, new Date('2026-11-22T23:59:00Z'))).toBe(0);
    expect(daysBetween(NOW, new Date('2026-11-20T00:00:00Z'))).toBe(-2);
  });
  it('merges metadata and headers in one line', () => {
    expect(
      describeDeprecation(
        {
          subject: '`petstore pets get` (getPet)',
          deprecation: { date: new Date('2025-12-05T00:00:00Z') },
          sunset: new Date('2030-12-05T00:00:00Z'),
          replacement: 'petstore pets list --status STATUS',
        },
        NOW,
      ),
    ).toBe(
      '`petstore pets get` (getPet) is deprecated (since 2025-12-05) and will be removed on 2030-12-05 (in 1,474 days); use `petstore pets list --status STATUS` instead',
    );
  });
  it('speaks of a past sunset and a single day', () => {
    expect(describeDeprecation({ subject: 'X', sunset: new Date('2026-11-21T00:00:00Z') }, NOW)).toBe(
      'X is deprecated and was removed on 2026-11-21 (1 day ago)',
    );
    expect(describeDeprecation({ subject: 'X', removal: '2026-11-23' }, NOW)).toBe(
      'X is deprecated and will be removed on 2026-11-23 (in 1 day)',
    );
  });
});

describe('DeprecationReporter', () => {
  it('prints one warning however many responses carry the headers', () => {
    const lines: string[] = [];
    const r = new DeprecationReporter(
      (m) => lines.push(m),
      () => NOW,
    );
    for (let i = 0; i < 5; i++) r.observeAndFlush({ deprecation: '@1764892800' }, 'listPets');
    expect(lines).toEqual(['listPets is deprecated (since 2025-12-05)']);
  });
  it('prints nothing without headers or metadata', () => {
    const lines: string[] = [];
    const r = new DeprecationReporter(
      (m) => lines.push(m),
      () => NOW,
    );
    r.observeAndFlush({}, 'listPets');
    r.flush();
    expect(lines).toEqual([]);
  });
  it('lets the Sunset header win over the known removal date', () => {
    const lines: string[] = [];
    const r = new DeprecationReporter(
      (m) => lines.push(m),
      () => NOW,
    );
    r.declare({ subject: 'getPet', removal: '2030-12-05', replacement: 'R' });
    r.observe({ sunset: 'Sat, 01 Jan 2028 00:00:00 GMT' }, 'ignored');
    r.flush();
    expect(lines).toEqual(['getPet is deprecated and will be removed on 2028-01-01 (in 405 days); use `R` instead']);
  });
});

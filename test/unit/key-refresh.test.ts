/**
 * RereadableKey (src/http/key-refresh.ts), the rule of cli-contract.md "Environments" for a
 * key command's key after a 401: requests refused together share one re-run, one refused
 * with a key already replaced gets the new key at once, the same key printed again is no
 * key, and the command runs again at most once a minute of the run's clock.
 */
import { describe, expect, it } from 'vitest';
import { KEY_REREAD_INTERVAL_MS, RereadableKey } from '../../src/http/key-refresh.js';

/** A key command whose answers are `keys`, one per run, counting its runs; the clock at `at.ms`. */
function source(keys: (string | undefined)[]) {
  const at = { ms: Date.parse('2026-11-23T12:00:00Z') };
  let runs = 0;
  const key = new RereadableKey(
    'k0',
    () => Promise.resolve(keys[runs++]),
    () => new Date(at.ms),
  );
  return { key, at, runs: () => runs };
}

describe('RereadableKey', () => {
  it('requests refused together wait for one re-run and all get the new key', async () => {
    const s = source(['k1']);
    const outcomes = await Promise.all([1, 2, 3].map(() => s.key.afterRefusal('k0')));
    expect(outcomes.map((o) => o.key)).toEqual(['k1', 'k1', 'k1']);
    expect(s.runs()).toBe(1);
    expect(s.key.current()).toBe('k1');
    // Refused with the old key after the re-run: the new key, without running the command.
    expect((await s.key.afterRefusal('k0')).key).toBe('k1');
    expect(s.runs()).toBe(1);
  });

  it('the same key printed again, or none, is no key; the current key stays', async () => {
    const same = source(['k0']);
    expect((await same.key.afterRefusal('k0')).key).toBeUndefined();
    expect(same.key.current()).toBe('k0');
    const none = source([undefined]);
    expect((await none.key.afterRefusal('k0')).key).toBeUndefined();
  });

  it('runs again at most once a minute of the run clock', async () => {
    const s = source(['k1', 'k2']);
    expect((await s.key.afterRefusal('k0')).key).toBe('k1');
    s.at.ms += KEY_REREAD_INTERVAL_MS - 1;
    const early = await s.key.afterRefusal('k1');
    expect(early.key).toBeUndefined();
    expect(early.note).toMatch(/less than a minute ago/);
    expect(s.runs()).toBe(1);
    s.at.ms += 1;
    expect((await s.key.afterRefusal('k1')).key).toBe('k2');
    expect(s.runs()).toBe(2);
  });
});

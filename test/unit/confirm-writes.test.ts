/**
 * The rule of cli-contract.md "Environments" (`NAME.confirmWrites`) and "Global flags"
 * (`--yes`), as the pure `writeConsent` decides it: every combination of the setting,
 * `--yes` and whether a question can be asked.
 */
import { describe, expect, it } from 'vitest';
import { writeConsent, type ConsentFacts, type WriteConsent } from '../../src/operations/confirm-writes.js';

describe('writeConsent', () => {
  it.each<[ConsentFacts, WriteConsent]>([
    // Off (the default): sent, asked nothing, whatever else holds.
    [{ confirmWrites: false, yes: false, canAsk: false }, 'send'],
    [{ confirmWrites: false, yes: false, canAsk: true }, 'send'],
    [{ confirmWrites: false, yes: true, canAsk: false }, 'send'],
    [{ confirmWrites: false, yes: true, canAsk: true }, 'send'],
    // On: --yes is the answer given in advance, on a terminal too ...
    [{ confirmWrites: true, yes: true, canAsk: true }, 'send'],
    // ... else asked where a question can be asked ("asks on a terminal") ...
    [{ confirmWrites: true, yes: false, canAsk: true }, 'ask'],
    // ... and elsewhere refused unless --yes ("answers a confirmation off a terminal").
    [{ confirmWrites: true, yes: false, canAsk: false }, 'refuse'],
    [{ confirmWrites: true, yes: true, canAsk: false }, 'send'],
  ])('%o → %s', (facts, consent) => {
    expect(writeConsent(facts)).toBe(consent);
  });
});

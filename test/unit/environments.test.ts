import { describe, expect, it } from 'vitest';
import { checkConfigurableName, checkEnvName, RESERVED_ENV_NAMES } from '../../src/config/environments.js';
import { UsageError } from '../../src/base/errors.js';
import { closestName } from '../../src/base/suggest.js';
import { commandTree } from '../helpers/command-tree.js';

describe('environment names (cli-contract.md "Environments")', () => {
  it.each(['a', 'staging-eu', 'eu2', 'a-', `a${'b'.repeat(31)}`])('%s is a name', (name) => {
    expect(checkEnvName(name, '--env')).toBe(name);
    expect(checkConfigurableName(name, '--env')).toBe(name);
  });

  it.each(['', 'Staging', '2eu', '-a', 'a_b', 'a.b', 'é', `a${'b'.repeat(32)}`])('%j is not', (name) => {
    expect(() => checkEnvName(name, '--env')).toThrow(UsageError);
    expect(() => checkEnvName(name, '--env')).toThrow(
      `invalid --env ${JSON.stringify(name)}: an environment name is lower-case letters, digits and -, starting with a letter, at most 32 characters`,
    );
  });

  it('every top-level command is reserved, as are the config file own keys and the sandbox', async () => {
    const topLevel = (await commandTree()).filter((c) => c.words.length === 1).map((c) => c.words[0]);
    expect(topLevel.length).toBeGreaterThan(5);
    for (const word of [...topLevel, 'environment', 'environments', 'auth']) {
      expect(RESERVED_ENV_NAMES, word).toContain(word);
      expect(() => checkConfigurableName(word ?? '', 'name'), word).toThrow(UsageError);
    }
  });

  it.each([
    ['prod', ['production', 'staging', 'sandbox'], 'production'],
    ['staigng', ['production', 'staging', 'sandbox'], 'staging'],
    ['stagingeu', ['production', 'staging', 'staging-eu', 'sandbox'], 'staging-eu'],
    ['s', ['production', 'staging', 'sandbox'], undefined],
    ['qa', ['production', 'staging', 'sandbox'], undefined],
  ])('the closest name to %s among %j is %s', (typed, known, closest) => {
    expect(closestName(typed, known)).toBe(closest);
  });
});

/** The settings `config get|set|unset` know, and their checks. */
import { describe, expect, it } from 'vitest';
import { findSetting, SETTINGS } from '../../src/config/keys.js';
import { UsageError } from '../../src/base/errors.js';

describe('findSetting', () => {
  it('knows the contract keys', () => {
    expect(SETTINGS.map((s) => s.key)).toEqual([
      'environment',
      'production.baseUrl',
      'staging.baseUrl',
      'production.apiKeyCommand',
      'staging.apiKeyCommand',
      'production.confirmWrites',
      'staging.confirmWrites',
      'production.idempotencyKeys',
      'staging.idempotencyKeys',
    ]);
  });

  it.each(['production.confirmWrites', 'staging-eu.idempotencyKeys'])(
    '%s takes true or false (in any case), off by default, completed from its choices',
    (key) => {
      const def = findSetting(key, 'set');
      expect(def).toMatchObject({ default: 'false', choices: ['true', 'false'], type: 'boolean' });
      expect(def.parse('TRUE', () => undefined)).toBe('true');
      expect(def.parse(' false ', () => undefined)).toBe('false');
      expect(() => def.parse('yes', () => undefined)).toThrow(`invalid ${key} "yes": must be true or false`);
    },
  );

  it('refuses an unknown key, listing the known ones', () => {
    expect(() => findSetting('production.timeout', 'set')).toThrow(UsageError);
    expect(() => findSetting('production.timeout', 'set')).toThrow(
      'unknown config key "production.timeout": the known keys are environment and, for each environment NAME, NAME.baseUrl, NAME.apiKeyCommand, NAME.confirmWrites',
    );
  });

  it.each([
    ['staging-eu.baseUrl', 'staging-eu.baseUrl'],
    ['a.apiKeyCommand', 'a.apiKeyCommand'],
    [`${'x'.repeat(32)}.baseUrl`, `${'x'.repeat(32)}.baseUrl`],
  ])('knows %s, the setting of an environment a user adds', (key, found) => {
    expect(findSetting(key, 'set').key).toBe(found);
  });

  it.each([
    ['sandbox.baseUrl', /the sandbox has no settings/],
    ['auth.baseUrl', /"auth" is reserved/],
    ['pets.baseUrl', /"pets" is reserved/],
    ['environments.baseUrl', /"environments" is reserved/],
    ['Staging.baseUrl', /an environment name is lower-case letters/],
    ['9s.baseUrl', /starting with a letter/],
    [`${'x'.repeat(33)}.baseUrl`, /at most 32 characters/],
  ])('refuses %s, naming why', (key, why) => {
    expect(() => findSetting(key, 'set')).toThrow(UsageError);
    expect(() => findSetting(key, 'set')).toThrow(why);
  });

  it.each(['production.apiKey', 'staging.key', 'auth.production', 'token'])('points %s at auth login', (key) => {
    expect(() => findSetting(key, 'set')).toThrow(/API keys are not settings/);
  });
});

describe('parse', () => {
  const parse = (key: string, raw: string) => {
    const warnings: string[] = [];
    const value = findSetting(key, 'set').parse(raw, (m) => warnings.push(m));
    return { value, warnings };
  };

  it.each(['production', 'staging', 'sandbox'])('environment %s', (env) => {
    expect(parse('environment', env)).toEqual({ value: env, warnings: [] });
  });

  it('takes any well-formed name (whether it is configured is checked against the file)', () => {
    expect(parse('environment', 'staging-eu')).toEqual({ value: 'staging-eu', warnings: [] });
  });

  it.each(['Production', '', '-a', 'a_b'])('refuses environment %j', (raw) => {
    expect(() => parse('environment', raw)).toThrow(/an environment name is lower-case letters, digits and -/);
  });

  it('accepts https and loopback http, without a trailing slash', () => {
    expect(parse('staging.baseUrl', 'https://staging.example.com/v1/')).toEqual({
      value: 'https://staging.example.com/v1',
      warnings: [],
    });
    expect(parse('production.baseUrl', 'http://127.0.0.1:8080/v1').value).toBe('http://127.0.0.1:8080/v1');
    expect(parse('production.baseUrl', 'http://localhost:8080/v1').value).toBe('http://localhost:8080/v1');
  });

  it('warns, but stores, a URL without the /v1 segment', () => {
    const { value, warnings } = parse('staging.baseUrl', 'https://staging.example.com/api');
    expect(value).toBe('https://staging.example.com/api');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not end in the API's version segment \/v1/);
  });

  it.each([
    ['not a URL', 'staging.example.com/v1', /not a URL/],
    ['plain http to a remote host', 'http://staging.example.com/v1', /plain http:\/\/ is allowed only for loopback/],
    ['another scheme', 'ftp://staging.example.com/v1', /must be an https:\/\/ URL/],
    ['credentials in the URL', 'https://u:p@staging.example.com/v1', /credentials/],
  ])('refuses %s', (_name, raw, message) => {
    expect(() => parse('staging.baseUrl', raw)).toThrow(message);
  });
});

/** The settings `config get|set|unset` know, and their checks. */
import { describe, expect, it } from 'vitest';
import { findSetting, SETTINGS } from '../../src/config/keys.js';
import { UsageError } from '../../src/errors.js';

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
    ]);
  });

  it('confirmWrites takes true or false (in any case), off by default, completed from its choices', () => {
    const def = findSetting('production.confirmWrites', 'set');
    expect(def).toMatchObject({ default: 'false', choices: ['true', 'false'], type: 'boolean' });
    expect(def.parse('TRUE', () => undefined)).toBe('true');
    expect(def.parse(' false ', () => undefined)).toBe('false');
    expect(() => def.parse('yes', () => undefined)).toThrow(
      /invalid production\.confirmWrites "yes": must be true or false/,
    );
  });

  it('refuses an unknown key, listing the known ones', () => {
    expect(() => findSetting('prod.baseUrl', 'set')).toThrow(UsageError);
    expect(() => findSetting('prod.baseUrl', 'set')).toThrow(
      /known keys are environment, production\.baseUrl, staging\.baseUrl/,
    );
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

  it.each(['prod', 'Production', ''])('refuses environment %j', (raw) => {
    expect(() => parse('environment', raw)).toThrow(/must be one of production, staging, sandbox/);
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

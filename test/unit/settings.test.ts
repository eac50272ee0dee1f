/**
 * Precedence rules of cli-contract.md "Environments", one case each: environment
 * `--env` > `PETSTORE_ENV` > config > production; base URL `--base-url` >
 * `PETSTORE_BASE_URL` > config; key `PETSTORE_API_KEY` > stored, and a stored key only for
 * the base URL it was stored for. The config reader is a plain object handed in (the
 * resolution code takes it as a parameter); the real store is covered end to end.
 */
import { describe, expect, it } from 'vitest';
import {
  resolveEnvironment,
  resolveRemote,
  type ConfigReader,
  type EnvName,
  type LoadConfig,
} from '../../src/config/settings.js';
import { AuthError, ConfigError, UsageError } from '../../src/errors.js';

function reader(
  settings: Record<string, string>,
  keys: Partial<Record<EnvName, { key: string; baseUrl: string }>> = {},
) {
  let loads = 0;
  const r: ConfigReader = {
    path: '/cfg/config.json',
    getSetting: (k) => settings[k],
    getKey: (env) => keys[env],
  };
  const load: LoadConfig = async () => {
    loads++;
    return r;
  };
  return { load, loads: () => loads };
}

describe('resolveEnvironment', () => {
  const file = { environment: 'staging' };
  it.each([
    ['--env wins over everything', 'sandbox', { PETSTORE_ENV: 'production' }, file, 'sandbox', 'flag'],
    ['PETSTORE_ENV wins over the file', undefined, { PETSTORE_ENV: 'sandbox' }, file, 'sandbox', 'env'],
    ['the file wins over the default', undefined, {}, file, 'staging', 'file'],
    ['production by default', undefined, {}, {}, 'production', 'default'],
    ['an empty PETSTORE_ENV counts as unset', undefined, { PETSTORE_ENV: '' }, file, 'staging', 'file'],
  ] as const)('%s', async (_name, flag, env, settings, value, source) => {
    const r = reader({ ...settings });
    const got = await resolveEnvironment(flag, { ...env }, r.load);
    expect(got).toMatchObject({ value, source });
  });

  it('does not read the config file when a flag or variable decides', async () => {
    const r = reader({});
    await resolveEnvironment('staging', {}, r.load);
    await resolveEnvironment(undefined, { PETSTORE_ENV: 'staging' }, r.load);
    expect(r.loads()).toBe(0);
  });

  it('an unreadable config file is an error, unless key and base URL both come from the environment', async () => {
    const broken: LoadConfig = async () => {
      throw new ConfigError('/cfg/config.json is not valid JSON');
    };
    await expect(resolveEnvironment(undefined, {}, broken)).rejects.toThrow(ConfigError);
    await expect(resolveEnvironment(undefined, { PETSTORE_API_KEY: 'k-123456' }, broken)).rejects.toThrow(ConfigError);
    const env = { PETSTORE_API_KEY: 'k-123456', PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1' };
    await expect(resolveEnvironment(undefined, env, broken)).resolves.toMatchObject({
      value: 'production',
      source: 'default',
    });
  });

  it('refuses unknown names, naming where they came from', async () => {
    await expect(resolveEnvironment('prod', {}, reader({}).load)).rejects.toThrow(UsageError);
    await expect(resolveEnvironment('prod', {}, reader({}).load)).rejects.toThrow(/--env "prod"/);
    await expect(resolveEnvironment(undefined, { PETSTORE_ENV: 'dev' }, reader({}).load)).rejects.toThrow(
      /PETSTORE_ENV "dev"/,
    );
    await expect(resolveEnvironment(undefined, {}, reader({ environment: 'dev' }).load)).rejects.toThrow(ConfigError);
  });
});

describe('resolveRemote', () => {
  const staging = { value: 'staging', source: 'flag', from: '--env' } as const;
  const fileUrl = 'https://staging.example.com/v1';
  const settings = { 'staging.baseUrl': fileUrl };
  const keys = { staging: { key: 'stored-staging-key', baseUrl: fileUrl } };

  it.each([
    [
      '--base-url wins',
      'http://127.0.0.1:1/v1',
      { PETSTORE_BASE_URL: 'http://127.0.0.2:2/v1' },
      'http://127.0.0.1:1/v1',
      'flag',
    ],
    [
      'PETSTORE_BASE_URL wins over the file',
      undefined,
      { PETSTORE_BASE_URL: 'http://127.0.0.2:2/v1' },
      'http://127.0.0.2:2/v1',
      'env',
    ],
    ['the file is last', undefined, {}, fileUrl, 'file'],
  ] as const)('base URL: %s', async (_name, flag, env, value, source) => {
    const got = await resolveRemote(
      staging,
      flag,
      { ...env, PETSTORE_API_KEY: 'env-key-123456' },
      reader(settings, keys).load,
    );
    expect(got.baseUrl).toMatchObject({ value, source });
  });

  it('no base URL anywhere is a config error (exit 2)', async () => {
    await expect(resolveRemote(staging, undefined, {}, reader({}).load)).rejects.toThrow(ConfigError);
  });

  it('PETSTORE_API_KEY wins over the stored key', async () => {
    const got = await resolveRemote(
      staging,
      undefined,
      { PETSTORE_API_KEY: 'env-key-123456' },
      reader(settings, keys).load,
    );
    expect(got.apiKey).toMatchObject({ value: 'env-key-123456', source: 'env' });
  });

  it('the stored key is used for the URL it was stored for', async () => {
    const got = await resolveRemote(staging, undefined, {}, reader(settings, keys).load);
    expect(got.apiKey).toMatchObject({ value: 'stored-staging-key', source: 'file' });
  });

  it('a stored key is refused for any other base URL (flag or variable)', async () => {
    await expect(resolveRemote(staging, 'http://127.0.0.1:1/v1', {}, reader(settings, keys).load)).rejects.toThrow(
      AuthError,
    );
    await expect(
      resolveRemote(staging, undefined, { PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1' }, reader(settings, keys).load),
    ).rejects.toThrow(/stored for https:\/\/staging\.example\.com\/v1, not http:\/\/127\.0\.0\.1:1\/v1; not sent/);
  });

  it('the production key is never picked for staging', async () => {
    const prodOnly = { production: { key: 'stored-production-key', baseUrl: fileUrl } };
    await expect(resolveRemote(staging, undefined, {}, reader(settings, prodOnly).load)).rejects.toThrow(
      /no API key for staging/,
    );
  });

  it('does not read the config file when flags and variables decide everything', async () => {
    const r = reader({});
    await resolveRemote(
      staging,
      undefined,
      { PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1', PETSTORE_API_KEY: 'k-123456' },
      r.load,
    );
    expect(r.loads()).toBe(0);
  });
});

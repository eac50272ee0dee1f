/**
 * Precedence rules of cli-contract.md "Environments", one case each: environment
 * `--env` > `PETSTORE_ENV` > config > production; base URL `--base-url` >
 * `PETSTORE_BASE_URL` > config; key `PETSTORE_API_KEY` > stored, and a stored key only for
 * the base URL it was stored for. The resolver never throws for a missing or bad value; it
 * reports the error a command that needs the value fails with. The config reader is a plain
 * object handed in; the real store is covered end to end.
 */
import { describe, expect, it } from 'vitest';
import {
  isUsable,
  requireRemote,
  resolveSettings,
  UNREAD_KEY,
  type ConfigReader,
  type LoadConfig,
  type ResolveInput,
  type RunKeyCommand,
} from '../../src/config/settings.js';
import type { EnvName, RemoteEnvName } from '../../src/config/environments.js';
import { EnvVars } from '../../src/config/env.js';
import { AuthError, CliError, ConfigError, UsageError } from '../../src/base/errors.js';

function reader(
  settings: Record<string, string>,
  keys: Partial<Record<RemoteEnvName, { key: string; baseUrl: string }>> = {},
) {
  let loads = 0;
  const r: ConfigReader = {
    path: '/cfg/config.json',
    getSetting: (k) => settings[k],
    getKey: (env) => keys[env],
    // production and staging, then the names the settings or keys name, as the store reads them.
    remoteNames: () => [
      'production',
      'staging',
      ...[...new Set([...Object.keys(settings).map((k) => k.split('.')[0] ?? ''), ...Object.keys(keys)])]
        .filter((n) => !['production', 'staging', 'environment'].includes(n))
        .sort(),
    ],
  };
  const load: LoadConfig = () => {
    loads++;
    return Promise.resolve(r);
  };
  return { load, loads: () => loads };
}

const broken: LoadConfig = () => Promise.reject(new ConfigError('/cfg/config.json is not valid JSON'));

/** A key command runner that answers from a table and counts its runs (the real one is tested end to end). */
const commands = (answers: Record<string, string> = {}) => {
  const runs: string[] = [];
  const run: RunKeyCommand = (_name, command) => {
    runs.push(command);
    const key = answers[command];
    return key === undefined ? Promise.reject(new Error(`unexpected command ${command}`)) : Promise.resolve(key);
  };
  return { run, runs };
};

function input(
  load: LoadConfig,
  env: Record<string, string> = {},
  envFlag?: EnvName,
  baseUrlFlag?: string,
  runKeyCommand: RunKeyCommand = commands().run,
): ResolveInput {
  return { envFlag, baseUrlFlag, env: new EnvVars(env), loadConfig: load, runKeyCommand };
}

describe('resolveSettings: environment', () => {
  const file = { environment: 'staging' };
  it.each([
    ['--env wins over everything', 'sandbox', { PETSTORE_ENV: 'production' }, file, 'sandbox', 'flag'],
    ['PETSTORE_ENV wins over the file', undefined, { PETSTORE_ENV: 'sandbox' }, file, 'sandbox', 'env'],
    ['the file wins over the default', undefined, {}, file, 'staging', 'file'],
    ['production by default', undefined, {}, {}, 'production', 'default'],
    ['an empty PETSTORE_ENV counts as unset', undefined, { PETSTORE_ENV: '' }, file, 'staging', 'file'],
  ] as const)('%s', async (_name, flag, env, settings, value, source) => {
    const got = await resolveSettings(input(reader({ ...settings }).load, { ...env }, flag), { scope: 'selected' });
    expect(got.environment).toMatchObject({ ok: true, value, source });
  });

  it('does not read the config file when a flag or variable decides (the sandbox needs nothing more)', async () => {
    const r = reader({});
    await resolveSettings(input(r.load, {}, 'sandbox'), { scope: 'selected' });
    await resolveSettings(input(r.load, { PETSTORE_ENV: 'sandbox' }), { scope: 'selected' });
    expect(r.loads()).toBe(0);
  });

  it('an unreadable config file is an error, unless key and base URL both come from the environment', async () => {
    expect((await resolveSettings(input(broken), { scope: 'selected' })).environment).toMatchObject({
      ok: false,
      error: expect.any(ConfigError) as unknown,
    });
    const keyOnly = await resolveSettings(input(broken, { PETSTORE_API_KEY: 'k-123456' }), { scope: 'selected' });
    expect(keyOnly.environment.ok).toBe(false);
    const env = { PETSTORE_API_KEY: 'k-123456', PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1' };
    expect((await resolveSettings(input(broken, env), { scope: 'selected' })).environment).toMatchObject({
      value: 'production',
      source: 'default',
    });
  });

  it('refuses unknown names, naming where they came from', async () => {
    const fromEnv = await resolveSettings(input(reader({}).load, { PETSTORE_ENV: 'dev' }), { scope: 'selected' });
    expect(fromEnv.environment.ok).toBe(false);
    if (!fromEnv.environment.ok) {
      expect(fromEnv.environment.error).toBeInstanceOf(UsageError);
      expect(fromEnv.environment.error.message).toBe('unknown environment "dev" (from PETSTORE_ENV)');
    }
    const fromFile = await resolveSettings(input(reader({ environment: 'dev' }).load), { scope: 'selected' });
    expect(fromFile.environment).toMatchObject({ ok: false, error: expect.any(ConfigError) as unknown });
    if (!fromFile.environment.ok) {
      expect(fromFile.environment.error.message).toBe('/cfg/config.json: unknown environment "dev" (from environment)');
    }
  });

  it.each([
    ['prod', 'production'],
    ['stagin', 'staging'],
    ['sandbx', 'sandbox'],
    ['staging-ue', 'staging-eu'],
    ['stag', undefined],
  ])('--env %s is exit 2 suggesting %s, and names every known environment', async (typed, closest) => {
    const load = reader({ 'staging-eu.baseUrl': 'https://eu.example.com/v1' }).load;
    const s = await resolveSettings(input(load, {}, typed), { scope: 'selected' });
    expect(s.environment.ok).toBe(false);
    if (s.environment.ok) return;
    expect(s.environment.error).toBeInstanceOf(UsageError);
    expect(s.environment.error.message).toBe(
      `unknown environment "${typed}" (from --env)${closest === undefined ? '' : `: did you mean ${closest}?`}`,
    );
    expect(s.environment.error.hint).toBe(
      `The environments are production, staging, staging-eu, sandbox; add one with \`petstore config set ${typed}.baseUrl https://HOST/v1\`.`,
    );
  });

  it('a configured name is selected by --env, PETSTORE_ENV and the file alike', async () => {
    const settings = { 'staging-eu.baseUrl': 'https://eu.example.com/v1' };
    for (const [env, flag, file] of [
      [{}, 'staging-eu', {}],
      [{ PETSTORE_ENV: 'staging-eu' }, undefined, {}],
      [{}, undefined, { environment: 'staging-eu' }],
    ] as const) {
      const s = await resolveSettings(input(reader({ ...settings, ...file }).load, env, flag), { scope: 'selected' });
      expect(s.environment).toMatchObject({ ok: true, value: 'staging-eu' });
      expect(s.remotes.map((r) => [r.name, r.baseUrl.ok && r.baseUrl.value])).toEqual([
        ['staging-eu', 'https://eu.example.com/v1'],
      ]);
    }
  });

  it('production, staging and sandbox are known without reading the file; another name reads it', async () => {
    for (const name of ['production', 'staging', 'sandbox']) {
      const s = await resolveSettings(
        input(broken, { PETSTORE_API_KEY: 'k', PETSTORE_BASE_URL: 'https://a.example/v1' }, name),
        {
          scope: 'selected',
        },
      );
      expect(s.environment).toMatchObject({ ok: true, value: name });
    }
    const s = await resolveSettings(input(broken, {}, 'staging-eu'), { scope: 'selected' });
    expect(s.environment).toMatchObject({ ok: false, error: expect.any(ConfigError) as unknown });
  });

  it('PETSTORE_ENV of another shape is refused as such', async () => {
    const s = await resolveSettings(input(reader({}).load, { PETSTORE_ENV: 'Prod' }), { scope: 'selected' });
    expect(s.environment.ok).toBe(false);
    if (!s.environment.ok)
      expect(s.environment.error.message).toMatch(/^invalid PETSTORE_ENV "Prod": an environment name is/);
  });

  it('scope all resolves every remote environment the file knows, production and staging first', async () => {
    const load = reader({ 'zeta.baseUrl': 'https://z.example/v1', 'alpha.baseUrl': 'https://a.example/v1' }).load;
    const s = await resolveSettings(input(load), { scope: 'all', keys: false });
    expect(s.remotes.map((r) => r.name)).toEqual(['production', 'staging', 'alpha', 'zeta']);
  });
});

describe('resolveSettings: base URL and key of the selected environment', () => {
  const fileUrl = 'https://staging.example.com/v1';
  const settings = { 'staging.baseUrl': fileUrl };
  const keys = { staging: { key: 'stored-staging-key', baseUrl: fileUrl } };
  // Selected by PETSTORE_ENV, which keeps the variables' order (the --env flag's rule is below).
  const selected = async (load: LoadConfig, env: Record<string, string> = {}, baseUrlFlag?: string) => {
    const s = await resolveSettings(input(load, { PETSTORE_ENV: 'staging', ...env }, undefined, baseUrlFlag), {
      scope: 'selected',
    });
    expect(s.remotes.map((r) => r.name)).toEqual(['staging']);
    return s;
  };

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
    const s = await selected(reader(settings, keys).load, { ...env, PETSTORE_API_KEY: 'env-key-123456' }, flag);
    expect(requireRemote(s).baseUrl).toMatchObject({ value, source });
  });

  it('no base URL anywhere is a config error (exit 2), reported as missing', async () => {
    const s = await selected(reader({}).load);
    expect(s.remotes[0]?.baseUrl).toMatchObject({ ok: false, missing: true });
    expect(() => requireRemote(s)).toThrow(ConfigError);
  });

  it('an invalid PETSTORE_BASE_URL is a usage error, not "missing"', async () => {
    const s = await selected(reader(settings, keys).load, { PETSTORE_BASE_URL: 'ftp://x' });
    expect(s.remotes[0]?.baseUrl).toMatchObject({ ok: false, missing: false });
    expect(() => requireRemote(s)).toThrow(UsageError);
  });

  it('PETSTORE_API_KEY wins over the stored key', async () => {
    const s = await selected(reader(settings, keys).load, { PETSTORE_API_KEY: 'env-key-123456' });
    expect(requireRemote(s).apiKey).toMatchObject({ value: 'env-key-123456', source: 'env' });
  });

  it('the stored key is used for the URL it was stored for', async () => {
    const s = await selected(reader(settings, keys).load);
    expect(requireRemote(s).apiKey).toMatchObject({ value: 'stored-staging-key', source: 'file' });
  });

  it('a stored key is refused for any other base URL (flag or variable)', async () => {
    const byFlag = await selected(reader(settings, keys).load, {}, 'http://127.0.0.1:1/v1');
    expect(() => requireRemote(byFlag)).toThrow(AuthError);
    const byEnv = await selected(reader(settings, keys).load, { PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1' });
    expect(() => requireRemote(byEnv)).toThrow(
      /stored for https:\/\/staging\.example\.com\/v1, not http:\/\/127\.0\.0\.1:1\/v1; not sent/,
    );
  });

  it('the production key is never picked for staging', async () => {
    const prodOnly = { production: { key: 'stored-production-key', baseUrl: fileUrl } };
    const s = await selected(reader(settings, prodOnly).load);
    expect(() => requireRemote(s)).toThrow(/no API key for staging/);
  });

  it('a key a header cannot carry is refused (exit 2), naming where it came from', async () => {
    const s = await selected(reader(settings, keys).load, { PETSTORE_API_KEY: 'two\nlines' });
    expect(() => requireRemote(s)).toThrow(/PETSTORE_API_KEY contains characters an HTTP header cannot carry/);
  });

  it('reads the config file once, for confirmWrites alone, when flags and variables decide the rest', async () => {
    const r = reader({ 'staging.confirmWrites': 'true' });
    const env = { PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1', PETSTORE_API_KEY: 'k-123456' };
    expect(requireRemote(await selected(r.load, env)).confirmWrites).toBe(true);
    expect(r.loads()).toBe(1);
    // A broken file does not stop such a run (cli-contract.md "The config file"): the setting is off.
    expect(requireRemote(await selected(broken, env)).confirmWrites).toBe(false);
  });

  it.each([
    ['unset', {}, false],
    ['true', { 'staging.confirmWrites': 'true' }, true],
    ['false', { 'staging.confirmWrites': 'false' }, false],
    ["another environment's", { 'production.confirmWrites': 'true' }, false],
  ])('confirmWrites %s → %s on the connection', async (_name, settings, on) => {
    const s = await selected(reader({ 'staging.baseUrl': fileUrl, ...settings }, keys).load);
    expect(requireRemote(s).confirmWrites).toBe(on);
  });

  it('the sandbox resolves no remote settings', async () => {
    const s = await resolveSettings(input(reader({}).load, {}, 'sandbox'), { scope: 'selected' });
    expect(s.remotes).toEqual([]);
  });
});

describe('resolveSettings: scope all (auth status, config list)', () => {
  const prodUrl = 'https://api.example.com/v1';
  const keys = { production: { key: 'stored-production-key', baseUrl: prodUrl } };

  it('flags and variables apply to the selected environment only', async () => {
    const s = await resolveSettings(
      input(
        reader({ 'production.baseUrl': prodUrl }, keys).load,
        { PETSTORE_API_KEY: 'env-key-123456' },
        'staging',
        'http://127.0.0.1:9/v1',
      ),
      { scope: 'all' },
    );
    const [production, staging] = s.remotes;
    expect(production).toMatchObject({ name: 'production', selected: false });
    expect(production?.baseUrl).toMatchObject({ value: prodUrl, source: 'file' });
    expect(production?.key).toMatchObject({ source: 'file', value: 'stored-production-key' });
    expect(staging).toMatchObject({ name: 'staging', selected: true });
    expect(staging?.baseUrl).toMatchObject({ value: 'http://127.0.0.1:9/v1', source: 'flag' });
    expect(staging?.key).toMatchObject({ source: 'env', value: 'env-key-123456' });
  });

  it('shows the stored key beside PETSTORE_API_KEY when the variable wins', async () => {
    const s = await resolveSettings(
      input(reader({ 'production.baseUrl': prodUrl }, keys).load, { PETSTORE_API_KEY: 'env-key-123456' }),
      { scope: 'all' },
    );
    expect(s.remotes[0]?.key).toMatchObject({ source: 'env' });
    expect(s.remotes[0]?.stored).toMatchObject({ key: 'stored-production-key' });
  });

  it('one answer to "would this key be sent": a stored key with no base URL is not usable', async () => {
    const s = await resolveSettings(input(reader({}, keys).load), { scope: 'all' });
    const production = s.remotes[0];
    expect(production?.key).toMatchObject({ ok: true, source: 'file' });
    expect(production && isUsable(production)).toBe(false);
  });
});

describe('resolveSettings: apiKeyCommand, between PETSTORE_API_KEY and the stored key', () => {
  const url = 'https://api.example.com/v1';
  const command = 'op read op://store/petstore/key';
  const file = { 'production.baseUrl': url, 'production.apiKeyCommand': command };
  const keys = { production: { key: 'stored-production-key', baseUrl: url } };

  it('the command wins over the stored key, and its key is the one sent', async () => {
    const c = commands({ [command]: 'key-from-command-123' });
    const s = await resolveSettings(input(reader(file, keys).load, {}, undefined, undefined, c.run), {
      scope: 'selected',
    });
    expect(requireRemote(s).apiKey).toEqual({
      ok: true,
      value: 'key-from-command-123',
      source: 'command',
      from: 'production.apiKeyCommand',
    });
    expect(c.runs).toEqual([command]);
  });

  it('PETSTORE_API_KEY wins, and the command is not run', async () => {
    const c = commands({ [command]: 'key-from-command-123' });
    const env = { PETSTORE_API_KEY: 'env-key-123456' };
    const s = await resolveSettings(input(reader(file, keys).load, env, undefined, undefined, c.run), {
      scope: 'all',
    });
    expect(requireRemote(s).apiKey).toMatchObject({ source: 'env' });
    expect(s.remotes[0]?.command).toBe(command);
    expect(c.runs).toEqual([]);
  });

  it("a failing command is the key's outcome: its error, with the command as the source", async () => {
    const failure = new CliError('production.apiKeyCommand `op read …` exited with status 1; no API key', {
      exitCode: 4,
      code: 'key_command',
    });
    const run: RunKeyCommand = () => Promise.reject(failure);
    const s = await resolveSettings(input(reader(file, keys).load, {}, undefined, undefined, run), {
      scope: 'selected',
    });
    expect(s.remotes[0]?.key).toMatchObject({ ok: false, source: 'command', error: failure });
    expect(() => requireRemote(s)).toThrow(failure);
  });

  it("the command's key goes only to the configured base URL: not run for --base-url elsewhere", async () => {
    const c = commands({ [command]: 'key-from-command-123' });
    const s = await resolveSettings(input(reader(file, keys).load, {}, undefined, 'http://127.0.0.1:9/v1', c.run), {
      scope: 'selected',
    });
    expect(() => requireRemote(s)).toThrow(/sent only to production\.baseUrl .*not http:\/\/127\.0\.0\.1:9\/v1/);
    expect(c.runs).toEqual([]);
  });

  it('keys: false resolves no key and runs no command', async () => {
    const c = commands({ [command]: 'key-from-command-123' });
    const s = await resolveSettings(input(reader(file, keys).load, {}, undefined, undefined, c.run), {
      scope: 'all',
      keys: false,
    });
    expect(s.remotes.map((r) => r.key)).toEqual([undefined, undefined]);
    expect(c.runs).toEqual([]);
  });
});

describe('resolveSettings: an explicit --env wins over the shell (cli-contract.md "Environments")', () => {
  const staging = 'https://staging.example.com/v1';
  const production = 'https://api.example.com/v1';
  const shell = { PETSTORE_BASE_URL: production, PETSTORE_API_KEY: 'production-key-123' };
  const keys = { staging: { key: 'stored-staging-key', baseUrl: staging } };
  const resolve = (
    settings: Record<string, string>,
    env: Record<string, string>,
    envFlag?: string,
    baseUrlFlag?: string,
    storedKeys: Partial<Record<RemoteEnvName, { key: string; baseUrl: string }>> = keys,
    run?: RunKeyCommand,
  ) => resolveSettings(input(reader(settings, storedKeys).load, env, envFlag, baseUrlFlag, run), { scope: 'selected' });

  it('--env NAME with its own base URL and key: both used, both variables named as ignored', async () => {
    const s = await resolve({ 'staging.baseUrl': staging }, shell, 'staging');
    const c = requireRemote(s);
    expect(c.baseUrl).toMatchObject({ value: staging, source: 'file' });
    expect(c.apiKey).toMatchObject({ value: 'stored-staging-key', source: 'file' });
    expect(s.remotes[0]?.ignored).toEqual(['PETSTORE_BASE_URL', 'PETSTORE_API_KEY']);
  });

  it('an apiKeyCommand counts as its key source', async () => {
    const c = commands({ 'print-key': 'key-from-command-123' });
    const settings = { 'staging.baseUrl': staging, 'staging.apiKeyCommand': 'print-key' };
    const s = await resolve(settings, shell, 'staging', undefined, {}, c.run);
    expect(requireRemote(s).apiKey).toMatchObject({ value: 'key-from-command-123', source: 'command' });
    expect(s.remotes[0]?.ignored).toEqual(['PETSTORE_BASE_URL', 'PETSTORE_API_KEY']);
  });

  it('with its own base URL and no key source: the URL is its own, the key the variable', async () => {
    const s = await resolve({ 'staging.baseUrl': staging }, shell, 'staging', undefined, {});
    const c = requireRemote(s);
    expect(c.baseUrl).toMatchObject({ value: staging, source: 'file' });
    expect(c.apiKey).toMatchObject({ source: 'env' });
    expect(s.remotes[0]?.ignored).toEqual(['PETSTORE_BASE_URL']);
  });

  it('a variable equal to the configured URL is not named as ignored', async () => {
    const s = await resolve({ 'staging.baseUrl': staging }, { PETSTORE_BASE_URL: `${staging}/` }, 'staging');
    expect(s.remotes[0]?.ignored).toEqual([]);
  });

  it.each([
    ['PETSTORE_ENV keeps the variables first', { PETSTORE_ENV: 'staging' }, undefined, undefined, production, 'env'],
    ["the config file's environment keeps the variables first", {}, undefined, undefined, production, 'env'],
    ['--base-url still wins over everything', {}, 'staging', 'http://127.0.0.1:9/v1', 'http://127.0.0.1:9/v1', 'flag'],
  ] as const)('%s', async (_name, more, envFlag, baseUrlFlag, value, source) => {
    const settings = { 'staging.baseUrl': staging, environment: 'staging' };
    const s = await resolve(settings, { ...shell, ...more }, envFlag, baseUrlFlag);
    expect(requireRemote(s).baseUrl).toMatchObject({ value, source });
    expect(requireRemote(s).apiKey).toMatchObject({ source: 'env' });
    expect(s.remotes[0]?.ignored).toEqual([]);
  });

  it('an environment without a configured URL still takes the variables', async () => {
    const s = await resolve({}, shell, 'staging', undefined, {});
    expect(requireRemote(s).baseUrl).toMatchObject({ value: production, source: 'env' });
    expect(requireRemote(s).apiKey).toMatchObject({ source: 'env' });
    expect(s.remotes[0]?.ignored).toEqual([]);
  });
});

describe('resolveSettings: confirmWrites follows the base URL', () => {
  const production = 'https://api.example.com/v1';
  const settings = {
    'production.baseUrl': production,
    'production.confirmWrites': 'true',
    'staging.baseUrl': 'https://staging.example.com/v1',
  };
  it.each([
    ['the same URL', production],
    ['a trailing slash', `${production}/`],
    ['scheme and host in capitals', 'HTTPS://API.Example.COM/v1'],
    ['the default port written out', 'https://api.example.com:443/v1'],
  ])("a variable selecting production's URL for staging (%s) asks, as production.confirmWrites", async (_n, url) => {
    const env = { PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: url, PETSTORE_API_KEY: 'k-123456' };
    const c = requireRemote(await resolveSettings(input(reader(settings).load, env), { scope: 'selected' }));
    expect(c).toMatchObject({ confirmWrites: true, confirmWritesOf: 'production' });
  });

  it('another URL, another path or another port does not ask', async () => {
    for (const url of [
      'https://staging.example.com/v1',
      'https://api.example.com/v2',
      'https://api.example.com:8443/v1',
    ]) {
      const env = { PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: url, PETSTORE_API_KEY: 'k-123456' };
      const c = requireRemote(await resolveSettings(input(reader(settings).load, env), { scope: 'selected' }));
      expect(c, url).toMatchObject({ confirmWrites: false, confirmWritesOf: undefined });
    }
  });

  it("--base-url to production's URL asks too", async () => {
    const env = { PETSTORE_API_KEY: 'k-123456' };
    const s = await resolveSettings(input(reader(settings).load, env, 'staging', production), { scope: 'selected' });
    expect(requireRemote(s)).toMatchObject({ confirmWrites: true, confirmWritesOf: 'production' });
  });
});

describe("resolveSettings: keys 'unread' (a dry run)", () => {
  it('finds an apiKeyCommand as the source without running it; a missing source is still an error', async () => {
    const c = commands({ 'print-key': 'key-from-command-123' });
    const file = { 'production.baseUrl': 'https://api.example.com/v1', 'production.apiKeyCommand': 'print-key' };
    const s = await resolveSettings(input(reader(file).load, {}, undefined, undefined, c.run), {
      scope: 'selected',
      keys: 'unread',
    });
    expect(requireRemote(s).apiKey).toMatchObject({ value: UNREAD_KEY, source: 'command' });
    expect(c.runs).toEqual([]);
    const none = await resolveSettings(input(reader({ 'production.baseUrl': 'https://api.example.com/v1' }).load), {
      scope: 'selected',
      keys: 'unread',
    });
    expect(() => requireRemote(none)).toThrow(AuthError);
  });
});

/**
 * `config set KEY VALUE` (cli-contract.md "The config file"): the file created 0600 in a
 * 0700 folder, its folder tightened, what is refused (unknown keys, API keys, bad values:
 * exit 2, nothing written), the warning for a base URL without /v1, and keys petstore does not
 * know kept. In-process (`runMain`) with real temp directories.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshConfig } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';

afterAll(removeTempDirs);

const mode = (path: string): number => statSync(path).mode & 0o777;

describe.concurrent('the file and its folder', () => {
  it('creates the file 0600 in a 0700 folder, as JSON petstore can read back', async () => {
    const { dir, file, env } = freshConfig();
    const set = await runMain(['config', 'set', 'staging.baseUrl', 'https://staging.example.com/v1'], { env });
    expect(set).toMatchObject({ code: 0, stdout: '' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ staging: { baseUrl: 'https://staging.example.com/v1' } });
    const get = await runMain(['config', 'get', 'staging.baseUrl'], { env });
    expect(get).toMatchObject({ code: 0, stdout: 'https://staging.example.com/v1\n', stderr: '' });
  });

  it('tightens its own default folder to 0700 when it was left 0755', async () => {
    const xdg = tempDir();
    mkdirSync(join(xdg, 'petstore'), { mode: 0o755 });
    chmodSync(join(xdg, 'petstore'), 0o755);
    const r = await runMain(['config', 'set', 'environment', 'sandbox'], { env: { XDG_CONFIG_HOME: xdg, HOME: xdg } });
    expect(r.code).toBe(0);
    expect(mode(join(xdg, 'petstore'))).toBe(0o700);
  });
});

describe.concurrent('what is refused and what is kept', () => {
  it('refuses an unknown key with exit 2, listing the known keys, and writes nothing', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'timeout', '5'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(
      'unknown config key "timeout": the known keys are environment and, for each environment NAME, NAME.baseUrl, NAME.apiKeyCommand, NAME.confirmWrites, NAME.idempotencyKeys',
    );
    expect(existsSync(file)).toBe(false);
  });

  it('refuses an API key through config set, pointing at auth login (exit 2)', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'production.apiKey', 'not-a-real-key-000'], {
      env,
      secrets: ['not-a-real-key-000'],
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('API keys are not settings');
    expect(unwrapped(r.stderr)).toContain('petstore --env production auth login');
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['environment', 'prod', /unknown environment "prod" \(from config set environment\): did you mean production\?/],
    ['environment', 'Prod', /invalid environment "Prod": an environment name is lower-case letters/],
    ['staging-eu.baseUrl', 'http://eu.example.com/v1', /plain http:\/\/ is allowed only for loopback hosts/],
    ['sandbox.baseUrl', 'https://a.example/v1', /the sandbox has no settings/],
    ['config.baseUrl', 'https://a.example/v1', /"config" is reserved/],
    ['staging.baseUrl', 'http://staging.example.com/v1', /plain http:\/\/ is allowed only for loopback hosts/],
    ['production.baseUrl', 'not a url', /not a URL/],
  ])('refuses %s %j with exit 2 and writes nothing', async (key, value, message) => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', key, value], { env });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(message);
    expect(existsSync(file)).toBe(false);
  });

  it('warns, but stores, a base URL without /v1', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'production.baseUrl', 'https://api.example.com/'], { env });
    expect(r.code).toBe(0);
    expect(unwrapped(r.stderr)).toContain("does not end in the API's version segment /v1");
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ production: { baseUrl: 'https://api.example.com' } });
  });

  it('keeps keys it does not know', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, JSON.stringify({ future: { setting: true } }), { mode: 0o600 });
    expect((await runMain(['config', 'set', 'environment', 'staging'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ future: { setting: true }, environment: 'staging' });
  });
});

describe.concurrent("a JavaScript object's internals as a part of a key", () => {
  it.each([
    ['set', 'constructor.baseUrl', 'x', 'constructor'],
    ['set', 'prototype.baseUrl', 'x', 'prototype'],
    ['set', 'production.__proto__', 'x', '__proto__'],
    ['set', 'staging.constructor', 'x', 'constructor'],
    ['set', '__proto__.baseUrl', 'x', '__proto__'],
    ['get', 'constructor.baseUrl', undefined, 'constructor'],
    ['unset', 'staging.prototype', undefined, 'prototype'],
  ] as const)('config %s %s: exit 2 naming %s, nothing written', async (verb, key, value, part) => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', verb, key, ...(value === undefined ? [] : [value])], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(`invalid config key "${key}": "${part}" cannot be part of a key`);
    expect(existsSync(file)).toBe(false);
  });
});

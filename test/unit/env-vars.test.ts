/**
 * The registry of environment variables (`config/env-vars.ts`) and its reader `EnvVars`:
 * one rule for "set", each type read as declared, secrets kept from child processes, every
 * entry read somewhere and described in one short sentence, and docs/commands.md's list
 * equal to the registry (a variable added to one and not the other fails here).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EnvVars } from '../../src/config/env.js';
import { ENV_VARS, type EnvVarName } from '../../src/config/env-vars.js';
import { envVarsMarkdownTable } from '../../src/config/env-vars-docs.js';
import { UsageError } from '../../src/base/errors.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const NAMES = Object.keys(ENV_VARS) as EnvVarName[];

describe('EnvVars: one rule for "set"', () => {
  it.each(['PETSTORE_BASE_URL', 'PETSTORE_NO_PROMPT', 'NO_COLOR', 'HOME', 'TMPDIR', 'HTTPS_PROXY'] as const)(
    '%s: undefined and empty are both unset',
    (name) => {
      for (const raw of [{}, { [name]: '' }, { [name.toLowerCase()]: '' }]) {
        const env = new EnvVars(raw);
        expect(env.isSet(name)).toBe(false);
        expect(env.get(name)).toBeUndefined();
      }
    },
  );

  it.each([
    ['1', true],
    ['yes', true],
    ['true', true],
    ['0', false],
    ['false', false],
    ['FALSE', false],
  ])('a boolean: %j reads as %s, and is set either way', (raw, want) => {
    const env = new EnvVars({ PETSTORE_NO_PROMPT: raw });
    expect(env.get('PETSTORE_NO_PROMPT')).toBe(want);
    expect(env.isSet('PETSTORE_NO_PROMPT')).toBe(true);
  });

  it('an absolute-path variable with a relative value counts as unset (XDG Base Directory)', () => {
    expect(new EnvVars({ XDG_CONFIG_HOME: 'relative/dir' }).get('XDG_CONFIG_HOME')).toBeUndefined();
    expect(new EnvVars({ XDG_CONFIG_HOME: '/home/sam/.cfg' }).get('XDG_CONFIG_HOME')).toBe('/home/sam/.cfg');
  });

  it('a variable with a list of values refuses another, naming it (exit 2)', () => {
    expect(new EnvVars({ PETSTORE_BULK_CONNECTIONS: 'fresh' }).get('PETSTORE_BULK_CONNECTIONS')).toBe('fresh');
    const env = new EnvVars({ PETSTORE_BULK_CONNECTIONS: 'pooled' });
    expect(() => env.get('PETSTORE_BULK_CONNECTIONS')).toThrow(UsageError);
    expect(() => env.get('PETSTORE_BULK_CONNECTIONS')).toThrow(
      'invalid PETSTORE_BULK_CONNECTIONS "pooled": must be one of fresh, keep-alive',
    );
  });

  it('proxies: the lower-case name wins when both are set, as curl does', () => {
    const env = new EnvVars({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' });
    expect(env.get('HTTPS_PROXY')).toBe('http://lower:2');
    expect(env.source('HTTPS_PROXY')?.name).toBe('https_proxy');
    expect(new EnvVars({ HTTPS_PROXY: 'http://upper:1', https_proxy: '' }).get('HTTPS_PROXY')).toBe('http://upper:1');
  });

  it('is a copy: changing the object it was made from changes nothing', () => {
    const raw: Record<string, string> = { PETSTORE_BASE_URL: 'https://a.example/v1' };
    const env = new EnvVars(raw);
    raw.PETSTORE_BASE_URL = 'https://b.example/v1';
    expect(env.get('PETSTORE_BASE_URL')).toBe('https://a.example/v1');
  });

  it('the environment of a child process keeps everything but the secrets', () => {
    const env = new EnvVars({
      PATH: '/bin',
      PETSTORE_API_KEY: 'secret-123456',
      PETSTORE_SANDBOX_KEY: 'sbx_secret',
      OTHER: 'x',
    });
    expect(env.forChild({ LESS: 'FRX' })).toEqual({ PATH: '/bin', OTHER: 'x', LESS: 'FRX' });
    const secrets = NAMES.filter((n) => 'secret' in ENV_VARS[n]);
    expect(secrets).toEqual(['PETSTORE_API_KEY', 'PETSTORE_SANDBOX_KEY']);
  });
});

describe('the registry', () => {
  it.each(NAMES)('%s: its meaning is one short sentence', (name) => {
    const { meaning } = ENV_VARS[name];
    expect(meaning).toMatch(/^[A-Z`].*\.$/);
    expect(meaning.length).toBeLessThanOrEqual(110);
    expect(meaning.slice(0, -1)).not.toMatch(/\.\s/);
  });

  it('every variable petstore reads itself is read somewhere through EnvVars', () => {
    const src = join(root, 'src');
    const code = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('env-vars.ts'))
      .map((f) => readFileSync(join(src, f), 'utf8'))
      .join('\n');
    const unread = NAMES.filter((n) => !('readBy' in ENV_VARS[n])).filter(
      (n) => !new RegExp(`\\.(?:get|isSet|source)\\('${n}'\\)`).test(code),
    );
    // PATH reaches an apiKeyCommand's program through its environment, and is read for `less`.
    expect(unread).toEqual([]);
  });

  it("docs/commands.md's list of environment variables is the registry's", () => {
    const doc = readFileSync(join(root, 'docs/commands.md'), 'utf8');
    const start = '<!-- env-vars: generated from src/config/env-vars.ts; test/unit/env-vars.test.ts checks it -->\n';
    const end = '<!-- /env-vars -->';
    expect(doc).toContain(start);
    const section = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
    expect(section, 'docs/commands.md: replace the table with the expected one').toBe(envVarsMarkdownTable());
  });
});

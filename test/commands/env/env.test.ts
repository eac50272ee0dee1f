/**
 * `env list`, `env use` and `env remove` (cli-contract.md "Environments", "Commands"), in
 * process (`runMain`) with real config folders and a real server on 127.0.0.1: a named
 * environment end to end (config set, auth login, pets list and create, list, use,
 * remove), the output forms, refusals (exit 2, nothing written), and a config file as
 * petstore wrote it before named environments, listed and left byte for byte. The question
 * `env remove` asks on a terminal is test/e2e/env-remove-tty.test.ts.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfig, readConfig } from '../../helpers/harness.js';
import { registerSecret, unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { errorReply, startTestServer, type TestServer } from '../../helpers/test-server.js';

const KEY = 'eu-key-0123456789-STAGINGEU';
registerSecret(KEY);

/** A Pet Store that accepts only KEY: GET lists one pet, POST creates the pet sent. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((req) => {
    if (req.headers.authorization !== `Bearer ${KEY}`) return errorReply(401, 'unauthorized', 'invalid API key');
    if (req.method === 'POST') {
      const pet = JSON.parse(req.body) as { name: string; categoryId: number };
      return { status: 201, body: { id: 7, name: pet.name, categoryId: pet.categoryId, status: 'available' } };
    }
    return { status: 200, body: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] };
  });
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});

/** One `env list --json` entry. */
interface EnvEntry {
  name: string;
  baseUrl: string | null;
  keySource: string;
  maskedKey: string | null;
  current: boolean;
  currentFrom: string | null;
}

async function listJson(env: Record<string, string>, args: string[] = []): Promise<EnvEntry[]> {
  const r = await runMain([...args, 'env', 'list', '--json'], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as EnvEntry[];
}

/** A config with staging-eu pointing at the test server and its key stored (`auth login`). */
async function namedEnvironment(): Promise<ReturnType<typeof freshConfig>> {
  const c = freshConfig();
  const set = await runMain(['config', 'set', 'staging-eu.baseUrl', server.baseUrl], { env: c.env });
  expect(set.code).toBe(0);
  const login = await runMain(['--env', 'staging-eu', 'auth', 'login', '--with-token'], {
    env: c.env,
    input: `${KEY}\n`,
  });
  expect(login.code).toBe(0);
  return c;
}

describe('a named environment end to end', () => {
  it('config set NAME.baseUrl, auth login, pets list and create, env list (tsv, json, table), env use, env remove --yes', async () => {
    const c = await namedEnvironment();
    expect(readConfig(c.file)).toMatchObject({
      environments: { 'staging-eu': { baseUrl: server.baseUrl } },
      auth: { 'staging-eu': { apiKey: KEY, baseUrl: server.baseUrl } },
    });

    const list = await runMain(['--env', 'staging-eu', 'pets', 'list'], { env: c.env });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('1\tRex\t1\tavailable\n');
    const create = await runMain(['--env', 'staging-eu', 'pets', 'create', '--name', 'Bolt', '--category-id', '2'], {
      env: c.env,
    });
    expect(create.code).toBe(0);
    expect(server.requests.filter((r) => r.method === 'POST').at(-1)?.body).toContain('"Bolt"');

    // Piped: tab-separated, no header row (the machine form, as before), the key masked,
    // production current by default.
    const tsv = await runMain(['env', 'list'], { env: c.env });
    expect(tsv.code).toBe(0);
    expect(tsv.stderr).toBe('');
    expect(tsv.stdout).toBe(
      [
        'production\t\tnone\tcurrent (default)',
        'staging\t\tnone\t',
        `staging-eu\t${server.baseUrl}\tstored ****${KEY.slice(-4)}\t`,
        'sandbox\t\tembedded\t',
        '',
      ].join('\n'),
    );
    expect(tsv.stdout).not.toContain(KEY);

    expect(await listJson(c.env, ['--env', 'staging-eu'])).toEqual([
      {
        name: 'production',
        baseUrl: null,
        baseUrlFrom: null,
        keySource: 'none',
        maskedKey: null,
        current: false,
        currentFrom: null,
      },
      {
        name: 'staging',
        baseUrl: null,
        baseUrlFrom: null,
        keySource: 'none',
        maskedKey: null,
        current: false,
        currentFrom: null,
      },
      {
        name: 'staging-eu',
        baseUrl: server.baseUrl,
        baseUrlFrom: 'staging-eu.baseUrl',
        keySource: 'stored',
        maskedKey: `****${KEY.slice(-4)}`,
        current: true,
        currentFrom: '--env',
      },
      {
        name: 'sandbox',
        baseUrl: null,
        baseUrlFrom: null,
        keySource: 'sandbox',
        maskedKey: null,
        current: false,
        currentFrom: null,
      },
    ]);

    // On a terminal: aligned under a header row, the current one marked `*`.
    const table = await runMain(['env', 'list'], {
      env: { ...c.env, PETSTORE_ENV: 'staging-eu', NO_COLOR: '1' },
      tty: true,
      columns: 120,
    });
    expect(table.code).toBe(0);
    const urlW = server.baseUrl.length;
    const row = (mark: string, name: string, url: string, key: string, current = ''): string =>
      [mark.padEnd(1), name.padEnd(10), url.padEnd(urlW), key.padEnd(15), current].join('  ').trimEnd();
    expect(table.stdout).toBe(
      [
        row('', 'NAME', 'BASE URL', 'KEY', 'CURRENT'),
        row('', 'production', '(not set)', 'none'),
        row('', 'staging', '(not set)', 'none'),
        row('*', 'staging-eu', server.baseUrl, `stored ****${KEY.slice(-4)}`, 'current (PETSTORE_ENV)'),
        row('', 'sandbox', '(embedded)', 'embedded'),
        '',
      ].join('\n'),
    );

    // A narrow terminal: no line wider; the source of the choice first, then the key (its
    // masked part, then the rest), and only then the URL, shortened with `…`.
    const narrowAt = async (columns: number): Promise<string[]> => {
      const r = await runMain(['env', 'list'], {
        env: { ...c.env, PETSTORE_ENV: 'staging-eu', NO_COLOR: '1' },
        tty: true,
        columns,
      });
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(5);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^ {3}NAME {2,}BASE URL {2,}KEY/);
      return lines;
    };
    const at60 = await narrowAt(60);
    expect(at60[3]).toMatch(
      new RegExp(`^\\* {2}staging-eu {2}${server.baseUrl.replace(/\./g, '\\.')} {2}stored +curren…$`),
    );
    expect(at60.join('\n')).not.toContain('****');
    const at50 = await narrowAt(50);
    expect(at50[3]).toMatch(/^\* {2}staging-eu {2}http:[^ ]*… {2}stored +curren…$/);

    // env use: the default, written under the lock; pets list then goes there without --env.
    const use = await runMain(['env', 'use', 'staging-eu'], { env: c.env, tty: true });
    expect(use.code).toBe(0);
    expect(use.stderr).toContain('staging-eu is the default environment now');
    expect(readConfig(c.file).environment).toBe('staging-eu');
    const byDefault = await runMain(['pets', 'list'], { env: c.env });
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toBe('1\tRex\t1\tavailable\n');
    expect((await listJson(c.env)).find((e) => e.current)).toMatchObject({
      name: 'staging-eu',
      currentFrom: 'environment',
    });

    // env remove --yes: settings and key gone, production the default again (said so).
    const remove = await runMain(['env', 'remove', 'staging-eu', '--yes'], { env: c.env });
    expect(remove.code).toBe(0);
    expect(unwrapped(remove.stderr)).toContain(`Removed the environment staging-eu from ${c.file}`);
    expect(unwrapped(remove.stderr)).toContain('production is the default again');
    expect(remove.stderr).not.toContain(KEY);
    expect(readConfig(c.file)).toEqual({});
    expect((await listJson(c.env)).map((e) => e.name)).toEqual(['production', 'staging', 'sandbox']);
    const gone = await runMain(['--env', 'staging-eu', 'pets', 'list'], { env: c.env });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('unknown environment');
  });
});

describe.concurrent('env list', () => {
  it('-o ndjson prints one object a line; -o csv is refused (it prints no pets)', async () => {
    const { env } = freshConfig();
    const nd = await runMain(['env', 'list', '-o', 'ndjson'], { env });
    expect(nd.code).toBe(0);
    expect(
      nd.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as EnvEntry).name),
    ).toEqual(['production', 'staging', 'sandbox']);
    const csv = await runMain(['env', 'list', '-o', 'csv'], { env });
    expect(csv.code).toBe(2);
    expect(csv.stdout).toBe('');
  });

  it('names PETSTORE_API_KEY (masked) for the selected environment, and does not run an apiKeyCommand', async () => {
    const c = freshConfig();
    const ran = join(tempDir(), 'ran');
    const settings: [string, string][] = [
      ['staging.baseUrl', 'https://staging.example.com/v1'],
      ['staging.apiKeyCommand', `touch ${ran}`],
      ['lab.baseUrl', 'https://lab.example.com/v1'],
    ];
    for (const [key, value] of settings)
      expect((await runMain(['config', 'set', key, value], { env: c.env })).code).toBe(0);
    const rows = await listJson({ ...c.env, PETSTORE_API_KEY: 'env-key-abcdef-9876', PETSTORE_ENV: 'lab' });
    // production, staging, the configured names alphabetically, the sandbox.
    expect(rows.map((r) => [r.name, r.keySource, r.maskedKey, r.current])).toEqual([
      ['production', 'none', null, false],
      ['staging', 'apiKeyCommand', null, false],
      ['lab', 'PETSTORE_API_KEY', '****9876', true],
      ['sandbox', 'sandbox', null, false],
    ]);
    expect(existsSync(ran)).toBe(false);
  });

  it('an unknown --env is exit 2 naming the closest, as in every command', async () => {
    const c = await namedEnvironment();
    const r = await runMain(['--env', 'staging-ue', 'env', 'list'], { env: c.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean staging-eu?');
  });

  it('a config file as petstore wrote it before named environments: listed, and left byte for byte by the commands that read it', async () => {
    const dir = join(tempDir(), 'old-config');
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    const old =
      JSON.stringify(
        {
          environment: 'staging',
          production: { baseUrl: 'https://api.example.com/v1' },
          staging: { baseUrl: 'https://staging.example.com/v1' },
          auth: {
            production: { apiKey: 'prod-key-0123456789-OLDP', baseUrl: 'https://api.example.com/v1' },
            staging: { apiKey: 'staging-key-0123456789-OLDS', baseUrl: 'https://staging.example.com/v2' },
          },
        },
        null,
        '\t',
      ) + '\n';
    writeFileSync(file, old, { mode: 0o600 });
    chmodSync(file, 0o600);
    const before = statSync(file).mtimeMs;
    const env = { PETSTORE_CONFIG_DIR: dir };
    const r = await runMain(['env', 'list'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'production\thttps://api.example.com/v1\tstored ****OLDP\t',
        'staging\thttps://staging.example.com/v1\tstored ****OLDS (for https://staging.example.com/v2, not sent)\tcurrent (config environment)',
        'sandbox\t\tembedded\t',
        '',
      ].join('\n'),
    );
    for (const args of [['env', 'list', '--json'], ['config', 'list'], ['auth', 'status'], ['__complete-envs']]) {
      await runMain(args, { env });
    }
    expect(readFileSync(file, 'utf8')).toBe(old);
    expect(statSync(file).mtimeMs).toBe(before);
  });
});

describe.concurrent('env use', () => {
  it('refuses an unknown name with exit 2 naming the closest, and writes nothing', async () => {
    const c = await namedEnvironment();
    const before = readFileSync(c.file, 'utf8');
    const r = await runMain(['env', 'use', 'staging-ue'], { env: c.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean staging-eu?');
    expect(readFileSync(c.file, 'utf8')).toBe(before);
    const bad = await runMain(['env', 'use', 'Staging_EU'], { env: c.env });
    expect(bad.code).toBe(2);
    expect(readFileSync(c.file, 'utf8')).toBe(before);
  });

  it('takes the built-in names without a config file, and warns when PETSTORE_ENV still wins', async () => {
    const c = freshConfig();
    const r = await runMain(['env', 'use', 'sandbox'], { env: { ...c.env, PETSTORE_ENV: 'staging' } });
    expect(r.code).toBe(0);
    expect(readConfig(c.file)).toEqual({ environment: 'sandbox' });
    expect(unwrapped(r.stderr)).toContain('PETSTORE_ENV=staging is set and still wins over the default here');
    const quiet = await runMain(['env', 'use', 'production'], { env: c.env });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readConfig(c.file)).toEqual({ environment: 'production' });
  });
});

describe.concurrent('env remove', () => {
  it('off a terminal without --yes: exit 2, nothing removed, the hint names --yes', async () => {
    const c = await namedEnvironment();
    const before = readFileSync(c.file, 'utf8');
    const r = await runMain(['env', 'remove', 'staging-eu'], { env: c.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--yes');
    expect(readFileSync(c.file, 'utf8')).toBe(before);
  });

  it('production keeps its name: its settings and key are cleared, it is still listed', async () => {
    const c = freshConfig();
    await runMain(['config', 'set', 'production.baseUrl', server.baseUrl], { env: c.env });
    await runMain(['auth', 'login', '--with-token'], { env: c.env, input: `${KEY}\n` });
    await runMain(['config', 'set', 'staging.baseUrl', 'https://staging.example.com/v1'], { env: c.env });
    const r = await runMain(['env', 'remove', 'production', '--yes'], { env: c.env });
    expect(r.code).toBe(0);
    expect(unwrapped(r.stderr)).toContain('production remains, with no base URL');
    expect(readConfig(c.file)).toEqual({ staging: { baseUrl: 'https://staging.example.com/v1' } });
    expect((await listJson(c.env)).map((e) => [e.name, e.baseUrl, e.keySource])).toEqual([
      ['production', null, 'none'],
      ['staging', 'https://staging.example.com/v1', 'none'],
      ['sandbox', null, 'sandbox'],
    ]);
    const again = await runMain(['env', 'remove', 'production', '--yes'], { env: c.env });
    expect(again.code).toBe(0);
    expect(unwrapped(again.stderr)).toContain('nothing to remove');
  });

  it.each([
    ['sandbox', 'sandbox reset'],
    ['staging-ue', 'did you mean staging-eu?'],
    ['pets', 'unknown environment'],
    ['Bad_Name', 'invalid environment name'],
  ])('refuses %s with exit 2 (%s), nothing removed', async (name, says) => {
    const c = await namedEnvironment();
    const before = readFileSync(c.file, 'utf8');
    const r = await runMain(['env', 'remove', name, '--yes'], { env: c.env });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(says);
    expect(readFileSync(c.file, 'utf8')).toBe(before);
  });
});

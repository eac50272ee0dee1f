/**
 * Where a write goes and whether it asks (cli-contract.md "Environments"): an explicit
 * `--env NAME` with its own base URL (and key source) wins over `PETSTORE_BASE_URL` and
 * `PETSTORE_API_KEY`, named in a one-line warning; `PETSTORE_ENV`, the config's
 * `environment`, an environment without a URL and `--base-url` keep their order; the
 * sandbox ignores both; `confirmWrites` follows the base URL, whatever selected it; the
 * banner says when the URL or key came from a variable. In-process through `main()`
 * against two recording servers on 127.0.0.1 standing in for production and staging; the
 * question on a real terminal is test/e2e/confirm-writes.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson } from '../helpers/harness.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';

const PRODUCTION_KEY = 'pk_live_production_0123456789';
const STAGING_KEY = 'pk_test_staging_0123456789';
const pool = serverPool();
afterAll(async () => {
  await pool.closeAll();
  removeTempDirs();
});

/** A server that creates what it is sent (id 42) and lists nothing. */
function shop(): Promise<TestServer> {
  return pool.start((req) =>
    req.method === 'POST'
      ? { status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) }
      : { status: 200, body: [] },
  );
}

/** Production (confirmWrites on) and staging, each at its own server; staging's key stored for its URL. */
async function newcomer(opts: { stagingUrl?: boolean; stagingKey?: boolean } = {}) {
  const [production, staging] = await Promise.all([shop(), shop()]);
  const dir = tempDir();
  const config = {
    production: { baseUrl: production.baseUrl, confirmWrites: true },
    ...(opts.stagingUrl === false ? {} : { staging: { baseUrl: staging.baseUrl } }),
    ...(opts.stagingKey === false ? {} : { auth: { staging: { apiKey: STAGING_KEY, baseUrl: staging.baseUrl } } }),
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  // What the newcomer exported, "debugging production".
  const shell = { PETSTORE_BASE_URL: production.baseUrl, PETSTORE_API_KEY: PRODUCTION_KEY };
  const run = (args: string[], o: MainOptions & { env?: Record<string, string | undefined> } = {}) =>
    runMain(args, {
      columns: 200,
      ...o,
      env: { PETSTORE_CONFIG_DIR: dir, ...shell, ...o.env },
      secrets: [PRODUCTION_KEY, STAGING_KEY],
    });
  return { production, staging, run, dir };
}

const CREATE = ['pets', 'create', '--name', 'Rex', '--category-id', '1'];

describe.concurrent('an explicit --env wins over the shell', () => {
  it("the newcomer's sequence: --env staging goes to staging's server with staging's key, a warning names the variables, nothing reaches production", async () => {
    for (const flag of ['--env', '-e']) {
      const { production, staging, run } = await newcomer();
      const r = await run([flag, 'staging', ...CREATE]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^42\tRex\t1/);
      expect(staging.requests.map((q) => [q.method, q.headers.authorization])).toEqual([
        ['POST', `Bearer ${STAGING_KEY}`],
      ]);
      expect(production.requests).toEqual([]);
      const warnings = r.stderr.trimEnd().split('\n');
      expect(warnings).toEqual(['warning: --env staging wins over PETSTORE_BASE_URL and PETSTORE_API_KEY']);
    }
  });

  it('on a terminal the banner and the summary name staging and its host alone', async () => {
    const { staging, run } = await newcomer();
    const r = await run(['--env', 'staging', ...CREATE], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    const host = new URL(staging.baseUrl).host;
    expect(r.stderr).toContain(`env: staging (${host})\n`);
    expect(r.stderr).toContain(`created pet 42 "Rex" in staging (${host})\n`);
  });

  it('staging with its own URL and no key source: its URL, the variable key, and only PETSTORE_BASE_URL named', async () => {
    const { production, staging, run } = await newcomer({ stagingKey: false });
    const r = await run(['--env', 'staging', ...CREATE], { tty: { stderr: true }, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(staging.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${PRODUCTION_KEY}`]);
    expect(production.requests).toEqual([]);
    const host = new URL(staging.baseUrl).host;
    expect(r.stderr).toContain('warning: --env staging wins over PETSTORE_BASE_URL\n');
    expect(r.stderr).toContain(`env: staging (${host}, key from PETSTORE_API_KEY)\n`);
  });

  it.each([
    ['PETSTORE_ENV', [], { PETSTORE_ENV: 'staging' }],
    ["the config's environment", [], {}],
  ] as const)(
    "%s keeps the variables first: the write goes to production's URL, and production.confirmWrites refuses it off a terminal",
    async (_name, flags, env) => {
      const { production, staging, run, dir } = await newcomer();
      if (Object.keys(env).length === 0) {
        await runMain(['config', 'set', 'environment', 'staging'], { env: { PETSTORE_CONFIG_DIR: dir } });
      }
      const r = await run([...flags, ...CREATE], { env: { PETSTORE_MESSAGES: 'json', ...env } });
      expect(r.code, r.stderr).toBe(2);
      expect(lastJson(r.stderr)).toMatchObject({ code: 'not_confirmed' });
      expect(lastJson(r.stderr).message).toMatch(/^production\.confirmWrites is on/);
      expect(r.stderr).not.toContain('wins over');
      expect(production.requests).toEqual([]);
      expect(staging.requests).toEqual([]);
      const yes = await run(['--yes', ...flags, ...CREATE], { env });
      expect(yes.code, yes.stderr).toBe(0);
      expect(production.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${PRODUCTION_KEY}`]);
      expect(staging.requests).toEqual([]);
    },
  );

  it('an environment without a configured URL still takes the variables (and then asks as production)', async () => {
    const { production, staging, run } = await newcomer({ stagingUrl: false, stagingKey: false });
    const r = await run(['--env', 'staging', ...CREATE], { env: { PETSTORE_MESSAGES: 'json' } });
    expect(r.code, r.stderr).toBe(2);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'not_confirmed' });
    expect([production.requests, staging.requests]).toEqual([[], []]);
  });

  it('--base-url still wins over everything', async () => {
    const { production, staging, run } = await newcomer({ stagingKey: false });
    const other = await shop();
    const r = await run(['--env', 'staging', '--base-url', other.baseUrl, ...CREATE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(other.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${PRODUCTION_KEY}`]);
    expect([production.requests, staging.requests]).toEqual([[], []]);
  });

  it('the sandbox ignores both variables', async () => {
    const { production, staging, run } = await newcomer();
    const r = await run(['--env', 'sandbox', ...CREATE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect([production.requests, staging.requests]).toEqual([[], []]);
  });
});

describe.concurrent('confirmWrites follows the base URL', () => {
  /** production's URL as a person may type it: a trailing slash, capitals, the default port. */
  const spellings = (url: string): string[] => {
    const u = new URL(url);
    return [url, `${url}/`, `HTTP://${u.host.toUpperCase()}${u.pathname}`];
  };

  it("a write selected by PETSTORE_ENV=staging and a variable equal to production's URL is refused off a terminal: pets create, a bulk create, api POST", async () => {
    const { production, staging, run } = await newcomer();
    const file = join(tempDir(), 'new-pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n');
    for (const url of spellings(production.baseUrl)) {
      for (const args of [CREATE, ['pets', 'create', '--from-file', file], ['api', 'POST', 'pets', '-f', 'name=Rex']]) {
        const r = await run(args, {
          env: { PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: url, PETSTORE_MESSAGES: 'json' },
        });
        expect(r.code, `${url} ${args.join(' ')}: ${r.stderr}`).toBe(2);
        const error = lastJson(r.stderr);
        expect(error).toMatchObject({ code: 'not_confirmed' });
        expect(error.message).toMatch(/^production\.confirmWrites is on, .*nothing was sent to staging/);
      }
    }
    const text = await run(CREATE, { env: { PETSTORE_ENV: 'staging' } });
    // The command whole: inline between backquotes, or bare on a line of its own.
    expect(text.stderr).toMatch(
      /`petstore config set production\.confirmWrites false`|^ *petstore config set production\.confirmWrites false$/m,
    );
    expect([production.requests, staging.requests]).toEqual([[], []]);
    const yes = await run(['--yes', ...CREATE], { env: { PETSTORE_ENV: 'staging' } });
    expect(yes.code, yes.stderr).toBe(0);
    expect(production.requests).toHaveLength(1);
  });

  it("--base-url equal to production's URL asks too; a read never does", async () => {
    const { production, run } = await newcomer();
    const write = await run(['--env', 'staging', '--base-url', `${production.baseUrl}/`, ...CREATE]);
    expect(write.code, write.stderr).toBe(2);
    const read = await run(['--env', 'staging', '--base-url', production.baseUrl, 'pets', 'list']);
    expect(read.code, read.stderr).toBe(0);
    expect(production.requests.map((q) => q.method)).toEqual(['GET']);
  });

  it('the banner says where the URL came from: `env: staging (HOST, from PETSTORE_BASE_URL)`', async () => {
    const { staging, run, dir } = await newcomer({ stagingUrl: false, stagingKey: false });
    // A key logged in for the variable's URL, so only the URL comes from a variable.
    await runMain(['auth', 'login', '--with-token'], {
      input: `${STAGING_KEY}\n`,
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: staging.baseUrl },
    });
    const r = await run(['pets', 'list'], {
      tty: { stderr: true },
      env: { PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: staging.baseUrl, PETSTORE_API_KEY: undefined, NO_COLOR: '1' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`env: staging (${new URL(staging.baseUrl).host}, from PETSTORE_BASE_URL)\nNo pets found.\n`);
  });
});

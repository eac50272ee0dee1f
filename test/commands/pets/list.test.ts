/**
 * `pets list`: the seed of the embedded sandbox (`--env sandbox`) in every form and filter,
 * exact int64; `--all`, which follows the server's Link rel="next" headers over one
 * kept-alive connection, streams records and stops at --max-pages and at a foreign origin;
 * the full-page warning; the RFC 9745 `Deprecation` and RFC 8594 `Sunset` headers of its
 * answers; and the base URL's shape judged before the key (a missing `/v1`, plain http). In-process (`runMain`) against the sandbox, paging servers and the recording test
 * server; the memory of `--all` is measured on a process of its own in
 * test/e2e/list-all.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse as losslessParse, isLosslessNumber } from 'lossless-json';
import { afterAll, describe, expect, it } from 'vitest';
import {
  configured,
  daysUntil,
  inSandbox,
  keyedServers,
  KEYS,
  operationNamed,
  remoteEnv,
  seededSandbox,
  SEED_TSV,
} from '../../helpers/harness.js';
import { pagingServerPool } from '../../helpers/paging-server.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { serverPool, startTestServer } from '../../helpers/test-server.js';

const KEY = 'test-key-listall-0123456789';
/** How a warning names listPets: `listPets (GET /pets)`. */
const LIST_PETS_NAMED = operationNamed('listPets');
const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };

const HAS_JQ = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v jq'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// Servers are closed when the file ends (tests run concurrently).
const { start: startPaging, closeAll: closePaging } = pagingServerPool();
const { start: startServer, closeAll: closeServers } = serverPool();
afterAll(async () => {
  await Promise.all([closePaging(), closeServers()]);
  removeTempDirs();
});

describe.concurrent('listing the seed (one shared, read-only sandbox)', () => {
  const seed = seededSandbox();

  it('lists the ten seed pets in the machine form by default', async () => {
    const r = await inSandbox(seed.dir, ['pets', 'list']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(SEED_TSV.join('\n') + '\n');
    expect(r.code).toBe(0);
  });

  it.each(['available', 'pending', 'sold'])('--status %s lists only those pets', async (status) => {
    const r = await inSandbox(seed.dir, ['pets', 'list', '--status', status]);
    expect(r.code).toBe(0);
    const want = SEED_TSV.filter((l) => l.endsWith(`\t${status}`));
    expect(r.stdout).toBe(want.join('\n') + '\n');
  });

  it('--limit 3 gives the first three; --limit 007 gives seven', async () => {
    const [three, seven] = await Promise.all([
      inSandbox(seed.dir, ['pets', 'list', '--limit', '3']),
      inSandbox(seed.dir, ['pets', 'list', '--limit', '007']),
    ]);
    expect(three.stdout).toBe(SEED_TSV.slice(0, 3).join('\n') + '\n');
    expect(seven.stdout).toBe(SEED_TSV.slice(0, 7).join('\n') + '\n');
    expect([three.code, seven.code]).toEqual([0, 0]);
  });

  it('--limit and --status combine', async () => {
    const r = await inSandbox(seed.dir, ['pets', 'list', '--status', 'available', '--limit', '2']);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n2\tWhiskers\t2\tavailable\n');
    expect(r.code).toBe(0);
  });

  it('json is an array with exact int64, parseable by jq when installed', async () => {
    const r = await inSandbox(seed.dir, ['pets', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"id": 9007199254740993');
    expect(r.stdout).toContain('"categoryId": 9223372036854775807');
    // A parser that keeps big integers sees exactly the seed values.
    const parsed = losslessParse(r.stdout) as Record<string, unknown>[];
    expect(parsed).toHaveLength(10);
    const atlas = parsed[9] ?? {};
    expect(isLosslessNumber(atlas.id) && String(atlas.id)).toBe('9007199254740993');
    expect(isLosslessNumber(atlas.categoryId) && String(atlas.categoryId)).toBe('9223372036854775807');
    if (HAS_JQ) {
      // jq 1.6 parses numbers as doubles, so compare what it keeps exactly: structure and text.
      const names = execFileSync('jq', ['-r', '.[] | "\\(.name) \\(.status)"'], { input: r.stdout, encoding: 'utf8' });
      expect(names.trim().split('\n')).toEqual(SEED_TSV.map((l) => `${l.split('\t')[1]} ${l.split('\t')[3]}`));
      expect(execFileSync('jq', ['length'], { input: r.stdout, encoding: 'utf8' }).trim()).toBe('10');
      expect(execFileSync('jq', ['-r', '.[9].name'], { input: r.stdout, encoding: 'utf8' }).trim()).toBe('Atlas');
    }
  });

  it('ignores PETSTORE_BASE_URL and PETSTORE_API_KEY: a real key never goes to the sandbox', async () => {
    const srv = await startTestServer();
    try {
      const key = 'pk_live_must_not_travel_0123';
      const r = await inSandbox(
        seed.dir,
        ['pets', 'list', '--limit', '2'],
        remoteEnv(srv.baseUrl, key, { PETSTORE_CONFIG_DIR: seed.dir }),
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(SEED_TSV.slice(0, 2).join('\n') + '\n');
      expect(srv.requests).toHaveLength(0);
    } finally {
      await srv.close();
    }
  });
});

describe.concurrent('pets list --all', () => {
  it('follows every Link rel="next" over one TCP connection and streams ndjson in order', async () => {
    const server = await startPaging({ pages: 5 });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(500);
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(
      Array.from({ length: 500 }, (_, i) => i + 1),
    );
    // The first page asks the --all default page size; later pages are exactly the linked URLs.
    expect(server.urls).toEqual([
      '/v1/pets?limit=100',
      '/v1/pets?limit=100&page=2',
      '/v1/pets?limit=100&page=3',
      '/v1/pets?limit=100&page=4',
      '/v1/pets?limit=100&page=5',
    ]);
    expect(server.auth.every((a) => a === `Bearer ${KEY}`)).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it.each([
    ['on a terminal', true],
    ['piped', false],
  ])(
    'stopped by Ctrl-C after 71 pages of 100 (%s): the incomplete line counts with thousands separated',
    async (_, tty) => {
      // Page 72 is never answered: the walk waits for it when the signal comes.
      let reached: () => void = () => undefined;
      const atPage72 = new Promise<void>((resolve) => (reached = resolve));
      const server = await startPaging({
        pages: 100,
        perPage: 100,
        override: (page) => {
          if (page !== 72) return false;
          reached();
          return true;
        },
      });
      const controller = new AbortController();
      const run = runMain(['pets', 'list', '--all', '-o', 'ndjson'], {
        env: remoteEnv(server.baseUrl, KEY, { NO_COLOR: '1' }),
        signal: controller.signal,
        tty: { stderr: tty },
      });
      await atPage72;
      controller.abort('SIGINT');
      const r = await run;
      expect(r.code).toBe(130);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(7100);
      if (tty) {
        expect(r.stderr).toContain('the list is incomplete: 7,100 pets from 71 pages\n');
      } else {
        // The JSON object keeps its counts as numbers: only the message, for people, groups them.
        expect(JSON.parse(r.stderr)).toMatchObject({
          code: 'interrupted',
          message: 'interrupted: the list is incomplete: 7,100 pets from 71 pages',
          pets: 7100,
          pages: 71,
        });
      }
    },
  );

  it('uses --limit as the page size and keeps --status on the first request', async () => {
    const server = await startPaging({ pages: 3 });
    const r = await runMain(['pets', 'list', '--all', '--limit', '7', '--status', 'sold'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(21);
    expect(r.stdout.split('\n')[0]).toBe('1\tpet-1-xx\t1\tavailable');
    expect(server.urls[0]).toBe('/v1/pets?limit=7&status=sold');
  });

  it('prints one JSON array for --output json, accumulated across pages', async () => {
    const server = await startPaging({ pages: 4, perPage: 3 });
    const r = await runMain(['pets', 'list', '--all', '--json'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    const arr = JSON.parse(r.stdout) as { id: number }[];
    expect(arr.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(r.stderr).toBe('');
  });

  it('resolves a relative Link target against the request URL (RFC 8288 §3.1)', async () => {
    const server = await startPaging({ pages: 3, perPage: 2, nextLink: (n) => `<pets?limit=2&page=${n}>; rel="next"` });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(server.urls).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=2&page=2', '/v1/pets?limit=2&page=3']);
  });

  it('finds rel="next" among several links and rel types', async () => {
    const server = await startPaging({
      pages: 2,
      perPage: 2,
      nextLink: (n, _r, o) => `<${o}/v1/pets?page=1>; rel="first", <${o}/v1/pets?limit=2&page=${n}>; rel="last next"`,
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(server.urls).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=2&page=2']);
  });

  it('refuses a next link on another origin: exit 1, the key is not sent there', async () => {
    const other = await startPaging({ pages: 1 });
    const server = await startPaging({
      pages: 3,
      perPage: 2,
      nextLink: (n) => `<${other.origin}/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(other.origin);
    expect(r.stderr).toContain('not followed');
    expect(other.urls).toHaveLength(0);
    expect(server.urls).toHaveLength(1);
    // What was fetched before the refusal is on stdout; the exit code says it is incomplete.
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('treats another port on the same host as another origin', async () => {
    const server = await startPaging({
      pages: 3,
      perPage: 1,
      nextLink: (n, _r, o) => `<${o.replace(/:\d+$/, ':1')}/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'list', '--all'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('http://127.0.0.1:1');
  });

  it('stops at --max-pages with exit 1 and a message, after printing what it fetched', async () => {
    const server = await startPaging({ pages: 10, perPage: 2 });
    const r = await runMain(['pets', 'list', '--all', '--max-pages', '3', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(1);
    expect(server.urls).toHaveLength(3);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(6);
    const err = JSON.parse(r.stderr.trim()) as { code: string; message: string; status: number };
    expect(err.code).toBe('max_pages');
    expect(err.message).toBe(
      'stopped at --max-pages 3 (3 pages, 6 pets); the server links to more, so the list printed is incomplete',
    );
    expect(err.status).toBe(0);
    // The hint is said in the text form only (stderr a terminal).
    const said = await runMain(['pets', 'list', '--all', '--max-pages', '3'], {
      env: remoteEnv(server.baseUrl, KEY),
      tty: { stderr: true },
      columns: 200,
    });
    expect(said.stderr).toContain('Raise --max-pages (at most 10000), or narrow the list with --status.');
  });

  it('exits 0 when the last page arrives exactly at --max-pages', async () => {
    const server = await startPaging({ pages: 3, perPage: 2 });
    const r = await runMain(['pets', 'list', '--all', '--max-pages', '3'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(server.urls).toHaveLength(3);
  });

  it.each([
    [['pets', 'list', '--max-pages', '5'], '--max-pages needs --all'],
    [['pets', 'list', '--all', '--max-pages', '0'], 'invalid --max-pages "0"'],
    [['pets', 'list', '--all', '--max-pages', '10001'], 'invalid --max-pages "10001"'],
    [['pets', 'list', '--all', '--max-pages', '1e3'], 'invalid --max-pages "1e3"'],
    [['pets', 'list', '--all', '--limit', '101'], 'invalid --limit "101"'],
  ])('%j is a usage error and sends nothing', async (args, message) => {
    const server = await startPaging({ pages: 2 });
    const r = await runMain(args, { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    expect(server.urls).toHaveLength(0);
  });

  it('without --all prints one page, even when the server links to more', async () => {
    const server = await startPaging({ pages: 3 });
    const r = await runMain(['pets', 'list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(20);
    expect(server.urls).toEqual(['/v1/pets']);
    // The "add --all" note is for people: not when stderr is piped.
    expect(r.stderr).toBe('');
  });

  it('warns, also when piped, that a full page without a Link header may hide more pets', async () => {
    const server = await startPaging({ pages: 1 });
    const full = await runMain(['pets', 'list', '--limit', '20'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(full.code).toBe(0);
    expect(full.stdout.trimEnd().split('\n')).toHaveLength(20);
    expect(unwrapped(full.stderr)).toMatch(
      /^warning: the page is full \(20 pets\), so more may exist, but the server sent no Link rel="next" header/,
    );
    const all = await runMain(['pets', 'list', '--all', '--limit', '20'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(all.code).toBe(0);
    expect(all.stderr).toContain('the page is full (20 pets)');
  });

  it('gives no such warning when the page is not full, or after linked pages', async () => {
    const server = await startPaging({ pages: 1, perPage: 5 });
    const r = await runMain(['pets', 'list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const paged = await startPaging({ pages: 2, perPage: 5 });
    const linked = await runMain(['pets', 'list', '--all', '--limit', '5'], { env: remoteEnv(paged.baseUrl, KEY) });
    expect(linked.code).toBe(0);
    expect(linked.stderr).toBe('');
  });

  it("follows the sandbox server's own cursor links", async () => {
    const dir = tempDir();
    const r = await runMain(['--env', 'sandbox', 'pets', 'list', '--all', '--limit', '1', '--output', 'ndjson'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    const one = await runMain(['--env', 'sandbox', 'pets', 'list', '--limit', '100', '--output', 'ndjson'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(0);
    expect(one.code).toBe(0);
    expect(r.stdout).toBe(one.stdout);
    expect(r.stdout.trimEnd().split('\n').length).toBeGreaterThan(3);
  });
});

describe.concurrent('deprecation headers', () => {
  it('warns once for a list whose every page is deprecated; stdout untouched', async () => {
    const server = await startPaging({
      pages: 3,
      perPage: 2,
      headers: { deprecation: '@1767225600', sunset: 'Wed, 01 Jan 2031 00:00:00 GMT' },
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `${LIST_PETS_NAMED} is deprecated (since 2026-01-01) and will be removed on 2031-01-01 (in ${daysUntil('2031-01-01T00:00:00Z').toLocaleString('en-US')} days)`,
    });
  });

  it('tolerates the obsolete `Deprecation: true` as "deprecated, date unknown"', async () => {
    const server = await startServer(() => ({ status: 200, body: [PET], headers: { deprecation: 'true' } }));
    const r = await runMain(['pets', 'list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${LIST_PETS_NAMED} is deprecated\n`);
  });

  it('says when a deprecation lies in the future, and ignores malformed values', async () => {
    const server = await startServer(() => ({ status: 200, body: [PET], headers: { deprecation: '@4102444800' } }));
    const r = await runMain(['pets', 'list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.stderr).toBe(
      `warning: ${LIST_PETS_NAMED} will be deprecated on 2100-01-01 (in ${daysUntil('2100-01-01T00:00:00Z').toLocaleString('en-US')} days)\n`,
    );
    server.handle(() => ({ status: 200, body: [PET], headers: { deprecation: 'soon', sunset: 'not a date' } }));
    const bad = await runMain(['pets', 'list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toBe('');
  });
});

describe('pets list: the base URL checked before the key (cli-contract.md "Environments")', () => {
  const servers = keyedServers();
  /** A config with production's /v1 URL and its key stored for that URL. */
  async function loggedIn(): Promise<{ env: Record<string, string>; v1: string; bare: string }> {
    const { env } = await configured(servers);
    expect((await runMain(['auth', 'login', '--with-token'], { env, input: KEYS.production })).code).toBe(0);
    servers.production.requests.length = 0;
    const v1 = servers.production.baseUrl;
    expect(v1).toMatch(/\/v1$/);
    return { env, v1, bare: v1.replace(/\/v1$/, '') };
  }

  it('a key stored for the /v1 URL and --base-url without it: the missing /v1 first, exit 2, no login advice', async () => {
    const { env, v1, bare } = await loggedIn();
    const r = await runMain(['--base-url', bare, 'pets', 'list'], { env });
    expect(r.code).toBe(2);
    const said = unwrapped(r.stderr);
    const warning = said.indexOf(`base URL ${bare} (from --base-url) does not end with the version segment /v1`);
    const error = said.indexOf(
      `error: ${bare} (from --base-url) lacks the version segment /v1; the production key is stored for ${v1}, and was not sent`,
    );
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(error).toBeGreaterThan(warning);
    expect(said).toContain(`Add /v1: --base-url ${v1}`);
    expect(said).not.toContain('auth login');
    expect(r.stdout).toBe('');
    expect(servers.production.requests).toHaveLength(0);

    // From PETSTORE_BASE_URL: the same, with the fix for the variable.
    const fromEnv = await runMain(['pets', 'list'], { env: { ...env, PETSTORE_BASE_URL: bare } });
    expect(fromEnv.code).toBe(2);
    expect(unwrapped(fromEnv.stderr)).toContain(`Add /v1: PETSTORE_BASE_URL=${v1}`);
    expect(servers.production.requests).toHaveLength(0);
  });

  it('an apiKeyCommand for the /v1 URL and --base-url without it: the same, the command not run', async () => {
    const { env } = await configured(servers);
    const marker = join(tempDir(), 'ran');
    expect((await runMain(['config', 'set', 'production.apiKeyCommand', `touch ${marker}`], { env })).code).toBe(0);
    const v1 = servers.production.baseUrl;
    const bare = v1.replace(/\/v1$/, '');
    const r = await runMain(['--base-url', bare, 'pets', 'list'], { env });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      `lacks the version segment /v1; the key of production.apiKeyCommand is for ${v1}, and was not sent`,
    );
    expect(existsSync(marker)).toBe(false);
    expect(servers.production.requests).toHaveLength(0);
  });

  it('no key at all and no /v1: the /v1 warning comes before the key error', async () => {
    const { env } = await configured(servers);
    const bare = servers.production.baseUrl.replace(/\/v1$/, '');
    const r = await runMain(['--base-url', bare, 'pets', 'list'], { env });
    expect(r.code).toBe(4);
    const said = unwrapped(r.stderr);
    const warning = said.indexOf('does not end with the version segment /v1');
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(said.indexOf('error: no API key for production')).toBeGreaterThan(warning);
  });

  it('plain http to a remote host is refused (exit 2) before any key check, flag or variable', async () => {
    const { env } = await loggedIn();
    for (const run of [
      runMain(['--base-url', 'http://pets.example.com/v1', 'pets', 'list'], { env }),
      runMain(['pets', 'list'], { env: { ...env, PETSTORE_BASE_URL: 'http://pets.example.com/v1' } }),
    ]) {
      const r = await run;
      expect(r.code).toBe(2);
      const said = unwrapped(r.stderr);
      expect(said).toContain('plain http:// is allowed only for loopback hosts');
      expect(said).not.toContain('key was stored');
      expect(said).not.toContain('no API key');
    }
  });

  it('a key stored for another URL (not only the /v1) still says so and advises logging in there', async () => {
    const { env, v1 } = await loggedIn();
    const other = servers.staging.baseUrl;
    const r = await runMain(['--base-url', other, 'pets', 'list'], { env });
    expect(r.code).toBe(4);
    const said = unwrapped(r.stderr);
    expect(said).toContain(`the production key was stored for ${v1}, not ${other}; not sent`);
    expect(said).toContain('auth login');
    expect(said).not.toContain('version segment');
  });
});

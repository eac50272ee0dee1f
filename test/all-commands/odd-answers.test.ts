/**
 * Odd answers refused, odd inputs too (cli-contract.md "Errors and exit codes", "Network
 * behaviour", "Input rules"): a base URL ending in `?` or `#`, a `--timeout` below a
 * millisecond, ids that are not integer literals, a Link rel="next" that loops, a body over
 * the cap on a list, a malformed URI at the sandbox, and a create whose connection was reset
 * after it was sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hugeBody, reset } from '../helpers/fault-server.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-config.js';
import { type RecordedRequest } from '../helpers/test-server.js';

const KEY = 'pk_test_odd_0123456789';
const { start } = fileServers();

const env = (baseUrl: string, extra?: Record<string, string>): Record<string, string> => remoteEnv(baseUrl, KEY, extra);

describe('a base URL ending in ? or #: exit 2 wherever it enters, nothing sent or stored', () => {
  it.each(['?', '#', '?x=1', '#top'])('%j after /v1', async (tail) => {
    const srv = await start();
    const url = `${srv.baseUrl}${tail}`;
    const [flag, variable] = await Promise.all([
      runMain(['--base-url', url, 'pets', 'list', '--json'], {
        env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_API_KEY: KEY },
      }),
      runMain(['pets', 'list', '--json'], { env: env(url) }),
    ]);
    for (const r of [flag, variable]) {
      expect(r.code).toBe(2);
      expect(lastJson(r.stderr).message).toContain('must not carry credentials, a query or a fragment');
    }
    expect(srv.requests).toEqual([]);
    const dir = tempDir();
    const set = await runMain(['config', 'set', 'production.baseUrl', `https://api.example.com/v1${tail}`], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(set.code).toBe(2);
    expect(() => readFileSync(join(dir, 'config.json'), 'utf8')).toThrow();
  });
});

describe('--timeout below a millisecond', () => {
  it.each(['0.0001', '0.0009', '0.00001'])('--timeout %s: exit 2', async (value) => {
    const r = await runMain(['pets', 'list', '--timeout', value], { env: env('http://127.0.0.1:9/v1') });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(`invalid --timeout "${value}"`);
    expect(unwrapped(r.stderr)).toContain('at least 0.001');
  });

  it('--timeout 0.001 is the floor, accepted', async () => {
    const srv = await start(() => ({ status: 200, body: [] }));
    const r = await runMain(['pets', 'list', '--timeout', '0.001', '--json'], { env: env(srv.baseUrl) });
    expect(r.stderr).not.toContain('invalid --timeout');
  });
});

describe('ids that are not integer literals in the int64 range: invalid_response, exit 1', () => {
  it.each([
    ['12345678.0000000001', 'id'],
    ['1.0', 'id'],
    ['1e2', 'id'],
    ['9223372036854775808', 'id'],
    ['1e400', 'categoryId'],
  ])('a created pet whose %s is %s', async (literal, field) => {
    const body =
      field === 'id'
        ? `{"id":${literal},"name":"Rex","categoryId":1}`
        : `{"id":7,"name":"Rex","categoryId":${literal}}`;
    const srv = await start(() => ({ status: 201, raw: body }));
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: env(srv.baseUrl),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response' });
    expect(lastJson(r.stderr).message).toContain(field);
  });

  it('a listed pet whose id is 5.5 or 5.0', async () => {
    for (const literal of ['5.5', '5.0']) {
      const srv = await start(() => ({ status: 200, raw: `[{"id":${literal},"name":"Rex","categoryId":1}]` }));
      const r = await runMain(['pets', 'list', '--json'], { env: env(srv.baseUrl) });
      expect(r.code, literal).toBe(1);
      expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response' });
    }
  });

  it('a bulk file whose categoryId is 1e400: exit 2, quoting the source text', async () => {
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, '{"name":"Rex","categoryId":1e400}\n');
    const r = await runMain(['pets', 'create', '--from-file', file], { env: env('http://127.0.0.1:9/v1') });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('got 1e400');
    expect(unwrapped(r.stderr)).not.toContain('got null');
  });
});

describe('a Link rel="next" back to a page already fetched ends the walk: invalid_response, exit 1', () => {
  /** A list whose pages link a (`pets list --all`'s first page) → b → a. */
  async function loopingServer() {
    return start((req: RecordedRequest) => {
      const page = new URL(req.url, 'http://x').searchParams.get('cursor') ?? 'a';
      const next = page === 'a' ? '/v1/pets?cursor=b' : '/v1/pets?limit=100';
      return {
        status: 200,
        headers: { link: `<${next}>; rel="next"` },
        body: [{ id: page === 'a' ? 1 : 2, name: `Pet ${page}`, categoryId: 1 }],
      };
    });
  }

  it('pets list --all prints each page once and stops at the loop', async () => {
    const srv = await loopingServer();
    const r = await runMain(['pets', 'list', '--all'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('1\tPet a\t1\t\n2\tPet b\t1\t\n');
    expect(unwrapped(r.stderr)).toContain('points back to a page already fetched');
    expect(srv.requests.map((q) => q.url)).toEqual(['/v1/pets?limit=100', '/v1/pets?cursor=b']);
    const j = await runMain(['pets', 'list', '--all', '--json'], { env: env(srv.baseUrl) });
    expect(lastJson(j.stderr)).toMatchObject({ code: 'invalid_response' });
  });

  it('a page linking to itself', async () => {
    const srv = await start(() => ({
      status: 200,
      headers: { link: '</v1/pets?limit=100>; rel="next"' },
      body: [{ id: 1, name: 'Rex', categoryId: 1 }],
    }));
    const r = await runMain(['pets', 'list', '--all', '--json'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response' });
    expect(srv.requests).toHaveLength(1);
  });

  it('petstore api --paginate and pets get --via-list stop the same way', async () => {
    const srv = await loopingServer();
    const api = await runMain(['api', 'pets', '--paginate'], { env: env(srv.baseUrl) });
    expect(api.code).toBe(1);
    expect(unwrapped(api.stderr)).toContain('points back to a page already fetched');
    const get = await runMain(['pets', 'get', '99', '--via-list', '--json'], { env: env(srv.baseUrl) });
    expect(get.code).toBe(1);
    expect(lastJson(get.stderr)).toMatchObject({ code: 'invalid_response' });
    expect(srv.requests.length).toBeLessThan(10);
  });
});

describe('a list answer over the 10 MiB cap', () => {
  it('the hint suggests a smaller --limit, or --all with smaller pages', async () => {
    const srv = await start(hugeBody(10 * 1024 * 1024 + 1));
    const r = await runMain(['pets', 'list', '--limit', '100'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    const text = unwrapped(r.stderr);
    expect(text).toContain('response body too large');
    expect(text).toContain('--limit');
    expect(text).toContain('--all');
    const all = await runMain(['pets', 'list', '--all'], { env: env(srv.baseUrl) });
    expect(all.code).toBe(1);
    expect(unwrapped(all.stderr)).toMatch(/smaller pages.*--limit/);
  });
});

describe('the sandbox and a malformed URI', () => {
  it('GET /v1/pets/%E0%A4%A: 400 with an Error body, not a 500', async () => {
    const dir = tempDir();
    const serve = await import('../../src/sandbox/server.js');
    const { SandboxStore } = await import('../../src/sandbox/store.js');
    const store = new SandboxStore(join(dir, 'sandbox.json'), { waitMs: 5000 });
    const sandbox = await serve.startSandbox({ store });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          `${sandbox.baseUrl}/pets/%E0%A4%A`,
          { headers: { authorization: `Bearer ${sandbox.apiKey}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject).end();
      });
      expect(status).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(body).not.toContain('URI malformed');
    } finally {
      await sandbox.close();
      await store.close();
    }
  });
});

describe('a pets create whose connection is reset after it was sent', () => {
  it('says the pet may have been created and how to check, before creating it again', async () => {
    const srv = await start(reset());
    const r = await runMain(['pets', 'create', '--name', 'Rex\'s "pup"', '--category-id', '1'], {
      env: env(srv.baseUrl),
    });
    expect(r.code).toBe(3);
    const text = unwrapped(r.stderr);
    expect(text).not.toContain('cannot reach');
    expect(text).toContain('the pet may have been created');
    expect(text).toContain(`petstore pets list --all --jq '.[] | select(.name == "Rex'\\''s \\"pup\\"")'`);
    expect(srv.requests).toHaveLength(1);
    const j = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: env(srv.baseUrl),
    });
    expect(lastJson(j.stderr)).toMatchObject({ code: 'network', status: 0 });
    expect(lastJson(j.stderr).message).toContain('may have been created');
  });

  it('a connection refused (nothing sent) says nothing of the kind', async () => {
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--retries', '0'], {
      env: env('http://127.0.0.1:9/v1'),
    });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('cannot reach 127.0.0.1:9');
    expect(unwrapped(r.stderr)).not.toContain('may have been created');
  });
});

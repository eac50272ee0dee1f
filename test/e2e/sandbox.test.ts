/**
 * `petstore sandbox serve`: a foreground Pet Store server for curl and scripts. The test
 * talks to it over real HTTP (fetch) and stops it with SIGINT, as Ctrl-C would.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { specOperation, specUrl } from '../fixtures/api-spec.js';
import { CLI_ARGV, baseEnv, runCli } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

/**
 * How long `sandbox serve` may take to start, and a test that starts one to finish: limits
 * for a hang, many times what a quiet machine needs, since CI's two cores may be busy
 * with other work.
 */
const START_MS = 60_000;

/** getPet's deprecation: the Deprecation and Sunset values its answers carry. */
const GET_PET_DEPRECATION = specOperation('getPet').deprecated!;

interface Served {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  apiKey: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `petstore sandbox serve --port 0` and waits until it prints its key (stdout) and listening line (stderr). */
async function serve(dir: string, extra: string[] = []): Promise<Served> {
  const child = spawn(CLI_ARGV[0], [...CLI_ARGV.slice(1), 'sandbox', 'serve', '--port', '0', ...extra], {
    env: { ...baseEnv(), PETSTORE_CONFIG_DIR: dir, HOME: dir },
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    // Waits for the key and the listening line, however long a loaded machine takes; only a hang takes START_MS.
    const timer = setTimeout(() => reject(new Error(`serve printed no key; stderr: ${err}`)), START_MS);
    // Ready when the key is on stdout and the listening line on stderr.
    const check = (): void => {
      if (/PETSTORE_API_KEY=.*\n|^\}$/m.test(out) && err.includes('Ctrl-C stops it')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      check();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      check();
    });
    void exited.then(() => reject(new Error(`serve exited early; stderr: ${err}`)));
  });
  const baseUrl = /^PETSTORE_BASE_URL=(.*)$/m.exec(out)?.[1] ?? '';
  const apiKey = /^PETSTORE_API_KEY=(.*)$/m.exec(out)?.[1] ?? '';
  return { child, baseUrl, apiKey, stdout: () => out, stderr: () => err, exited };
}

let dir: string;
let s: Served;
beforeAll(async () => {
  dir = tempDir();
  s = await serve(dir);
}, 120_000);
afterAll(() => {
  if (s.child.exitCode === null) s.child.kill('SIGKILL');
  removeTempDirs();
});

const auth = () => ({ authorization: `Bearer ${s.apiKey}` });

describe.concurrent('sandbox serve over HTTP', () => {
  it('prints exactly two shell assignments on stdout', () => {
    expect(s.stdout()).toMatch(
      /^PETSTORE_BASE_URL=http:\/\/127\.0\.0\.1:[1-9][0-9]*\/v1\nPETSTORE_API_KEY=sbx_[0-9a-f]{32}\n$/,
    );
    expect(s.stderr()).toContain('Ctrl-C stops it');
  });

  it('answers 401 with an Error body and WWW-Authenticate without the key, or with a wrong one', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer sbx_wrong' }, { authorization: s.apiKey }];
    for (const headers of variants) {
      const res = await fetch(`${s.baseUrl}/pets`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(typeof body.message).toBe('string');
    }
  });

  it('answers 200 with the seed, exact int64 in the body text', async () => {
    const res = await fetch(`${s.baseUrl}/pets?limit=100`, { headers: auth() });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(
      '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"available"}',
    );
    expect(text.startsWith('[{"id":1,"name":"Rex","categoryId":1,"status":"available"}')).toBe(true);
  });

  it('GET /v1/pets/{id} carries Deprecation and Sunset', async () => {
    const res = await fetch(`${s.baseUrl}/pets/1`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('sunset')).toBe(GET_PET_DEPRECATION.sunset);
    expect(res.headers.get('deprecation')).toBe(GET_PET_DEPRECATION.deprecation);
    expect(await res.json()).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'status=bogus', 'status=Sold'])('GET /pets?%s → 400', async (q) => {
    const res = await fetch(`${s.baseUrl}/pets?${q}`, { headers: auth() });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it.each([
    ['not JSON', '{"name":'],
    ['missing name', '{"categoryId":1}'],
    ['missing categoryId', '{"name":"Rex"}'],
    ['float categoryId', '{"name":"Rex","categoryId":1.5}'],
    ['categoryId beyond int64', '{"name":"Rex","categoryId":9223372036854775808}'],
    ['bad status', '{"name":"Rex","categoryId":1,"status":"lost"}'],
    ['empty name', '{"name":"  ","categoryId":1}'],
    ['an array', '[]'],
  ])('POST /pets with %s → 400', async (_what, body) => {
    const res = await fetch(`${s.baseUrl}/pets`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it.each(['123456', '9223372036854775807', '9223372036854775808', 'abc'])('GET /pets/%s → 404', async (id) => {
    const res = await fetch(`${s.baseUrl}/pets/${id}`, { headers: auth() });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('POST /pets → 201 with Location, the pet readable at that Location', async () => {
    const res = await fetch(`${s.baseUrl}/pets`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"name":"Served","categoryId":9223372036854775807}',
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    const id = /^\{"id":(\d+),"name":"Served","categoryId":9223372036854775807,"status":"available"\}$/.exec(text)?.[1];
    expect(id, text).toBeDefined();
    expect(res.headers.get('location')).toBe(specUrl('getPet', { petId: id! }));
    const again = await fetch(new URL(res.headers.get('location') ?? '', s.baseUrl), { headers: auth() });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(text);
  });
});

describe('stopping', () => {
  it("stops on SIGINT with exit 130, the shell's code for Ctrl-C", async () => {
    s.child.kill('SIGINT');
    const { code, signal } = await s.exited;
    expect(signal).toBeNull();
    expect(code).toBe(130);
    await expect(fetch(`${s.baseUrl}/pets`, { headers: auth() })).rejects.toThrow();
  }, 120_000);
});

describe.concurrent('other ways to run it', () => {
  it('--json prints one object with baseUrl and apiKey; SIGTERM stops it with exit 143', async () => {
    const j = await serve(tempDir(), ['--json']);
    try {
      const info = JSON.parse(j.stdout()) as { baseUrl: string; apiKey: string };
      expect(Object.keys(info).sort()).toEqual(['apiKey', 'baseUrl']);
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const res = await fetch(`${info.baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${info.apiKey}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
      j.child.kill('SIGTERM');
      expect(await j.exited).toEqual({ code: 143, signal: null });
      // The request log went to stderr, not to stdout.
      expect(j.stderr()).toMatch(/GET \/v1\/pets\?limit=1 200/);
    } finally {
      if (j.child.exitCode === null) j.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe.concurrent('refusing to serve', () => {
  it.each(['99999', '-1', 'abc', '', '80.5'])('--port %j → exit 2', async (port) => {
    const r = await runCli(['sandbox', 'serve', '--port', port], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`invalid --port ${JSON.stringify(port)}`);
    expect(r.stderr).toContain('0 to 65535');
  });

  it('a port in use → exit 1 with a hint', async () => {
    const other = await serve(tempDir());
    try {
      const port = new URL(other.baseUrl).port;
      const r = await runCli(['sandbox', 'serve', '--port', port], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`127.0.0.1:${port}`);
      expect(r.stderr).toContain('is in use by another program');
      expect(r.stderr).toContain('--port');
    } finally {
      other.child.kill('SIGINT');
      await other.exited;
    }
  }, 120_000);

  it('corrupt sandbox data → exit 2 with its path and the reset hint', async () => {
    const d = tempDir();
    writeFileSync(join(d, 'sandbox.json'), 'not json');
    const r = await runCli(['sandbox', 'serve'], { env: { PETSTORE_CONFIG_DIR: d } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(join(d, 'sandbox.json'));
    expect(r.stderr).toContain('petstore sandbox reset');
  });
});

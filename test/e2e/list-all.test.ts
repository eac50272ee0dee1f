/**
 * `pets list --all` end to end: follows the server's Link rel="next" headers over one
 * kept-alive connection, streams records, stops at --max-pages and at a foreign origin.
 * The CLI runs in-process (`runMain`) against real paging servers, one per test; only the
 * memory test spawns it, since it measures a whole process's heap.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pagingServerPool, startPagingServer, type PagingServer } from '../helpers/paging-server.js';
import { baseEnv, CLI, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const KEY = 'test-key-listall-0123456789';
// Servers are closed when the file ends (tests run concurrently).
const { start: startServer, closeAll } = pagingServerPool();

afterAll(async () => {
  await closeAll();
  removeTempDirs();
});

const env = (s: PagingServer): Record<string, string> => remoteEnv(s.baseUrl, KEY);

describe.concurrent('pets list --all', () => {
  it('follows every Link rel="next" over one TCP connection and streams ndjson in order', async () => {
    const server = await startServer({ pages: 5 });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: env(server) });
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

  it('uses --limit as the page size and keeps --status on the first request', async () => {
    const server = await startServer({ pages: 3 });
    const r = await runMain(['pets', 'list', '--all', '--limit', '7', '--status', 'sold'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(21);
    expect(r.stdout.split('\n')[0]).toBe('1\tpet-1-xx\t1\tavailable');
    expect(server.urls[0]).toBe('/v1/pets?limit=7&status=sold');
  });

  it('prints one JSON array for --output json, accumulated across pages', async () => {
    const server = await startServer({ pages: 4, perPage: 3 });
    const r = await runMain(['pets', 'list', '--all', '--json'], { env: env(server) });
    expect(r.code).toBe(0);
    const arr = JSON.parse(r.stdout) as { id: number }[];
    expect(arr.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(r.stderr).toBe('');
  });

  it('resolves a relative Link target against the request URL (RFC 8288 §3.1)', async () => {
    const server = await startServer({ pages: 3, perPage: 2, nextLink: (n) => `<pets?limit=2&page=${n}>; rel="next"` });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(server.urls).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=2&page=2', '/v1/pets?limit=2&page=3']);
  });

  it('finds rel="next" among several links and rel types', async () => {
    const server = await startServer({
      pages: 2,
      perPage: 2,
      nextLink: (n, _r, o) => `<${o}/v1/pets?page=1>; rel="first", <${o}/v1/pets?limit=2&page=${n}>; rel="last next"`,
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(server.urls).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=2&page=2']);
  });

  it('refuses a next link on another origin: exit 1, the key is not sent there', async () => {
    const other = await startServer({ pages: 1 });
    const server = await startServer({
      pages: 3,
      perPage: 2,
      nextLink: (n) => `<${other.origin}/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: env(server) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(other.origin);
    expect(r.stderr).toContain('not followed');
    expect(other.urls).toHaveLength(0);
    expect(server.urls).toHaveLength(1);
    // What was fetched before the refusal is on stdout; the exit code says it is incomplete.
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('treats another port on the same host as another origin', async () => {
    const server = await startServer({
      pages: 3,
      perPage: 1,
      nextLink: (n, _r, o) => `<${o.replace(/:\d+$/, ':1')}/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'list', '--all'], { env: env(server) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('http://127.0.0.1:1');
  });

  it('stops at --max-pages with exit 1 and a message, after printing what it fetched', async () => {
    const server = await startServer({ pages: 10, perPage: 2 });
    const r = await runMain(['pets', 'list', '--all', '--max-pages', '3', '--json'], { env: env(server) });
    expect(r.code).toBe(1);
    expect(server.urls).toHaveLength(3);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(6);
    const err = JSON.parse(r.stderr.trim()) as { code: string; message: string; status: number };
    expect(err.code).toBe('max_pages');
    expect(err.message).toContain('--max-pages 3');
    expect(err.status).toBe(0);
  });

  it('exits 0 when the last page arrives exactly at --max-pages', async () => {
    const server = await startServer({ pages: 3, perPage: 2 });
    const r = await runMain(['pets', 'list', '--all', '--max-pages', '3'], { env: env(server) });
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
    const server = await startServer({ pages: 2 });
    const r = await runMain(args, { env: env(server) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    expect(server.urls).toHaveLength(0);
  });

  it('without --all prints one page, even when the server links to more', async () => {
    const server = await startServer({ pages: 3 });
    const r = await runMain(['pets', 'list'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(20);
    expect(server.urls).toEqual(['/v1/pets']);
    // The "add --all" note is for people: not when stderr is piped.
    expect(r.stderr).toBe('');
  });

  it('warns, also when piped, that a full page without a Link header may hide more pets', async () => {
    const server = await startServer({ pages: 1 });
    const full = await runMain(['pets', 'list', '--limit', '20'], { env: env(server) });
    expect(full.code).toBe(0);
    expect(full.stdout.trimEnd().split('\n')).toHaveLength(20);
    expect(unwrapped(full.stderr)).toMatch(
      /^warning: the page is full \(20 pets\), so more may exist, but the server sent no Link rel="next" header/,
    );
    const all = await runMain(['pets', 'list', '--all', '--limit', '20'], { env: env(server) });
    expect(all.code).toBe(0);
    expect(all.stderr).toContain('the page is full (20 pets)');
  });

  it('gives no such warning when the page is not full, or after linked pages', async () => {
    const server = await startServer({ pages: 1, perPage: 5 });
    const r = await runMain(['pets', 'list'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const paged = await startServer({ pages: 2, perPage: 5 });
    const linked = await runMain(['pets', 'list', '--all', '--limit', '5'], { env: env(paged) });
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

const HEAP_PROBE = fileURLToPath(new URL('../helpers/heap-probe.cjs', import.meta.url));

/**
 * Runs the CLI with the heap probe preloaded; returns the peak heap it retained (bytes,
 * sampled after forced GCs) and the size of its stdout in bytes.
 */
function peakRetainedHeap(
  args: string[],
  e: Record<string, string>,
): Promise<{ code: number | null; heap: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    // --timeout 600: the command's one deadline (30 s by default) is not what is measured,
    // and a loaded machine with the probe's forced GCs can take longer than that.
    const child = spawn(process.execPath, [CLI, ...args, '--timeout', '600'], {
      env: { ...baseEnv(), ...e, NODE_OPTIONS: `--expose-gc --require ${HEAP_PROBE}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /PEAK_RETAINED_HEAP=(\d+)/.exec(err);
      if (m === null) {
        reject(new Error(`no heap figure in: ${err}`));
        return;
      }
      resolve({ code, heap: Number(m[1]), bytes });
    });
  });
}

describe('pets list --all memory', () => {
  it('stays flat for ndjson and json: 33 heavy pages retain no more heap than 3', async () => {
    // Retained heap (after forced GCs) rather than RSS: RSS follows V8's GC timing, which
    // differs between Node versions and machine load; what the program holds does not.
    // Pages of 100 pets with 4000-byte names (~400 KB each): the 33-page runs pass 30 pages
    // (~12 MB) more through the CLI than the 3-page run, three times the 4 MiB allowed, the
    // same proportion as 90 against 30 pages with 8 MiB, at a third of the bytes.
    const opts = { perPage: 100, nameLength: 4000 };
    const few = await startPagingServer({ pages: 3, ...opts });
    const many = await startPagingServer({ pages: 33, ...opts });
    try {
      // Separate processes measure separate heaps, so the three runs may overlap.
      const [a, b, j] = await Promise.all([
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'ndjson'], env(few)),
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'ndjson'], env(many)),
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'json'], env(many)),
      ]);
      const mib = (n: number): string => (n / 2 ** 20).toFixed(1);
      console.log(
        `peak retained heap MiB: 3 pages ndjson ${mib(a.heap)}, 33 pages ndjson ${mib(b.heap)}, 33 pages json ${mib(j.heap)}`,
      );
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(j.code).toBe(0);
      expect(b.bytes).toBeGreaterThan(33 * 100 * 4000);
      expect(j.bytes).toBeGreaterThan(b.bytes);
      // Two runs against this server (ndjson, json): one kept-alive connection each.
      expect(many.connections()).toBe(2);
      expect(many.urls).toHaveLength(66);
      // ~12 MB more passed through the 33-page runs; holding it would retain at least that.
      expect(b.heap - a.heap).toBeLessThan(4 * 2 ** 20);
      // json writes its one array element by element, so it stays flat as well.
      expect(j.heap - a.heap).toBeLessThan(4 * 2 ** 20);
    } finally {
      await few.close();
      await many.close();
    }
    // Heap, not speed: only a hang takes five minutes.
  }, 300_000);
});

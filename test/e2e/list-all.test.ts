/**
 * The memory of `pets list --all`: a process of its own (the built CLI with a heap probe
 * preloaded) whose retained heap stays flat however many pages pass through it, for ndjson
 * and json alike. What `--all` prints and sends is test/commands/pets/list.test.ts.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { startPagingServer } from '../helpers/paging-server.js';
import { baseEnv, CLI } from '../helpers/run-cli.js';
import { removeTempDirs } from '../helpers/temp-config.js';

const KEY = 'test-key-listall-0123456789';

afterAll(removeTempDirs);

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
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'ndjson'], remoteEnv(few.baseUrl, KEY)),
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'ndjson'], remoteEnv(many.baseUrl, KEY)),
        peakRetainedHeap(['pets', 'list', '--all', '--output', 'json'], remoteEnv(many.baseUrl, KEY)),
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

// The peak memory of `pets watch` over a large store, for bench/run.mjs: a loopback store of
// --pets pets (100,000) served in pages of 100 linked by `Link: rel="next"`, walked by
// `pets watch --interval 1 -o ndjson` (the first walk's pets printed as `added`, into a pipe
// this process reads) for --walks walks (5), with churn between walks: 100 pets added, 100
// changed and 100 removed, so every walk has events. The watch is ended with SIGINT as the
// walk after the last starts. Beside each watch run, `pets list --all -o ndjson` of the same
// store (its size at the start, no churn). Both run with bench/rss-probe.cjs preloaded, so
// each run's peak resident set (VmHWM) is read from /proc at its exit. Run by run the two
// alternate; reported: each side's median peak and the ratio watch / list.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runProcess } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const probe = join(root, 'bench', 'rss-probe.cjs');
const PAGE = 100;
const CHURN = 100;
const statuses = ['available', 'pending', 'sold'];

/** A paged store: `walk()` counts a walk (first page asked for) and changes the store before it (after the first). */
function pagedStore(size) {
  let pets = Array.from({ length: size }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: (i % 4) + 1,
    status: statuses[i % 3],
  }));
  let nextId = size + 1;
  return {
    reset() {
      pets = pets.slice(0, 0);
      for (let i = 0; i < size; i++)
        pets.push({ id: i + 1, name: `Pet ${i + 1}`, categoryId: (i % 4) + 1, status: statuses[i % 3] });
      nextId = size + 1;
    },
    churn(walk) {
      for (let k = 0; k < CHURN; k++) {
        const at = (walk * 997 + k * 101) % pets.length;
        pets[at] = { ...pets[at], status: statuses[(statuses.indexOf(pets[at].status) + 1) % 3] };
        pets.splice((at + 1) % pets.length, 1);
        pets.push({ id: nextId, name: `Pet ${nextId}`, categoryId: 1, status: 'available' });
        nextId++;
      }
    },
    page: (n) => pets.slice((n - 1) * PAGE, n * PAGE),
    get size() {
      return pets.length;
    },
  };
}

/**
 * Measures `runs` pairs of runs of `cli` (a bin/petstore.js) with `env` (PATH and the like):
 * `pets list --all` and `pets watch` of `walks` walks over a store of `pets` pets.
 * Resolves { pets, walks, runs, listPeakKiB, watchPeakKiB, listMedianMiB, watchMedianMiB,
 * ratio, events }; throws when a run fails or a probe reports nothing.
 */
export async function benchWatchMemory({ cli, env, pets = 100_000, walks = 5, runs = 3, log = () => {} }) {
  const store = pagedStore(pets);
  let walk = 0;
  let onWalk = () => undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const n = Number(url.searchParams.get('page') ?? '1');
    if (n === 1) {
      walk++;
      if (onWalk(walk) === 'over') {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"code":"unavailable","message":"the bench is over","status":503}');
        return;
      }
    }
    const headers = { 'content-type': 'application/json' };
    if (n * PAGE < store.size)
      headers.link = `<http://127.0.0.1:${server.address().port}/v1/pets?page=${n + 1}>; rel="next"`;
    res.writeHead(200, headers);
    res.end(JSON.stringify(store.page(n)));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const configDir = mkdtempSync(join(tmpdir(), 'petstore-bench-watch-memory-'));
  const runEnv = {
    ...env,
    PETSTORE_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    PETSTORE_API_KEY: 'bench-key-0123456789',
    PETSTORE_CONFIG_DIR: configDir,
  };
  const pages = ['--max-pages', '10000'];
  const listPeakKiB = [];
  const watchPeakKiB = [];
  const events = [];
  try {
    for (let i = 0; i < runs; i++) {
      store.reset();
      log(`pets watch memory ${i + 1}/${runs}: pets list --all`);
      onWalk = () => undefined;
      const list = [process.execPath, '--require', probe, cli, 'pets', 'list', '--all', '--limit', '100', ...pages];
      const listed = await runProcess([...list, '-o', 'ndjson'], runEnv, { rssProbe: true, quiet: true });
      if (listed.code !== 0 || listed.peakKiB === undefined)
        throw new Error(`pets list --all: exit ${listed.code}\n${listed.err}`);
      listPeakKiB.push(listed.peakKiB);
      log(`pets watch memory ${i + 1}/${runs}: pets watch, ${walks} walks`);
      const watched = await watchRun(
        cli,
        runEnv,
        pages,
        walks,
        (f) => {
          walk = 0;
          onWalk = f;
        },
        store,
      );
      watchPeakKiB.push(watched.peakKiB);
      events.push(watched.events);
    }
  } finally {
    server.close();
    rmSync(configDir, { recursive: true, force: true });
  }
  const listMedianMiB = median(listPeakKiB) / 1024;
  const watchMedianMiB = median(watchPeakKiB) / 1024;
  return {
    pets,
    walks,
    runs,
    churnPerWalk: { added: CHURN, changed: CHURN, removed: CHURN },
    listPeakKiB,
    watchPeakKiB,
    listMedianMiB,
    watchMedianMiB,
    ratio: watchMedianMiB / listMedianMiB,
    events,
  };
}

/** One watch of `walks` walks, ended with SIGINT as the next starts; resolves { peakKiB, events }. */
function watchRun(cli, env, pages, walks, setOnWalk, store) {
  const argv = ['--require', probe, cli, 'pets', 'watch', '--interval', '1', '-o', 'ndjson', ...pages];
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  setOnWalk((n) => {
    if (n > walks) {
      child.kill('SIGINT');
      return 'over';
    }
    if (n > 1) store.churn(n);
    return undefined;
  });
  let events = 0;
  let err = '';
  let peak = '';
  child.stdout.on('data', (d) => {
    for (const byte of d) if (byte === 10) events++;
  });
  child.stderr.on('data', (d) => (err += d));
  child.stdio[3].on('data', (d) => (peak += d));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const peakKiB = Number(peak.trim());
      if (code !== 130 || !(peakKiB > 0)) reject(new Error(`pets watch: exit ${code}\n${err}`));
      else resolve({ peakKiB, events });
    });
  });
}

// Memory of `pets watch` (docs/commands.md "pets watch": bounded by two copies of the store):
// the built CLI watches a loopback store of 10,000 pets (100 pages of 100, linked by
// `Link: rel="next"`) at the minimum interval (1 s) for 200 walks, printing NDJSON events
// into a pipe this script reads and counts. Between walks the store changes: one pet
// added, one changed, one removed per walk, so every walk has events to print. Reports the
// process's resident set (VmRSS) at walks 10, 50, 100, 150 and 200, its peak (VmHWM,
// through bench/rss-probe.cjs, read at exit after SIGINT), the events counted, and the
// wall time. Usage: `npm run build && node bench/watch.mjs [--walks N] [--pets N]`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const WALKS = arg('--walks', 200);
const PETS = arg('--pets', 10_000);
const PAGE = 100;
const statuses = ['available', 'pending', 'sold'];

/** The store: pets by position; each walk's changes are made when its first page is asked for. */
let pets = Array.from({ length: PETS }, (_, i) => ({
  id: i + 1,
  name: `Pet ${i + 1}`,
  categoryId: (i % 4) + 1,
  status: statuses[i % 3],
}));
let nextId = PETS + 1;
let walks = 0;
const samples = [];
let child;

/** The child's current resident set in KiB (VmRSS). */
function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : undefined;
}

function change(walk) {
  // One added, one changed, one removed: the store keeps its size.
  const at = walk % pets.length;
  pets[at] = { ...pets[at], status: statuses[(statuses.indexOf(pets[at].status) + 1) % 3] };
  pets.splice((at + 1) % pets.length, 1);
  pets.push({ id: nextId, name: `Pet ${nextId}`, categoryId: 1, status: 'available' });
  nextId++;
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const page = Number(url.searchParams.get('page') ?? '1');
  if (page === 1) {
    walks++;
    if ([10, 50, 100, 150, 200].includes(walks - 1)) samples.push([walks - 1, rssKiB(child.pid)]);
    if (walks > WALKS) {
      child.kill('SIGINT');
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"code":"unavailable","message":"the bench is over","status":503}');
      return;
    }
    if (walks > 1) change(walks);
  }
  const slice = pets.slice((page - 1) * PAGE, page * PAGE);
  const headers = { 'content-type': 'application/json' };
  if (page * PAGE < pets.length) {
    headers.link = `<http://127.0.0.1:${server.address().port}/v1/pets?limit=${PAGE}&page=${page + 1}>; rel="next"`;
  }
  res.writeHead(200, headers);
  res.end(JSON.stringify(slice));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

const configDir = mkdtempSync(join(tmpdir(), 'petstore-bench-watch-'));
const started = Date.now();
child = spawn(
  process.execPath,
  ['--require', `${root}bench/rss-probe.cjs`, `${root}bin/petstore.js`, 'pets', 'watch', '--interval', '1'],
  {
    env: {
      PATH: process.env.PATH,
      PETSTORE_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
      PETSTORE_API_KEY: 'bench-key-0123456789',
      PETSTORE_CONFIG_DIR: configDir,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  },
);
let events = 0;
let stderr = '';
let peak = '';
child.stdout.on('data', (d) => {
  for (const byte of d) if (byte === 10) events++;
});
child.stderr.on('data', (d) => (stderr += d));
child.stdio[3].on('data', (d) => (peak += d));
const code = await new Promise((resolve) => child.on('close', resolve));
server.close();
rmSync(configDir, { recursive: true, force: true });
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
console.log(
  `pets watch: ${WALKS} walks of a ${PETS.toLocaleString('en-US')}-pet store (${PETS / PAGE} pages each), --interval 1`,
);
console.log(
  `  wall time ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${code}, ${events.toLocaleString('en-US')} events`,
);
for (const [walk, kib] of samples) console.log(`  RSS after walk ${walk}: ${mib(kib)}`);
console.log(`  peak RSS (VmHWM): ${mib(Number(peak.trim()))}`);
if (stderr.trim() !== '') console.log(`  stderr: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);

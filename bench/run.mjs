#!/usr/bin/env node
// Start-up benchmark of the built CLI: every command runs as a whole process, many times,
// in alternating rounds (A B C ... A B C ...) so that drift of a shared machine hits all
// commands alike. Reports median, min and max wall time, peak RSS, and each median as a
// ratio to floors measured in the same run: bare `node -e 0`, a minimal node:http GET
// script (bench/floor-get.mjs), and the card floor (bench/card-floor.mjs: undici's
// `request` and zod, bundled, under --liftoff-only) for `pets list --json`. The libraries
// floor (bench/libraries-floor.mjs) is undici's Agent and zod bundled and loaded as petstore
// does, code cache included: the bound below which only dropping a library goes.
//
// petstore runs as installed: the checkout is packed and the tarball installed into a temp
// prefix (bench/prepare.mjs), and that copy's bin/petstore.js is what every petstore row
// runs. The standalone executable (dist-exe/petstore-<platform>, `npm run build:exe`) gets
// rows of its own when it is there.
//
// Usage: node bench/run.mjs [--runs N] [--warmup N] [--json] [--clean-env] [--only NAME,NAME] [--cli PATH]
//                           [--before PATH] [--exe PATH | --no-exe]
//                           [--store-runs N] [--bulk-records N] [--no-store] [--bulk-runs N] [--no-bulk]
//                           [--bulk-only] [--no-scale] [--scale-runs N] [--scale-seconds N]
//                           [--dry-run-records N] [--send-records N] [--sandbox-records N]
//                           [--no-mcp] [--mcp-calls N] [--no-watch-memory] [--watch-memory-runs N]
//   (also BENCH_RUNS, BENCH_WARMUP). Build first (`npm run bench` builds dist/ and the
//   executable). --cli PATH runs that shim instead of an installed copy.
//
// `pets list` also runs against a second bench server that answers each GET after 50 ms
// (a real network's round trip), `--json` and `--jq`: a read's request leaves while jq
// starts, so there `--jq` should cost little more than `--json`.
//
// After the start-up rounds, the sandbox data store is measured (bench/store.mjs): the rate
// of a bulk create of --bulk-records records (5,000) into a fresh sandbox, median of
// --store-runs runs (3; 12 with --before), and the time to take over the lock of a process killed with -9
// while holding it. `--no-store` skips it; with `--only`, it runs when the list names
// `sandbox store`.
//
// Then bulk input (bench/bulk.mjs): validating 40,000 records as a JSON array and as
// NDJSON (median of --bulk-runs runs, 3), and a 100 MB NDJSON file validated and sent
// (wall time, peak RSS). `--no-bulk` skips it; with `--only`, it runs when the list names
// `bulk input`.
//
// Last, bulk create at scale (bench/bulk.mjs `benchScale`): records/s at --concurrency 1, 4
// and 16, with a fresh connection per request and with kept-alive ones, against a server
// answering in 10-30 ms (--scale-runs rounds, 3; each run about --scale-seconds, 4); the
// sandbox at the default --concurrency against 1; the peak RSS of --dry-run-records
// (1,000,000) records checked and --send-records (200,000) sent. `--no-scale` skips it;
// with `--only`, it runs when the list names `bulk at scale`. `--bulk-only` runs the two
// bulk parts alone (no start-up rounds, no store).
//
// Then `petstore mcp` (bench/mcp.mjs): the median time a `list_pets` call takes through the
// server against the bench server, next to a plain GET of the same URL, over --mcp-calls
// calls (200) each; the difference is what the server adds per call. `--no-mcp` skips it;
// with `--only`, it runs when the list names `mcp list_pets`.
//
// Then the memory of `pets watch` (bench/watch-memory.mjs): 5 walks of a 100,000-pet paged
// store with churn, its peak RSS against `pets list --all` of the same store, median of
// --watch-memory-runs pairs (3); target: at most 1.5x. `--no-watch-memory` skips it; with
// `--only`, it runs when the list names `pets watch memory` (`--only 'pets watch memory'
// --runs 1 --warmup 0` runs little else).
//
// --before PATH compares with another build: PATH is its bin/petstore.js, the build before
// a change copied aside with its bin/ and dist/. Each part runs that build where it runs the
// current one, interleaved so a shared machine's drift hits both alike: `pets list --json`
// gets a row of its own in the start-up rounds (its ratio is to the current build's, and
// the current one's to it a target: at most 1.05x), and so does its `pets list --jq`
// (its ratio is to that build's own `--json`); the
// sandbox bulk create runs it beside each of the current build's --store-runs runs (current
// then before, then before then current, ...; each in a fresh config dir); bulk at scale
// runs it at --concurrency 1 and 16, both connection modes, next to the current build's run
// of the same level in each round, which goes first alternating (its sandbox and memory
// runs stay the current build's).
// Printed beside the current figures with the ratio current / before, in --json under
// `sandboxStore.bulk.before` and `bulkAtScale.before`, with targets: the sandbox bulk
// create's records/s, and each mode's ratio of --concurrency 16 to 1, at least 0.9x the
// before build's.
//
// Wall time: process.hrtime around spawn -> exit, measured in this process.
// Peak RSS: GNU time (`/usr/bin/time -f %M`, Debian package `time`) wraps each run when it
// is installed, so RSS comes from the kernel's rusage of the very run that was timed (the
// wrapper's own exec, about 1 ms, is in every command's time alike). Without it, Node
// commands get one extra run each with a preloaded probe (bench/rss-probe.cjs) that prints
// the process's VmHWM from /proc at exit; other commands show no RSS.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchBulk, benchScale } from './bulk.mjs';
import { benchMcp } from './mcp.mjs';
import { median } from './lib.mjs';
import { bundleCardFloor, bundleLibrariesFloor, installPacked } from './prepare.mjs';
import { benchStore } from './store.mjs';
import { benchWatchMemory } from './watch-memory.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const RUNS = Number(opt('--runs', process.env.BENCH_RUNS ?? 30));
const WARMUP = Number(opt('--warmup', process.env.BENCH_WARMUP ?? 3));
const JSON_OUT = flag('--json');
const ONLY = opt('--only', undefined)?.split(',');
// With --before, the sandbox bulk create is an A/B within 10%: three runs of a shared
// machine's 3-4 s each drift by more than that (0.81x one run, 0.95x over twelve), so more.
const STORE_RUNS = Number(opt('--store-runs', process.argv.includes('--before') ? 12 : 3));
const BULK_RECORDS = Number(opt('--bulk-records', 5000));
const STORE = !flag('--no-store') && (ONLY === undefined || ONLY.includes('sandbox store'));
const BULK_RUNS = Number(opt('--bulk-runs', 3));
const BULK_ONLY = flag('--bulk-only');
const BULK = !flag('--no-bulk') && (ONLY === undefined || ONLY.includes('bulk input'));
const SCALE = !flag('--no-scale') && (ONLY === undefined || ONLY.includes('bulk at scale'));
const SCALE_RUNS = Number(opt('--scale-runs', 3));
const SCALE_SECONDS = Number(opt('--scale-seconds', 4));
const DRY_RUN_RECORDS = Number(opt('--dry-run-records', 1_000_000));
const SEND_RECORDS = Number(opt('--send-records', 200_000));
const SANDBOX_RECORDS = Number(opt('--sandbox-records', 10_000));
const MCP = !flag('--no-mcp') && !flag('--bulk-only') && (ONLY === undefined || ONLY.includes('mcp list_pets'));
const MCP_CALLS = Number(opt('--mcp-calls', 200));
const WATCH_MEMORY =
  !flag('--no-watch-memory') && !BULK_ONLY && (ONLY === undefined || ONLY.includes('pets watch memory'));
const WATCH_MEMORY_RUNS = Number(opt('--watch-memory-runs', 3));
if (
  !Number.isInteger(RUNS) ||
  RUNS < 1 ||
  !Number.isInteger(WARMUP) ||
  WARMUP < 0 ||
  !Number.isInteger(STORE_RUNS) ||
  STORE_RUNS < 1 ||
  !Number.isInteger(BULK_RECORDS) ||
  BULK_RECORDS < 1 ||
  !Number.isInteger(BULK_RUNS) ||
  BULK_RUNS < 1 ||
  ![SCALE_RUNS, DRY_RUN_RECORDS, SEND_RECORDS, SANDBOX_RECORDS, MCP_CALLS, WATCH_MEMORY_RUNS].every(
    (n) => Number.isInteger(n) && n >= 1,
  ) ||
  !(SCALE_SECONDS > 0)
) {
  console.error(
    'usage: node bench/run.mjs [--runs N>=1] [--warmup N>=0] [--json] [--clean-env] [--only NAME,...] [--cli PATH] [--store-runs N>=1] [--bulk-records N>=1] [--no-store] [--bulk-runs N>=1] [--no-bulk] [--bulk-only] [--no-scale] [--scale-runs N>=1] [--scale-seconds S>0] [--dry-run-records N>=1] [--send-records N>=1] [--sandbox-records N>=1] [--no-mcp] [--mcp-calls N>=1] [--no-watch-memory] [--watch-memory-runs N>=1]',
  );
  process.exit(2);
}
if (!existsSync(join(root, 'dist', 'petstore.cjs'))) {
  console.error('dist/ is missing: run `npm run build` first (or `npm run bench`).');
  process.exit(2);
}
if (opt('--before', undefined) !== undefined && !existsSync(opt('--before', undefined))) {
  // Found out now, not minutes later when a bulk part (under --bulk-only, the first run) reaches it.
  console.error(`--before ${opt('--before', undefined)}: no such file (the bin/petstore.js of another build).`);
  process.exit(2);
}

/** The first executable named `name` on PATH, or undefined. */
function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir !== '' && existsSync(p)) return p;
  }
  return undefined;
}

// GNU time, if it is there and understands -f (busybox's may not).
const GNU_TIME =
  existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0
    ? '/usr/bin/time'
    : undefined;
const SCRIPT = which('script');

// --- the servers -------------------------------------------------------------------------
/** Starts bench/server.mjs with `args`; resolves the child and its port. */
async function startServer(args) {
  const child = spawn(process.execPath, [join(root, 'bench', 'server.mjs'), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const m = /PORT (\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  return { child, port };
}
const { child: server, port } = await startServer([]);
// The same answers after GET_DELAY_MS: a real network's round trip, which a read's request
// spends while --jq's worker starts.
const GET_DELAY_MS = 50;
const { child: slowServer, port: slowPort } = await startServer(['--get-delay-ms', String(GET_DELAY_MS)]);
const baseUrl = `http://127.0.0.1:${port}/v1`;
const slowBaseUrl = `http://127.0.0.1:${slowPort}/v1`;
const apiKey = 'bench_0123456789abcdef';

const configDir = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
const cleanup = () => {
  cleaned = true;
  for (const child of [server, slowServer]) {
    child.stdin.end();
    child.kill();
  }
  rmSync(configDir, { recursive: true, force: true });
};
let cleaned = false;
process.on('exit', () => {
  if (!cleaned) cleanup();
});
process.on('SIGINT', () => process.exit(130));

// The environment of every run: by default the caller's (what a command typed in this shell
// pays, e.g. NODE_EXTRA_CA_CERTS, which Node 20 reads at start-up), minus anything that
// changes petstore's behaviour (PETSTORE_*, colour, proxies). --clean-env keeps only PATH
// and LANG: the runtime's bare cost.
const CLEAN = flag('--clean-env');
const dropped = /^(PETSTORE_|NO_COLOR$|FORCE_COLOR$|CLICOLOR|TERM$|HTTPS?_PROXY$|NO_PROXY$|ALL_PROXY$)/i;
const baseEnv = CLEAN
  ? { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }
  : Object.fromEntries(Object.entries(process.env).filter(([k]) => !dropped.test(k)));
const cleanEnv = { ...baseEnv, HOME: configDir };
const nodeVars = Object.keys(baseEnv).filter((k) => k.startsWith('NODE_') || k === 'UV_THREADPOOL_SIZE');
const remoteEnv = { ...cleanEnv, PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: apiKey };
const slowEnv = { ...remoteEnv, PETSTORE_BASE_URL: slowBaseUrl };
const sandboxEnv = { ...cleanEnv, PETSTORE_CONFIG_DIR: configDir };
const node = process.execPath;
const nodeMajor = Number(process.versions.node.split('.')[0]);
// --cli PATH benchmarks another build's shim (e.g. an experiment in a copy of the repo);
// by default, petstore as a user installs it.
const cli = opt('--cli', undefined) ?? installPacked(root, configDir);
const cardFloor = await bundleCardFloor(root, configDir);
const librariesFloor = await bundleLibrariesFloor(root, configDir);
const defaultExe = join(root, 'dist-exe', `petstore-${process.platform}-${process.arch}`);
const exe = flag('--no-exe') ? undefined : opt('--exe', existsSync(defaultExe) ? defaultExe : undefined);
// --before PATH adds the same `pets list --json` run by another build's shim (an A/B in
// alternating rounds: the build before a change, copied aside with its bin/ and dist/), and
// that build's bulk figures beside the current ones (see the top of this file).
const before = opt('--before', undefined);

// --- the commands ------------------------------------------------------------------------
/** name, argv, env, floor it is compared with, target ratio (or undefined), note. */
const commands = [
  { name: 'node -e 0', argv: [node, '-e', '0'], env: cleanEnv, node: true },
  {
    name: 'floor GET (node:http)',
    argv: [node, join(root, 'bench', 'floor-get.mjs'), `${baseUrl}/pets`],
    env: remoteEnv,
    node: true,
  },
  {
    name: 'card floor (undici + zod)',
    argv: [node, '--liftoff-only', cardFloor, `${baseUrl}/pets`],
    env: remoteEnv,
    node: true,
  },
  {
    // undici's Agent and zod as petstore bundles and loads them (bench/libraries-floor.mjs):
    // what `pets list --json` costs before any of petstore's own code.
    name: 'libraries floor (undici + zod with code cache)',
    argv: [node, join(root, 'bench', 'cached-script.cjs'), librariesFloor, `${baseUrl}/pets`],
    env: remoteEnv,
    floor: 'floor GET (node:http)',
    node: true,
  },
  {
    name: 'petstore --version',
    argv: [node, cli, '--version'],
    env: cleanEnv,
    floor: 'node -e 0',
    target: 1.15,
    node: true,
  },
  { name: 'petstore --help', argv: [node, cli, '--help'], env: cleanEnv, floor: 'node -e 0', target: 1.15, node: true },
  {
    name: 'pets list --json',
    argv: [node, cli, 'pets', 'list', '--json'],
    env: remoteEnv,
    floor: 'card floor (undici + zod)',
    // The card's target is for the machine's Node 20; on another Node the ratio is shown.
    target: nodeMajor === 20 ? 0.95 : undefined,
    also: [{ floor: 'floor GET (node:http)', target: 1.5, aim: 1.3 }],
    node: true,
  },
  {
    // The first --jq of a run: jq's worker thread and WebAssembly load on top of pets list.
    name: 'pets list --jq .[].name',
    argv: [node, cli, 'pets', 'list', '--jq', '.[].name'],
    env: remoteEnv,
    floor: 'pets list --json',
    target: 1.4,
    node: true,
  },
  {
    name: `pets list --json (server +${GET_DELAY_MS} ms)`,
    argv: [node, cli, 'pets', 'list', '--json'],
    env: slowEnv,
    node: true,
  },
  {
    // Over a real network the request's round trip hides jq's start: a read does not wait for it.
    name: `pets list --jq .[].name (server +${GET_DELAY_MS} ms)`,
    argv: [node, cli, 'pets', 'list', '--jq', '.[].name'],
    env: slowEnv,
    floor: `pets list --json (server +${GET_DELAY_MS} ms)`,
    target: 1.1,
    node: true,
  },
  {
    name: 'pets list (piped: tsv)',
    argv: [node, cli, 'pets', 'list'],
    env: remoteEnv,
    floor: 'floor GET (node:http)',
    node: true,
  },
  {
    name: 'pets create',
    argv: [node, cli, 'pets', 'create', '--name', 'X', '--category-id', '1'],
    env: remoteEnv,
    floor: 'floor GET (node:http)',
    node: true,
  },
  {
    name: '--env sandbox pets list --json',
    argv: [node, cli, '--env', 'sandbox', 'pets', 'list', '--json'],
    env: sandboxEnv,
    floor: 'floor GET (node:http)',
    target: 1.8,
    node: true,
  },
];
if (before !== undefined) {
  // A code cache of its own: the shim keeps one cache per Node version, so two builds
  // sharing a folder would each find the other's, compile without one and replace it.
  const beforeEnv = { ...remoteEnv, XDG_CACHE_HOME: join(configDir, 'before-cache') };
  commands.push({
    name: 'pets list --json (--before build)',
    argv: [node, before, 'pets', 'list', '--json'],
    env: beforeEnv,
    floor: 'pets list --json',
    node: true,
  });
  commands.push({
    name: 'pets list --jq .[].name (--before build)',
    argv: [node, before, 'pets', 'list', '--jq', '.[].name'],
    env: beforeEnv,
    floor: 'pets list --json (--before build)',
    node: true,
  });
}
const notes = [];
if (nodeMajor !== 20)
  notes.push(`the card floor target (0.95x) is set for Node 20; this is Node ${process.versions.node}.`);
if (exe !== undefined) {
  commands.push(
    { name: 'executable --version', argv: [exe, '--version'], env: cleanEnv, floor: 'node -e 0' },
    {
      name: 'executable pets list --json',
      argv: [exe, 'pets', 'list', '--json'],
      env: remoteEnv,
      floor: 'card floor (undici + zod)',
      target: 0.85,
      also: [{ floor: 'floor GET (node:http)', target: 1.15 }],
    },
    {
      name: 'executable pets list --jq .[].name',
      argv: [exe, 'pets', 'list', '--jq', '.[].name'],
      env: remoteEnv,
      floor: 'executable pets list --json',
      target: 1.4,
    },
  );
} else notes.push('no standalone executable (npm run build:exe): its rows are left out.');
if (SCRIPT !== undefined) {
  // A pseudo-terminal via util-linux `script`, so stdout is a TTY and the table renders.
  // The pty wrapper costs a few ms of its own; its floor is `node -e 0` run the same way.
  const inPty = (argv) => [SCRIPT, '-qefc', argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' '), '/dev/null'];
  commands.push(
    { name: 'pty: node -e 0', argv: inPty([node, '-e', '0']), env: { ...cleanEnv, TERM: 'xterm' } },
    {
      name: 'pty: pets list (table)',
      argv: inPty([node, cli, 'pets', 'list']),
      env: { ...remoteEnv, TERM: 'xterm' },
      floor: 'pty: node -e 0',
    },
  );
} else {
  notes.push(
    'util-linux `script` not found: the TTY table path is not measured (piped `pets list` prints the tab-separated form).',
  );
}
const curl = which('curl');
if (curl !== undefined) {
  commands.push({
    name: 'curl GET',
    argv: [curl, '-s', '-H', `Authorization: Bearer ${apiKey}`, `${baseUrl}/pets`],
    env: cleanEnv,
    floor: 'floor GET (node:http)',
  });
} else notes.push('curl not installed: skipped.');
const httpie = which('http');
if (httpie !== undefined) {
  commands.push({
    name: 'httpie GET',
    argv: [httpie, '--ignore-stdin', `${baseUrl}/pets`, `Authorization:Bearer ${apiKey}`],
    env: cleanEnv,
    floor: 'floor GET (node:http)',
  });
} else notes.push('httpie (`http`) not installed: skipped; the "faster than httpie" target cannot be checked.');

const selected = BULK_ONLY
  ? []
  : ONLY === undefined
    ? commands
    : commands.filter(
        (c) =>
          ONLY.includes(c.name) ||
          c.floor === undefined ||
          commands.some((d) => ONLY.includes(d.name) && d.floor === c.name),
      );

// --- running -----------------------------------------------------------------------------
/** Runs argv once; resolves { ms, rssKiB, code }. Output is read and dropped. */
function runOnce(c, wrap = true) {
  const argv = wrap && GNU_TIME !== undefined ? [GNU_TIME, '-f', 'bench-maxrss-kib %M', ...c.argv] : c.argv;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { env: c.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let fd3 = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdio[3].on('data', (d) => (fd3 += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // GNU time appends its line to stderr; the probe writes to fd 3.
      const m = /bench-maxrss-kib (\d+)\s*$/.exec(err);
      if (m !== null) err = err.slice(0, m.index);
      const rss = m !== null ? Number(m[1]) : Number.parseInt(fd3.trim(), 10);
      resolve({ ms, rssKiB: Number.isFinite(rss) ? rss : undefined, code, out, err });
    });
  });
}

// A first run of each: it must succeed, and it seeds the sandbox data file.
for (const c of selected) {
  const r = await runOnce(c, false);
  if (r.code !== 0) {
    console.error(`${c.name}: exit ${r.code}\n${r.err}`);
    process.exit(1);
  }
}
const samples = new Map(selected.map((c) => [c.name, { ms: [], rss: [] }]));
for (let round = 0; round < WARMUP + RUNS; round++) {
  for (const c of selected) {
    const r = await runOnce(c);
    if (r.code !== 0) {
      console.error(`${c.name}: exit ${r.code} in round ${round}\n${r.err}`);
      process.exit(1);
    }
    if (round < WARMUP) continue;
    samples.get(c.name).ms.push(r.ms);
    if (r.rssKiB !== undefined) samples.get(c.name).rss.push(r.rssKiB);
  }
  if (!JSON_OUT && process.stderr.isTTY) process.stderr.write(`\rround ${round + 1}/${WARMUP + RUNS}`);
}
if (!JSON_OUT && process.stderr.isTTY) process.stderr.write('\r\x1b[K');

let rssMethod = GNU_TIME !== undefined ? 'GNU time %M (maxrss of the timed run)' : 'none';
if (GNU_TIME === undefined && process.platform === 'linux') {
  // Fallback: one probed run per Node command, VmHWM read at exit.
  rssMethod = 'VmHWM from /proc at exit, via a preloaded probe (Node commands only)';
  const probe = join(root, 'bench', 'rss-probe.cjs');
  for (const c of selected.filter((c) => c.node)) {
    for (let i = 0; i < 3; i++) {
      const r = await runOnce({ ...c, argv: [c.argv[0], '--require', probe, ...c.argv.slice(1)] }, false);
      if (r.rssKiB !== undefined) samples.get(c.name).rss.push(r.rssKiB);
    }
  }
}

// --- report ------------------------------------------------------------------------------
const stats = new Map();
for (const c of selected) {
  const { ms, rss } = samples.get(c.name);
  stats.set(c.name, {
    medianMs: median(ms),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    rssMiB: rss.length > 0 ? median(rss) / 1024 : undefined,
  });
}
const round3 = (x) => (x === undefined ? undefined : Math.round(x * 1000) / 1000);
const rows = selected.map((c) => {
  const s = stats.get(c.name);
  const f = c.floor === undefined ? undefined : stats.get(c.floor);
  return {
    name: c.name,
    argv: c.argv.map((a) => a.replace(root, '').replace(node, 'node')),
    medianMs: round3(s.medianMs),
    minMs: round3(s.minMs),
    maxMs: round3(s.maxMs),
    peakRssMiB: round3(s.rssMiB),
    floor: c.floor,
    ratio: f === undefined ? undefined : round3(s.medianMs / f.medianMs),
    // Median of the round-by-round ratios (each run against the floor run of its own
    // round): less sensitive to a machine that slows down for a while.
    pairedRatio:
      f === undefined
        ? undefined
        : round3(median(samples.get(c.name).ms.map((ms, i) => ms / samples.get(c.floor).ms[i]))),
    target: c.target,
  };
});
const nodeFloor = stats.get('node -e 0');
const petstoreRows = rows.filter(
  (r) =>
    r.name.startsWith('petstore') ||
    r.name.startsWith('pets') ||
    r.name.startsWith('--env') ||
    r.name.startsWith('executable'),
);
const httpieStats = stats.get('httpie GET');
const listRss = stats.get('pets list (piped: tsv)')?.rssMiB;
const targets = [];
const addTarget = (what, value, limit, extra = {}) =>
  targets.push({
    target: what,
    value: round3(value),
    limit,
    met: value === undefined ? null : value <= limit,
    ...extra,
  });
for (const r of rows) {
  if (r.target !== undefined && r.ratio !== undefined)
    addTarget(`${r.name} <= ${r.target}x ${r.floor}`, r.ratio, r.target);
  for (const extra of selected.find((c) => c.name === r.name)?.also ?? []) {
    const f = stats.get(extra.floor);
    if (f === undefined) continue;
    const libraries = stats.get('libraries floor (undici + zod with code cache)');
    addTarget(`${r.name} <= ${extra.target}x ${extra.floor}`, stats.get(r.name).medianMs / f.medianMs, extra.target, {
      aim: extra.aim,
      // What undici + zod cost on their own, loaded as petstore loads them: below it only by
      // dropping a library the card keeps.
      bound: libraries === undefined ? undefined : libraries.medianMs / f.medianMs,
      boundOf: 'the libraries floor',
    });
  }
}
const beforeList = stats.get('pets list --json (--before build)');
if (beforeList !== undefined)
  // A change must not slow what every script runs: the current build's median over the one before's.
  addTarget(
    'pets list --json, current / --before build <= 1.05',
    stats.get('pets list --json').medianMs / beforeList.medianMs,
    1.05,
  );
if (listRss !== undefined && nodeFloor?.rssMiB !== undefined)
  addTarget('peak RSS of pets list <= 1.3x node -e 0', listRss / nodeFloor.rssMiB, 1.3, {
    bound:
      stats.get('card floor (undici + zod)')?.rssMiB === undefined
        ? undefined
        : stats.get('card floor (undici + zod)').rssMiB / nodeFloor.rssMiB,
  });
for (const r of petstoreRows) {
  if (httpieStats === undefined && httpie !== undefined) continue; // left out by --only
  if (httpieStats === undefined)
    targets.push({
      target: `${r.name} faster than httpie GET`,
      value: null,
      limit: 1,
      met: null,
      note: 'httpie not installed',
    });
  else
    addTarget(
      `${r.name} faster than httpie GET (ratio to httpie)`,
      stats.get(r.name).medianMs / httpieStats.medianMs,
      1,
    );
}
// --- the sandbox data store -----------------------------------------------------------
let store;
if (STORE && !BULK_ONLY) {
  const progress =
    !JSON_OUT && process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[K${line}`) : () => undefined;
  store = await benchStore({
    cli,
    env: cleanEnv,
    records: BULK_RECORDS,
    runs: STORE_RUNS,
    lockRuns: Math.max(5, STORE_RUNS),
    before,
    log: progress,
  });
  progress('');
  targets.push({
    target: `sandbox bulk create of ${BULK_RECORDS} records >= 500 records/s`,
    value: round3(store.bulk.recordsPerSecond),
    limit: 500,
    met: store.bulk.recordsPerSecond >= 500,
    unit: 'records/s',
  });
  if (store.bulk.before !== undefined)
    targets.push({
      target: 'sandbox bulk create records/s within 10% of the --before build (current / before >= 0.9)',
      value: round3(store.bulk.before.currentToBefore),
      limit: 0.9,
      met: store.bulk.before.currentToBefore >= 0.9,
      higherIsBetter: true,
    });
  targets.push({
    target: 'stale lock after kill -9 taken over in < 2000 ms (slowest run)',
    value: round3(store.staleLock.takeoverMaxMs),
    limit: 2000,
    met: store.staleLock.takeoverMaxMs < 2000,
    unit: 'ms',
  });
}

// --- bulk input ------------------------------------------------------------------------
let bulk;
if (BULK) {
  const progress =
    !JSON_OUT && process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[K${line}`) : () => undefined;
  bulk = await benchBulk({ cli, env: cleanEnv, runs: BULK_RUNS, log: progress });
  progress('');
  for (const format of ['json', 'ndjson']) {
    const v = bulk.validation[format];
    targets.push({
      target: `validating ${v.records} records (${format === 'json' ? 'JSON array' : 'NDJSON'}), whole process < 1000 ms`,
      value: round3(v.medianMs),
      limit: 1000,
      met: v.medianMs < 1000,
      unit: 'ms',
    });
  }
  targets.push({
    target: `${bulk.large.mebibytes.toFixed(0)} MiB NDJSON validated and sent: peak RSS < 200 MiB`,
    value: bulk.large.peakRssMiB === undefined ? null : round3(bulk.large.peakRssMiB),
    limit: 200,
    met: bulk.large.peakRssMiB === undefined ? null : bulk.large.peakRssMiB < 200,
    unit: 'MiB',
    note: 'no RSS probe',
  });
}

// --- bulk create at scale ---------------------------------------------------------------
let scale;
if (SCALE) {
  const progress =
    !JSON_OUT && process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[K${line}`) : () => undefined;
  scale = await benchScale({
    cli,
    env: cleanEnv,
    runs: SCALE_RUNS,
    seconds: SCALE_SECONDS,
    dryRunRecords: DRY_RUN_RECORDS,
    sendRecords: SEND_RECORDS,
    sandboxRecords: SANDBOX_RECORDS,
    before,
    log: progress,
  });
  progress('');
  const modeWords = (mode) => (mode === 'fresh' ? 'a fresh connection per request' : 'kept-alive connections');
  for (const mode of ['fresh', 'keep-alive']) {
    const r16 = scale.rates[mode][16];
    targets.push({
      target: `--concurrency 16 >= 10x the records/s of --concurrency 1 (${modeWords(mode)}, server 10-30 ms)`,
      value: round3(r16.ratioTo1),
      limit: 10,
      met: r16.ratioTo1 >= 10,
      higherIsBetter: true,
    });
  }
  for (const mode of scale.before === undefined ? [] : ['fresh', 'keep-alive']) {
    const kept = scale.before.ratioTo1CurrentToBefore[mode];
    targets.push({
      target: `--concurrency 16 vs 1 ratio within 10% of the --before build (${modeWords(mode)}; current ratio / before ratio >= 0.9)`,
      value: round3(kept),
      limit: 0.9,
      met: kept >= 0.9,
      higherIsBetter: true,
    });
  }
  targets.push({
    target: `sandbox: the default --concurrency at least as fast as 1 (${scale.sandbox.records} records)`,
    value: round3(scale.sandbox.ratio),
    limit: 1,
    met: scale.sandbox.ratio >= 1,
    higherIsBetter: true,
  });
  const { dryRun, sent } = scale.memory;
  for (const [what, m] of [
    [`${dryRun.records.toLocaleString('en-US')} NDJSON records checked (--dry-run): peak RSS < 200 MiB`, dryRun],
    [`${sent.records.toLocaleString('en-US')} records sent at --concurrency 16: peak RSS < 200 MiB`, sent],
  ]) {
    targets.push({
      target: what,
      value: m.peakRssMiB === undefined ? null : round3(m.peakRssMiB),
      limit: 200,
      met: m.peakRssMiB === undefined ? null : m.peakRssMiB < 200,
      unit: 'MiB',
      note: 'no RSS probe',
    });
  }
}

// --- petstore mcp ----------------------------------------------------------------------
let mcp;
if (MCP) {
  mcp = await benchMcp({ cli, env: remoteEnv, baseUrl, apiKey, calls: MCP_CALLS });
  notes.push(
    `mcp list_pets: median ${mcp.mcpMedianMs.toFixed(2)} ms a call vs ${mcp.getMedianMs.toFixed(2)} ms for a plain GET of the same URL (${mcp.calls} calls each): the server adds ${mcp.overheadMs.toFixed(2)} ms a call.`,
  );
}

// --- pets watch memory --------------------------------------------------------------------
let watchMemory;
if (WATCH_MEMORY) {
  const progress =
    !JSON_OUT && process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[K${line}`) : () => undefined;
  watchMemory = await benchWatchMemory({ cli, env: cleanEnv, runs: WATCH_MEMORY_RUNS, log: progress });
  progress('');
  targets.push({
    target: `pets watch, ${watchMemory.walks} walks of a ${watchMemory.pets.toLocaleString('en-US')}-pet store: peak RSS <= 1.5x pets list --all of it`,
    value: round3(watchMemory.ratio),
    limit: 1.5,
    met: watchMemory.ratio <= 1.5,
  });
}

const cpu = cpus();
const doc = {
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  machine: { cpu: cpu[0]?.model ?? 'unknown', cores: cpu.length },
  runs: RUNS,
  warmup: WARMUP,
  wallTime: 'process.hrtime around spawn -> exit, in the bench process',
  environment: CLEAN ? 'clean (PATH, LANG, HOME only)' : 'inherited, minus PETSTORE_*, colour and proxy variables',
  nodeVariables: nodeVars,
  petstore: opt('--cli', undefined) === undefined ? 'installed from the packed tarball' : cli,
  before,
  executable: exe,
  rss: rssMethod,
  commands: rows,
  sandboxStore: store,
  bulkInput: bulk,
  bulkAtScale: scale,
  mcp,
  watchMemory,
  targets,
  notes,
};

if (JSON_OUT) {
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
} else {
  const fmt = (x, d = 1) => (x === undefined ? '-' : x.toFixed(d));
  const table = [['command', 'median ms', 'min ms', 'max ms', 'RSS MiB', 'ratio', 'paired', 'vs']];
  for (const r of rows) {
    table.push([
      r.name,
      fmt(r.medianMs),
      fmt(r.minMs),
      fmt(r.maxMs),
      fmt(r.peakRssMiB),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
      r.pairedRatio === undefined ? '' : `${r.pairedRatio.toFixed(2)}x`,
      r.floor ?? '',
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row) =>
    row
      .map((cell, i) => (i === 0 || i === 7 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(
    BULK_ONLY
      ? `petstore bench, bulk parts only: Node ${doc.node}, ${doc.machine.cpu}, ${doc.machine.cores} cores`
      : `petstore start-up bench: Node ${doc.node}, ${doc.machine.cpu}, ${doc.machine.cores} cores; ${RUNS} runs after ${WARMUP} warm-ups, in rounds`,
  );
  console.log(`wall: ${doc.wallTime}; RSS: ${rssMethod}`);
  console.log(`environment: ${doc.environment}${nodeVars.length > 0 ? ` (with ${nodeVars.join(', ')})` : ''}\n`);
  if (rows.length > 0) {
    console.log(line(table[0]));
    for (const row of table.slice(1)) console.log(line(row));
    console.log("\nratio: median / the floor's median; paired: median of each run / the floor run of its round.");
  }
  console.log('targets (ratios are of medians):');
  for (const t of targets) {
    const verdict = t.met === null ? 'n/a ' : t.met ? 'met ' : 'MISS';
    const shown =
      t.unit === undefined ? `${t.value?.toFixed(2)}x` : `${t.value?.toFixed(t.unit === 'ms' ? 1 : 0)} ${t.unit}`;
    console.log(
      `  ${verdict}  ${t.target}: ${t.value === null ? (t.note ?? '-') : shown}${t.aim !== undefined ? ` (aim ${t.aim}x)` : ''}${t.bound !== undefined ? `; ${t.boundOf ?? 'the card floor'} itself: ${t.bound.toFixed(2)}x` : ''}`,
    );
  }
  if (store !== undefined) {
    const { bulk, staleLock } = store;
    const secs = bulk.wallMs.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    console.log(`\nsandbox store (--env sandbox, a fresh store each run):`);
    console.log(
      `  bulk create of ${bulk.records} records (--from-file, one process): ${bulk.recordsPerSecond.toFixed(0)} records/s (median of ${bulk.runs} runs: ${secs} s)`,
    );
    if (bulk.before !== undefined) {
      const b = bulk.before;
      const beforeSecs = b.wallMs.map((ms) => (ms / 1000).toFixed(2)).join(', ');
      console.log(
        `  before: ${b.recordsPerSecond.toFixed(0)} records/s (the --before build, run by run beside the current one, which goes first alternating: ${beforeSecs} s); current / before ${b.currentToBefore.toFixed(2)}x`,
      );
    }
    console.log(
      `  stale lock after kill -9: taken over in ${staleLock.takeoverMedianMs.toFixed(1)} ms median, ${staleLock.takeoverMaxMs.toFixed(1)} ms slowest (${staleLock.runs} runs)`,
    );
    console.log(
      `  pets create right after the kill: ${staleLock.createAfterKillMedianMs.toFixed(0)} ms median; with no stale lock: ${staleLock.createMedianMs.toFixed(0)} ms`,
    );
  }
  if (bulk !== undefined) {
    const { validation, large } = bulk;
    console.log(`\nbulk input (pets create --from-file; nothing sent when a record is invalid):`);
    for (const [format, v] of Object.entries(validation)) {
      console.log(
        `  ${v.records} records + 1 invalid, ${format === 'json' ? 'JSON array' : 'NDJSON'}: ${v.medianMs.toFixed(0)} ms median (${v.minMs.toFixed(0)}-${v.maxMs.toFixed(0)}) for the whole process`,
      );
    }
    console.log(
      `  ${large.mebibytes.toFixed(0)} MiB NDJSON (${large.records} records) validated and sent: ${(large.wallMs / 1000).toFixed(1)} s, peak RSS ${large.peakRssMiB === undefined ? '-' : `${large.peakRssMiB.toFixed(0)} MiB`}`,
    );
  }
  if (scale !== undefined) printScale(scale);
  if (watchMemory !== undefined) {
    const w = watchMemory;
    const mib = (kib) => (kib / 1024).toFixed(0);
    console.log(
      `\npets watch memory (${w.pets.toLocaleString('en-US')} pets in pages of 100, ${w.walks} walks, ${w.churnPerWalk.added} pets added, changed and removed between walks; median of ${w.runs} runs):`,
    );
    console.log(`  pets list --all: peak RSS ${w.listMedianMiB.toFixed(0)} MiB (${w.listPeakKiB.map(mib).join(', ')})`);
    console.log(
      `  pets watch: peak RSS ${w.watchMedianMiB.toFixed(0)} MiB (${w.watchPeakKiB.map(mib).join(', ')}), ${w.ratio.toFixed(2)}x; ${w.events[0]} events a run`,
    );
  }
  for (const n of notes) console.log(`note: ${n}`);
}
cleanup();
process.exit(0);

/** Prints bulk create at scale: the rates side by side, the ratios, the sandbox, the memory runs. */
function printScale({ runs, rates, before: b, sandbox, memory }) {
  const f0 = (x) => Math.round(x).toLocaleString('en-US');
  console.log(
    `\nbulk create at scale (pets create --from-file; server answering each POST in 10-30 ms; median of ${runs} rounds):`,
  );
  const head = ['--concurrency', 'fresh connections', 'ratio', 'kept alive', 'ratio', 'server saw in flight'];
  const table = [head];
  for (const level of [1, 4, 16]) {
    const a = rates.fresh[level];
    const k = rates['keep-alive'][level];
    table.push([
      String(level),
      `${f0(a.recordsPerSecond)} records/s`,
      `${a.ratioTo1.toFixed(1)}x`,
      `${f0(k.recordsPerSecond)} records/s`,
      `${k.ratioTo1.toFixed(1)}x`,
      `${a.maxInFlight} / ${k.maxInFlight}`,
    ]);
  }
  const widths = head.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table)
    console.log(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`);
  console.log(
    `  kept alive / fresh at 16: ${(rates['keep-alive'][16].recordsPerSecond / rates.fresh[16].recordsPerSecond).toFixed(2)}x`,
  );
  if (b !== undefined) printScaleBefore(rates, b);
  console.log(
    `  sandbox, ${sandbox.records} records: --concurrency 1 ${f0(sandbox.oneInFlight)} records/s, the default ${f0(sandbox.default)} records/s (${sandbox.ratio.toFixed(2)}x)`,
  );
  const mem = (m) => (m.peakRssMiB === undefined ? '-' : `${m.peakRssMiB.toFixed(0)} MiB`);
  console.log(
    `  ${memory.dryRun.records.toLocaleString('en-US')} records checked (--dry-run): ${(memory.dryRun.wallMs / 1000).toFixed(1)} s, peak RSS ${mem(memory.dryRun)}`,
  );
  console.log(
    `  ${memory.sent.records.toLocaleString('en-US')} records sent at --concurrency 16 (server answering at once): ${(memory.sent.wallMs / 1000).toFixed(1)} s, peak RSS ${mem(memory.sent)}`,
  );
}

/** Prints the --before build's rates at scale beside the current build's, and the ratios current / before. */
function printScaleBefore(rates, b) {
  const f0 = (x) => Math.round(x).toLocaleString('en-US');
  console.log(
    `  --before build, each run next to the current one's of the same level and mode (which goes first alternates):`,
  );
  const head = ['--concurrency', 'fresh connections', 'current / before', 'kept alive', 'current / before'];
  const table = [head];
  for (const level of [1, 16]) {
    const a = b.rates.fresh[level];
    const k = b.rates['keep-alive'][level];
    table.push([
      String(level),
      `${f0(a.recordsPerSecond)} records/s`,
      `${a.currentToBefore.toFixed(2)}x`,
      `${f0(k.recordsPerSecond)} records/s`,
      `${k.currentToBefore.toFixed(2)}x`,
    ]);
  }
  // The figure a change to bulk create must keep: each build's ratio of 16 to 1.
  const ratio = (mode) => `${b.rates[mode][16].ratioTo1.toFixed(1)}x (current ${rates[mode][16].ratioTo1.toFixed(1)}x)`;
  table.push([
    '16 / 1',
    ratio('fresh'),
    `${b.ratioTo1CurrentToBefore.fresh.toFixed(2)}x`,
    ratio('keep-alive'),
    `${b.ratioTo1CurrentToBefore['keep-alive'].toFixed(2)}x`,
  ]);
  const widths = head.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table)
    console.log(`    ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`);
}

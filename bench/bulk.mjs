// Bulk input figures, for bench/run.mjs (`pets create --from-file`):
// - validation: a file of 40,000 valid records and one invalid record at its end, as a JSON
//   array and as NDJSON. Every record is read and checked, nothing is sent (exit 2), so the
//   whole process's wall time is start-up plus validation. Median of `runs` runs.
// - a 100 MB NDJSON file (records with 4 KiB names) validated and sent to bench/server.mjs
//   (constant answers, so only the client is measured): wall time and the process's peak
//   RSS (VmHWM, through bench/rss-probe.cjs).
// And, for bulk create at scale (`benchScale`):
// - requests in flight: records/s at --concurrency 1, 4 and 16, each with a fresh
//   connection per request (the default) and with kept-alive connections
//   (PETSTORE_BULK_CONNECTIONS=keep-alive), against bench/server.mjs answering each POST
//   after 10-30 ms (so answers come back out of order), in alternating rounds; the ratios
//   to --concurrency 1. Given `before` (another build's shim), that build runs at
//   --concurrency 1 and 16 in both modes too, each run next to the current build's of
//   the same level and mode, so both builds' ratios 16/1 come from the same rounds;
// - into the embedded sandbox: the default --concurrency against 1, in the same rounds;
// - memory: a 1,000,000-record NDJSON file checked (--dry-run, every record printed) and
//   200,000 records sent at --concurrency 16 to the server answering at once, each with its
//   peak RSS.
import { spawn } from 'node:child_process';
import { median, runProcess } from './lib.mjs';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Writes `count` records made by `line(i)` to `file`, in blocks (never the whole file in memory). */
function writeRecords(file, count, line, { array = false } = {}) {
  const fd = openSync(file, 'w');
  let block = array ? '[\n' : '';
  for (let i = 0; i < count; i++) {
    block += array ? `${i === 0 ? '' : ',\n'}${line(i)}` : `${line(i)}\n`;
    if (block.length > 1 << 20) {
      writeSync(fd, block);
      block = '';
    }
  }
  writeSync(fd, array ? `${block}\n]\n` : block);
  closeSync(fd);
}

/**
 * Starts bench/server.mjs with `args`; resolves { baseUrl, stop, maxInFlight }, where
 * maxInFlight() resolves the most POSTs it held at once since the last call (`--delay-ms`).
 */
function startServer(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bench', 'server.mjs'), ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    const waiting = [];
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      buffered += d;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const port = /^PORT (\d+)/.exec(line)?.[1];
        if (port !== undefined) {
          resolve({
            baseUrl: `http://127.0.0.1:${port}/v1`,
            stop: () => child.stdin.end(),
            maxInFlight: () =>
              new Promise((r) => {
                waiting.push(r);
                child.stdin.write('stats\n');
              }),
          });
        }
        const most = /^MAX_IN_FLIGHT (\d+)/.exec(line)?.[1];
        if (most !== undefined) waiting.shift()?.(Number(most));
      }
    });
  });
}

/**
 * Measures validation of 40,000 records in each format and a 100 MB NDJSON bulk create.
 * @param {{cli: string, env: NodeJS.ProcessEnv, runs: number, log: (line: string) => void}} opts
 */
export async function benchBulk({ cli, env, runs, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-bulk-'));
  const probe = join(root, 'bench', 'rss-probe.cjs');
  const server = await startServer();
  const runEnv = {
    ...env,
    PETSTORE_CONFIG_DIR: dir,
    PETSTORE_BASE_URL: server.baseUrl,
    PETSTORE_API_KEY: 'bench-key-0123456789',
  };
  try {
    const records = 40_000;
    const good = (i) => `{"name":"Pet ${i}","categoryId":${(i % 7) + 1},"status":"available"}`;
    const validation = {};
    for (const format of ['json', 'ndjson']) {
      const file = join(dir, `40k.${format}`);
      writeRecords(file, records + 1, (i) => (i === records ? '{"name":"Last","categoryId":1.5}' : good(i)), {
        array: format === 'json',
      });
      const times = [];
      for (let r = 0; r < runs; r++) {
        log(`bulk: validating ${records} records (${format}), run ${r + 1} of ${runs}`);
        const res = await runProcess([process.execPath, cli, 'pets', 'create', '--from-file', file], runEnv);
        if (res.code !== 2 || !res.err.replace(/\s+/g, ' ').includes('1 invalid record'))
          throw new Error(`unexpected: exit ${res.code}: ${res.err}`);
        times.push(res.ms);
      }
      validation[format] = { records, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times) };
    }
    const big = join(dir, '100mb.ndjson');
    const name = 'n'.repeat(4096);
    const bigCount = Math.ceil((100 * 1024 * 1024) / (name.length + 40));
    writeRecords(big, bigCount, (i) => `{"name":"${name}","categoryId":${(i % 7) + 1}}`);
    const bytes = readFileSync(big).length;
    log(`bulk: sending ${bigCount} records (${(bytes / 2 ** 20).toFixed(0)} MiB)`);
    const sent = await runProcess(
      [process.execPath, '--require', probe, cli, 'pets', 'create', '--from-file', big, '--output', 'ndjson'],
      runEnv,
      { rssProbe: true, quiet: true },
    );
    if (sent.code !== 0) throw new Error(`100 MB bulk create failed (exit ${sent.code}): ${sent.err.slice(0, 500)}`);
    return {
      validation,
      large: {
        records: bigCount,
        mebibytes: bytes / 2 ** 20,
        wallMs: sent.ms,
        peakRssMiB: sent.peakKiB === undefined ? undefined : sent.peakKiB / 1024,
      },
    };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` NDJSON records named `prefix` 1..count. */
const recordLine = (prefix) => (i) => `{"name":"${prefix} ${i}","categoryId":${(i % 7) + 1},"status":"available"}`;

/**
 * Bulk create at scale (see the top of this file). `seconds`: about how long each rate run
 * lasts (its records are scaled to the concurrency, at the server's 20 ms average);
 * `runs`: rounds of the rate runs; `dryRunRecords`, `sendRecords`: the memory runs' sizes;
 * `before`: another build's shim, measured beside `cli` in the rate runs (`before` in the
 * result), or undefined.
 * @param {{cli: string, env: NodeJS.ProcessEnv, runs: number, seconds: number, dryRunRecords: number,
 *   sendRecords: number, sandboxRecords: number, before?: string, log: (line: string) => void}} opts
 */
export async function benchScale({ cli, env, runs, seconds, dryRunRecords, sendRecords, sandboxRecords, before, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-scale-'));
  const probe = join(root, 'bench', 'rss-probe.cjs');
  const slow = await startServer(['--delay-ms', '10-30']);
  const fast = await startServer();
  let state = 0;
  // A fresh state directory each run: a run of an input sent before would warn or be refused.
  const runEnv = (server, extra = {}) => ({
    ...env,
    PETSTORE_CONFIG_DIR: dir,
    PETSTORE_STATE_DIR: join(dir, `state-${++state}`),
    PETSTORE_BASE_URL: server.baseUrl,
    PETSTORE_API_KEY: 'bench-key-0123456789',
    ...extra,
  });
  try {
    const levels = [1, 4, 16];
    // The before build runs only where the figure to keep is: the ratio of 16 to 1.
    const beforeLevels = [1, 16];
    const modes = ['fresh', 'keep-alive'];
    const files = new Map();
    for (const level of levels) {
      const count = Math.max(50, Math.round(45 * level * seconds));
      const file = join(dir, `rate-${level}.ndjson`);
      writeRecords(file, count, recordLine(`Rate${level}`));
      files.set(level, { file, count });
    }
    const sandboxFile = join(dir, 'sandbox.ndjson');
    writeRecords(sandboxFile, sandboxRecords, recordLine('Sandbox'));
    const samples = new Map();
    const sample = (key, value) => samples.set(key, [...(samples.get(key) ?? []), value]);
    for (let r = 0; r < runs; r++) {
      for (const mode of modes) {
        for (const level of levels) {
          const { file, count } = files.get(level);
          // The before build next to the current one, on the same file and server: a shared
          // machine's drift falls on both alike; which goes first alternates round by round,
          // so neither always has the warmer machine.
          const builds = [
            { shim: cli, key: '', what: '' },
            ...(before !== undefined && beforeLevels.includes(level)
              ? [{ shim: before, key: 'before ', what: ', --before build' }]
              : []),
          ];
          if (r % 2 === 1) builds.reverse();
          for (const { shim, key, what } of builds) {
            log(`bulk at scale: ${count} records, --concurrency ${level}, ${mode}${what}, round ${r + 1} of ${runs}`);
            const argv = [process.execPath, shim, 'pets', 'create', '--from-file', file];
            const flags = ['--concurrency', String(level), '-o', 'ndjson'];
            const res = await runProcess([...argv, ...flags], runEnv(slow, { PETSTORE_BULK_CONNECTIONS: mode }), {
              quiet: true,
            });
            if (res.code !== 0)
              throw new Error(`--concurrency ${level} (${mode}${what}): exit ${res.code}: ${res.err}`);
            sample(`${key}${mode} ${level}`, count / (res.ms / 1000));
            // Read after every run, the before build's too: it also resets the server's count.
            sample(`${key}in flight ${mode} ${level}`, await slow.maxInFlight());
          }
        }
      }
      for (const level of [1, undefined]) {
        log(
          `bulk at scale: ${sandboxRecords} records into the sandbox, --concurrency ${level ?? 'default'}, round ${r + 1} of ${runs}`,
        );
        const sandboxDir = mkdtempSync(join(dir, 'sandbox-'));
        const argv = [process.execPath, cli, '--env', 'sandbox', 'pets', 'create', '--from-file', sandboxFile];
        const flags = [
          ...(level === undefined ? [] : ['--concurrency', String(level)]),
          '--timeout',
          '3600',
          '-o',
          'ndjson',
        ];
        const res = await runProcess(
          [...argv, ...flags],
          { ...env, PETSTORE_CONFIG_DIR: sandboxDir, PETSTORE_STATE_DIR: join(sandboxDir, 'state') },
          { quiet: true },
        );
        if (res.code !== 0)
          throw new Error(`sandbox --concurrency ${level ?? 'default'}: exit ${res.code}: ${res.err}`);
        sample(`sandbox ${level ?? 'default'}`, sandboxRecords / (res.ms / 1000));
        rmSync(sandboxDir, { recursive: true, force: true });
      }
    }
    const rate = (key) => median(samples.get(key));
    // One build's rates by mode and level (`build`: '' for the current one, 'before ').
    const ratesOf = (build, atLevels) =>
      Object.fromEntries(
        modes.map((mode) => [
          mode,
          Object.fromEntries(
            atLevels.map((level) => [
              level,
              {
                records: files.get(level).count,
                recordsPerSecond: rate(`${build}${mode} ${level}`),
                ratioTo1: rate(`${build}${mode} ${level}`) / rate(`${build}${mode} 1`),
                maxInFlight: Math.max(...samples.get(`${build}in flight ${mode} ${level}`)),
                // The current build's records/s over this build's (> 1: faster now).
                ...(build === ''
                  ? {}
                  : { currentToBefore: rate(`${mode} ${level}`) / rate(`${build}${mode} ${level}`) }),
              },
            ]),
          ),
        ]),
      );
    const rates = ratesOf('', levels);
    const beforeRates = before === undefined ? undefined : ratesOf('before ', beforeLevels);
    const sandbox = {
      records: sandboxRecords,
      oneInFlight: rate('sandbox 1'),
      default: rate('sandbox default'),
      ratio: rate('sandbox default') / rate('sandbox 1'),
    };
    const memory = await benchScaleMemory({
      cli,
      dir,
      probe,
      runEnv: () => runEnv(fast),
      dryRunRecords,
      sendRecords,
      log,
    });
    return {
      runs,
      serverDelayMs: '10-30',
      rates,
      before:
        beforeRates === undefined
          ? undefined
          : {
              cli: before,
              rates: beforeRates,
              // Per mode, the current build's ratio 16/1 over the before build's.
              ratioTo1CurrentToBefore: Object.fromEntries(
                modes.map((mode) => [mode, rates[mode][16].ratioTo1 / beforeRates[mode][16].ratioTo1]),
              ),
            },
      sandbox,
      memory,
    };
  } finally {
    slow.stop();
    fast.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The two memory runs of benchScale: a large file checked, a large file sent; peak RSS of each. */
async function benchScaleMemory({ cli, dir, probe, runEnv, dryRunRecords, sendRecords, log }) {
  const checked = join(dir, 'checked.ndjson');
  writeRecords(checked, dryRunRecords, recordLine('Checked'));
  log(`bulk at scale: ${dryRunRecords} records checked (--dry-run)`);
  const dry = await runProcess(
    [process.execPath, '--require', probe, cli, 'pets', 'create', '--from-file', checked, '--dry-run', '-o', 'ndjson'],
    runEnv(),
    { rssProbe: true, quiet: true },
  );
  if (dry.code !== 0)
    throw new Error(`--dry-run of ${dryRunRecords} records: exit ${dry.code}: ${dry.err.slice(0, 500)}`);
  rmSync(checked, { force: true });
  const sent = join(dir, 'sent.ndjson');
  writeRecords(sent, sendRecords, recordLine('Sent'));
  log(`bulk at scale: ${sendRecords} records sent (--concurrency 16)`);
  const send = await runProcess(
    [
      process.execPath,
      '--require',
      probe,
      cli,
      'pets',
      'create',
      '--from-file',
      sent,
      '--concurrency',
      '16',
      '-o',
      'ndjson',
    ],
    runEnv(),
    { rssProbe: true, quiet: true },
  );
  if (send.code !== 0) throw new Error(`${sendRecords} records sent: exit ${send.code}: ${send.err.slice(0, 500)}`);
  const mib = (kib) => (kib === undefined ? undefined : kib / 1024);
  return {
    dryRun: { records: dryRunRecords, wallMs: dry.ms, peakRssMiB: mib(dry.peakKiB) },
    sent: { records: sendRecords, concurrency: 16, wallMs: send.ms, peakRssMiB: mib(send.peakKiB) },
  };
}

// Bulk input figures, for bench/run.mjs (`pets create --from-file`):
// - validation: a file of 40,000 valid records and one invalid record at its end, as a JSON
//   array and as NDJSON. Every record is read and checked, nothing is sent (exit 2), so the
//   whole process's wall time is start-up plus validation. Median of `runs` runs.
// - a 100 MB NDJSON file (records with 4 KiB names) validated and sent to bench/server.mjs
//   (constant answers, so only the client is measured): wall time and the process's peak
//   RSS (VmHWM, through bench/rss-probe.cjs).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs argv with fd 3 open for the RSS probe; resolves { ms, code, err, peakKiB }. */
function run(argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let err = '';
    let probe = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdio[3].on('data', (d) => (probe += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code,
        err,
        peakKiB: Number(probe.trim()) || undefined,
      }),
    );
  });
}

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

/** Starts bench/server.mjs; resolves { baseUrl, stop }. */
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bench', 'server.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', reject);
    child.stdout.setEncoding('utf8').once('data', (d) => {
      const port = /PORT (\d+)/.exec(d)?.[1];
      if (port === undefined) reject(new Error(`bench server said: ${d}`));
      else resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, stop: () => child.stdin.end() });
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
        const res = await run([process.execPath, cli, 'pets', 'create', '--from-file', file], runEnv);
        // Messages wrap at 80 columns: compare with the line breaks taken out.
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
    const sent = await run(
      [process.execPath, '--require', probe, cli, 'pets', 'create', '--from-file', big, '--output', 'ndjson'],
      runEnv,
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

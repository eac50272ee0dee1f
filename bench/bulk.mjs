// Bulk input figures, for bench/run.mjs (`pets create --from-file`):
// - validation: a file of 40,000 valid records and one invalid record at its end, as a JSON
//   array and as NDJSON. Every record is read and checked, nothing is sent (exit 2), so the
//   whole process's wall time is start-up plus validation. Median of `runs` runs.
// - a 100 MB NDJSON file (records with 4 KiB names) validated and sent to bench/server.mjs
//   (constant answers, so only the client is measured): wall time and the process's peak
//   RSS (VmHWM, through bench/rss-probe.cjs).
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

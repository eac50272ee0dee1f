// The sandbox data store's figures, for bench/run.mjs:
// - bulk create: `petstore --env sandbox pets create --from-file F` of N records (5,000 by
//   default) into a fresh store, as a whole process; records per second of wall time.
//   Given `before` (another build's shim), that build runs the same create beside each run
//   of `cli` (current then before, then before then current, ...), each in a fresh config and state
//   directory of its own: the two medians come from the same stretch of machine time, so
//   their ratio holds on a busy machine where two separate runs' figures would not.
// - stale lock: a process takes the store's lock with petstore's own lock code
//   (src/fs/file-lock.ts, bundled here with esbuild) and is killed with SIGKILL while it
//   holds it. Measured: how long the next taker needs to get the lock (in a process of its
//   own, from its first attempt), and a whole `--env sandbox pets create` run right after
//   the kill, against the same run with no stale lock.
import { spawn } from 'node:child_process';
import { median, runProcess as run } from './lib.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles the lock tool: `hold FILE` (prints "locked", holds until killed) and `take FILE` (prints ms to get the lock). */
async function bundleLockTool(dir) {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'lock-tool.cjs');
  await build({
    stdin: {
      contents: `
        import { FileLock } from ${JSON.stringify(join(root, 'src', 'fs', 'file-lock.ts'))};
        const [mode, file] = process.argv.slice(2);
        (async () => {
          await import('proper-lockfile'); // Loaded before the clock starts: not part of the wait.
          const lock = new FileLock(file);
          const started = performance.now();
          await lock.run({ deadline: Date.now() + 60000 }, async () => {
            if (mode === 'hold') {
              process.stdout.write('locked\\n');
              // Held until killed: a promise alone keeps no process alive, and one that
              // exits lets go of the lock (its exit handler), racing the kill.
              await new Promise(() => setInterval(() => {}, 1e9));
            }
            process.stdout.write((performance.now() - started).toFixed(2) + '\\n');
          });
          await lock.close();
        })();
      `,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** Starts a holder and resolves with its child process once it holds the lock. */
function startHolder(tool, file) {
  const child = spawn(process.execPath, [tool, 'hold', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('locked\n')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
  });
}

async function killHard(child) {
  const gone = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/**
 * Measures the store. `cli` is the shim to run, `env` the base environment; `before`, if
 * given, another build's shim whose bulk create runs alternately with `cli`'s.
 * Returns { bulk, staleLock } with raw samples and medians; `bulk.before` with `before`.
 */
export async function benchStore({ cli, env, records = 5000, runs = 3, lockRuns = 5, before, log = () => {} }) {
  const work = mkdtempSync(join(tmpdir(), 'petstore-bench-store-'));
  try {
    const input = join(work, 'bulk.ndjson');
    const statuses = ['available', 'pending', 'sold'];
    writeFileSync(
      input,
      Array.from({ length: records }, (_, i) =>
        JSON.stringify({ name: `Bulk ${i}`, categoryId: (i % 9) + 1, status: statuses[i % 3] }),
      ).join('\n') + '\n',
    );
    // Only `pets create --from-file F --timeout -o ndjson` and the directory variables,
    // which a build from before the change knows too. A state directory of the run's own:
    // the two builds must not read each other's records of earlier runs of the same file.
    const bulkCreate = async (shim, what) => {
      const dir = mkdtempSync(join(work, 'bulk-'));
      const argv = [process.execPath, shim, '--env', 'sandbox', 'pets', 'create', '--from-file', input];
      const r = await run([...argv, '--timeout', '3600', '-o', 'ndjson'], {
        ...env,
        PETSTORE_CONFIG_DIR: dir,
        PETSTORE_STATE_DIR: join(dir, 'state'),
      });
      const lines = r.out.split('\n').filter((l) => l !== '').length;
      if (r.code !== 0 || lines !== records)
        throw new Error(`bulk create${what}: exit ${r.code}, ${lines} records\n${r.err}`);
      rmSync(dir, { recursive: true, force: true });
      return r.ms;
    };
    const bulkMs = [];
    const beforeMs = [];
    for (let i = 0; i < runs; i++) {
      log(`bulk create ${i + 1}/${runs}`);
      // Which build goes first alternates run by run, so neither always has the warmer machine.
      if (before !== undefined && i % 2 === 1) {
        log(`bulk create ${i + 1}/${runs}, --before build`);
        beforeMs.push(await bulkCreate(before, ' (--before build)'));
      }
      bulkMs.push(await bulkCreate(cli, ''));
      if (before === undefined || i % 2 === 1) continue;
      log(`bulk create ${i + 1}/${runs}, --before build`);
      beforeMs.push(await bulkCreate(before, ' (--before build)'));
    }

    const tool = await bundleLockTool(work);
    const takeMs = [];
    const afterKillMs = [];
    const plainMs = [];
    for (let i = 0; i < lockRuns; i++) {
      log(`stale lock ${i + 1}/${lockRuns}`);
      const dir = mkdtempSync(join(work, 'lock-'));
      const file = join(dir, 'sandbox.json');
      const sandboxEnv = { ...env, PETSTORE_CONFIG_DIR: dir };
      const create = [process.execPath, cli, '--env', 'sandbox', 'pets', 'create', '--name', 'B', '--category-id', '1'];
      const seeded = await run([process.execPath, cli, '--env', 'sandbox', 'pets', 'list'], sandboxEnv);
      if (seeded.code !== 0) throw new Error(`seeding: ${seeded.err}`);
      // The lock alone: a taker process after the holder was killed.
      await killHard(await startHolder(tool, file));
      const take = await run([process.execPath, tool, 'take', file], env);
      if (take.code !== 0) throw new Error(`take: ${take.err}`);
      takeMs.push(Number(take.out.trim()));
      // A whole command after a kill, and the same command with no stale lock.
      await killHard(await startHolder(tool, file));
      const after = await run(create, sandboxEnv);
      const plain = await run(create, sandboxEnv);
      if (after.code !== 0 || plain.code !== 0) throw new Error(`create: ${after.err}${plain.err}`);
      afterKillMs.push(after.ms);
      plainMs.push(plain.ms);
    }
    const bulkMedian = median(bulkMs);
    const beforeMedian = before === undefined ? undefined : median(beforeMs);
    return {
      bulk: {
        records,
        runs,
        wallMs: bulkMs,
        medianMs: bulkMedian,
        recordsPerSecond: records / (bulkMedian / 1000),
        before:
          before === undefined
            ? undefined
            : {
                cli: before,
                wallMs: beforeMs,
                medianMs: beforeMedian,
                recordsPerSecond: records / (beforeMedian / 1000),
                // Records/s of the current build over the before build's (> 1: faster now).
                currentToBefore: beforeMedian / bulkMedian,
              },
      },
      staleLock: {
        runs: lockRuns,
        takeoverMs: takeMs,
        takeoverMedianMs: median(takeMs),
        takeoverMaxMs: Math.max(...takeMs),
        createAfterKillMedianMs: median(afterKillMs),
        createMedianMs: median(plainMs),
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

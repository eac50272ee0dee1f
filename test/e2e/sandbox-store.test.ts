/**
 * The sandbox's data store under several processes at once: creates racing into a large
 * store, a soak run against one `sandbox serve`, a holder killed with -9 while it holds the
 * lock, and a live holder that makes others wait. Processes are the point here, so the
 * built CLI is spawned (`npm run build` first). Speed is measured in `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as losslessParse } from 'lossless-json';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { seedData } from '../../src/sandbox/data-files.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { remoteEnv } from '../helpers/harness.js';
import { holdLock, ownerFile } from '../helpers/lock-holder.js';
import { CLI_ARGV, baseEnv, runCli } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/**
 * How long a wait for one process may take (to start, to reach the lock, to end): a limit
 * for a hang, many times what a quiet machine needs, since CI's two cores may be busy with
 * other work.
 */
const HANG_MS = 60_000;

/** NDJSON of `n` NewPets named `prefix-0` ... */
function records(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ name: `${prefix}-${i}`, categoryId: 7 }) + '\n').join('');
}

/** Writes a store of `n` pets (ids 1..n, plus one beyond 2^53) in `dir`. */
async function largeStore(dir: string, n: number): Promise<void> {
  const pets = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `Big ${i + 1}`,
    categoryId: (i % 5) + 1,
    status: 'available' as const,
  }));
  const atlas = seedData().pets.at(-1);
  const store = new SandboxStore(join(dir, 'sandbox.json'));
  await store.update(() => ({ nextId: BigInt(n + 1), pets: atlas === undefined ? pets : [...pets, atlas] }));
  await store.close();
}

/** Reads the store as a new process would, and checks the files line by line. */
async function readBack(dir: string): Promise<{ ids: string[]; names: Set<string> }> {
  const file = join(dir, 'sandbox.json');
  // Both files are what they claim to be: JSON, and NDJSON whose every line ends.
  losslessParse(readFileSync(file, 'utf8'));
  const journal = readFileSync(`${file}.journal`, 'utf8');
  expect(journal.endsWith('\n')).toBe(true);
  for (const line of journal.trimEnd().split('\n')) losslessParse(line);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(`${file}.journal`).mode & 0o777).toBe(0o600);
  const store = new SandboxStore(file);
  const data = await store.read();
  await store.close();
  const ids = data.pets.map((p) => String(p.id));
  expect(new Set(ids).size).toBe(ids.length);
  return { ids, names: new Set(data.pets.map((p) => p.name)) };
}

/** The ids printed by `-o ndjson` runs, as exact strings. */
function printedIds(stdouts: string[]): string[] {
  return stdouts.flatMap((out) =>
    out
      .trimEnd()
      .split('\n')
      .map((line) => String((losslessParse(line) as { id: unknown }).id)),
  );
}

/** A fresh config folder whose sandbox store a first `pets list` has seeded; its store file. */
async function seededSandbox(): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  const file = join(dir, 'sandbox.json');
  expect((await runCli(['--env', 'sandbox', 'pets', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } })).code).toBe(0);
  return { dir, file };
}

describe('parallel processes', () => {
  it('20 processes x 10 creates into a store of 10,000 pets: all 201, 200 distinct ids, store valid', async () => {
    const dir = tempDir();
    await largeStore(dir, 10_000);
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, p) => {
        const input = join(dir, `in-${p}.ndjson`);
        writeFileSync(input, records(`P${p}`, 10));
        return runCli(
          ['--env', 'sandbox', 'pets', 'create', '--from-file', input, '-o', 'ndjson', '--timeout', '120'],
          {
            env: { PETSTORE_CONFIG_DIR: dir },
            timeoutMs: 120_000,
          },
        );
      }),
    );
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(10);
    }
    const ids = printedIds(runs.map((r) => r.stdout));
    expect(new Set(ids).size).toBe(200);
    // Ids continue after the store's own, every one of them new.
    for (const id of ids) expect(BigInt(id) > 10_000n && BigInt(id) <= 10_200n, id).toBe(true);

    const back = await readBack(dir);
    expect(back.ids).toHaveLength(10_001 + 200);
    expect(back.ids).toContain('9007199254740993');
    for (const id of ids) expect(back.ids).toContain(id);
    for (let p = 0; p < 20; p++) for (let i = 0; i < 10; i++) expect(back.names.has(`P${p}-${i}`)).toBe(true);
    // 20 processes at once: a loaded machine took 10 s; each run may take 120 s before it is killed.
  }, 180_000);
});

describe('soak: one `sandbox serve`, many clients', () => {
  it('1,000 creates by 20 processes: every response 201, ids distinct, store valid', async () => {
    const dir = tempDir();
    const serve = spawn(CLI_ARGV[0], [...CLI_ARGV.slice(1), 'sandbox', 'serve', '--port', '0'], {
      env: { ...baseEnv(), PETSTORE_CONFIG_DIR: dir, HOME: dir },
    });
    const exited = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)));
    let out = '';
    let log = '';
    serve.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), HANG_MS);
        serve.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (/PETSTORE_API_KEY=\S+\n/.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const baseUrl = /^PETSTORE_BASE_URL=(.*)$/m.exec(out)?.[1] ?? '';
      const apiKey = /^PETSTORE_API_KEY=(.*)$/m.exec(out)?.[1] ?? '';
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, p) => {
          const input = join(dir, `soak-${p}.ndjson`);
          writeFileSync(input, records(`S${p}`, 50));
          return runCli(['pets', 'create', '--from-file', input, '-o', 'ndjson', '--timeout', '120'], {
            env: remoteEnv(baseUrl, apiKey, { PETSTORE_CONFIG_DIR: dir }),
            timeoutMs: 120_000,
          });
        }),
      );
      for (const r of runs) {
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
      const ids = printedIds(runs.map((r) => r.stdout));
      expect(ids).toHaveLength(1000);
      expect(new Set(ids).size).toBe(1000);
      serve.kill('SIGINT');
      // Stopped by SIGINT, as Ctrl-C stops it.
      expect(await exited).toBe(130);
      // The request log: 1,000 POSTs, each answered 201.
      const posts = log.split('\n').filter((l) => l.startsWith('POST /v1/pets '));
      expect(posts).toHaveLength(1000);
      for (const line of posts) expect(line).toMatch(/^POST \/v1\/pets 201 /);
      const back = await readBack(dir);
      expect(back.ids).toHaveLength(1010);
      for (const id of ids) expect(back.ids).toContain(id);
    } finally {
      if (serve.exitCode === null) serve.kill('SIGKILL');
    }
    // A server and 20 clients: a loaded machine took 7 s; each client may take 120 s before it is killed.
  }, 240_000);
});

// Each test runs a few processes one after another, each of which a loaded machine may make slow.
describe('the lock', () => {
  it('a holder killed with -9 leaves its lock behind; the next run takes it over and succeeds', async () => {
    const { dir, file } = await seededSandbox();
    const holder = await holdLock(file);
    expect(readFileSync(ownerFile(`${file}.lock`) ?? 'no owner file', 'utf8')).toMatch(new RegExp(`^${holder.pid} `));
    holder.child.kill('SIGKILL');
    await holder.exited;
    // The stale lock is really there when the next run starts.
    expect(existsSync(`${file}.lock`)).toBe(true);
    const r = await runCli(['--env', 'sandbox', 'pets', 'create', '--name', 'AfterKill', '--category-id', '3'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('10\tAfterKill\t3\tavailable\n');
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await readBack(dir)).names.has('AfterKill')).toBe(true);
  }, 120_000);

  it('a create waits while a live process holds the lock, then succeeds', async () => {
    const { dir, file } = await seededSandbox();
    const holder = await holdLock(file);
    const create = runCli(['--env', 'sandbox', 'pets', 'create', '--name', 'Patient', '--category-id', '1'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    // A waiter marks the owner file (mtime 0) to ask for the lock: then let it go. Waits for
    // the mark, however long the create takes to start on a loaded machine.
    const owner = ownerFile(`${file}.lock`) ?? 'no owner file';
    const deadline = Date.now() + HANG_MS;
    while (Date.now() < deadline && statSync(owner).mtimeMs !== 0) await new Promise((res) => setTimeout(res, 25));
    expect(statSync(owner).mtimeMs).toBe(0);
    holder.child.stdin.end();
    await holder.exited;
    const r = await create;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('10\tPatient\t1\tavailable\n');
  }, 120_000);

  it('held for longer than the wait: the server answers 503 busy in words of its own, `sandbox reset` exits 3', async () => {
    const { dir, file } = await seededSandbox();
    const holder = await holdLock(file);
    try {
      const sandbox = await startSandbox({ store: new SandboxStore(file, { waitMs: 300 }), apiKey: 'sbx_test' });
      try {
        const res = await fetch(`${sandbox.baseUrl}/pets`, {
          method: 'POST',
          headers: { authorization: 'Bearer sbx_test', 'content-type': 'application/json' },
          body: '{"name":"Late","categoryId":1}',
        });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        const body = (await res.json()) as { code: string; message: string; status: number };
        expect(body).toMatchObject({ code: 'busy', status: 503 });
        expect(body.message).toContain(`process ${holder.pid}`);
        expect(body.message).not.toMatch(/Lock file|ELOCKED/);
      } finally {
        await sandbox.close();
      }
      const reset = await runCli(['sandbox', 'reset', '--timeout', '1'], { env: { PETSTORE_CONFIG_DIR: dir } });
      expect(reset.code).toBe(3);
      expect(reset.stderr).toContain(`${file}.lock`);
      expect(reset.stderr).toContain(`process ${holder.pid}`);
      expect(reset.stderr).not.toMatch(/looks like a bug|Lock file/);
    } finally {
      holder.child.stdin.end();
      await holder.exited;
    }
    const back = await readBack(dir);
    expect(back.names.has('Late')).toBe(false);
  }, 120_000);
});

/**
 * `pets list|create|get` and `sandbox reset` against the embedded sandbox (`--env sandbox`)
 * over a temp config directory. Each run starts its own embedded sandbox on the data file,
 * in-process (`runMain`); only the race of parallel creates spawns the built CLI, since
 * separate processes writing one file is what it tests.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as losslessParse, isLosslessNumber } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer } from '../helpers/test-server.js';

const SEED_TSV = [
  '1\tRex\t1\tavailable',
  '2\tWhiskers\t2\tavailable',
  '3\tBubbles\t3\tpending',
  '4\tPolly\t4\tsold',
  '5\tNibbles\t5\tavailable',
  '6\tShadow\t2\tpending',
  '7\tGoldie\t3\tavailable',
  '8\tBuddy\t1\tsold',
  '9\tKiwi\t4\tavailable',
  '9007199254740993\tAtlas\t9223372036854775807\tavailable',
];
const ATLAS_JSON = '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"available"}';

const HAS_JQ = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v jq'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Runs `petstore --env sandbox ...args` in-process with `dir` as its config directory. */
function sandbox(dir: string, args: string[], env: Record<string, string> = {}) {
  return runMain(['--env', 'sandbox', ...args], { env: { PETSTORE_CONFIG_DIR: dir, ...env } });
}

/** The same, as a process of its own (the built CLI). */
function sandboxProcess(dir: string, args: string[]) {
  return runCli(['--env', 'sandbox', ...args], { env: { PETSTORE_CONFIG_DIR: dir } });
}

afterAll(() => removeTempDirs());

describe.concurrent('listing the seed (one shared, read-only sandbox)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    // Seed the data file once, so concurrent first reads do not all create it.
    const r = await sandbox(dir, ['pets', 'list', '--limit', '1']);
    expect(r.code).toBe(0);
  });

  it('lists the ten seed pets in the machine form by default', async () => {
    const r = await sandbox(dir, ['pets', 'list']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(SEED_TSV.join('\n') + '\n');
    expect(r.code).toBe(0);
  });

  it.each(['available', 'pending', 'sold'])('--status %s lists only those pets', async (status) => {
    const r = await sandbox(dir, ['pets', 'list', '--status', status]);
    expect(r.code).toBe(0);
    const want = SEED_TSV.filter((l) => l.endsWith(`\t${status}`));
    expect(r.stdout).toBe(want.join('\n') + '\n');
  });

  it('--limit 3 gives the first three; --limit 007 gives seven', async () => {
    const [three, seven] = await Promise.all([
      sandbox(dir, ['pets', 'list', '--limit', '3']),
      sandbox(dir, ['pets', 'list', '--limit', '007']),
    ]);
    expect(three.stdout).toBe(SEED_TSV.slice(0, 3).join('\n') + '\n');
    expect(seven.stdout).toBe(SEED_TSV.slice(0, 7).join('\n') + '\n');
    expect([three.code, seven.code]).toEqual([0, 0]);
  });

  it('--limit and --status combine', async () => {
    const r = await sandbox(dir, ['pets', 'list', '--status', 'available', '--limit', '2']);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n2\tWhiskers\t2\tavailable\n');
    expect(r.code).toBe(0);
  });

  it('json is an array with exact int64, parseable by jq when installed', async () => {
    const r = await sandbox(dir, ['pets', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"id": 9007199254740993');
    expect(r.stdout).toContain('"categoryId": 9223372036854775807');
    // A parser that keeps big integers sees exactly the seed values.
    const parsed = losslessParse(r.stdout) as Record<string, unknown>[];
    expect(parsed).toHaveLength(10);
    const atlas = parsed[9] ?? {};
    expect(isLosslessNumber(atlas.id) && String(atlas.id)).toBe('9007199254740993');
    expect(isLosslessNumber(atlas.categoryId) && String(atlas.categoryId)).toBe('9223372036854775807');
    if (HAS_JQ) {
      // jq 1.6 parses numbers as doubles, so compare what it keeps exactly: structure and text.
      const names = execFileSync('jq', ['-r', '.[] | "\\(.name) \\(.status)"'], { input: r.stdout, encoding: 'utf8' });
      expect(names.trim().split('\n')).toEqual(SEED_TSV.map((l) => `${l.split('\t')[1]} ${l.split('\t')[3]}`));
      expect(execFileSync('jq', ['length'], { input: r.stdout, encoding: 'utf8' }).trim()).toBe('10');
      expect(execFileSync('jq', ['-r', '.[9].name'], { input: r.stdout, encoding: 'utf8' }).trim()).toBe('Atlas');
    }
  });

  it('prints the seed pet 9007199254740993 exactly in tsv, json and ndjson', async () => {
    const [tsv, json, ndjson, listNd] = await Promise.all([
      sandbox(dir, ['pets', 'get', '9007199254740993']),
      sandbox(dir, ['pets', 'get', '9007199254740993', '--output', 'json']),
      sandbox(dir, ['pets', 'get', '9007199254740993', '-o', 'ndjson']),
      sandbox(dir, ['pets', 'list', '--output', 'ndjson', '--status', 'available']),
    ]);
    expect(tsv.stdout).toBe('9007199254740993\tAtlas\t9223372036854775807\tavailable\n');
    expect(json.stdout).toBe(
      '{\n  "id": 9007199254740993,\n  "name": "Atlas",\n  "categoryId": 9223372036854775807,\n  "status": "available"\n}\n',
    );
    expect(ndjson.stdout).toBe(ATLAS_JSON + '\n');
    const lines = listNd.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe(ATLAS_JSON);
    expect(lines[0]).toBe('{"id":1,"name":"Rex","categoryId":1,"status":"available"}');
    for (const r of [tsv, json, ndjson, listNd]) expect(r.code).toBe(0);
  });

  it('ignores PETSTORE_BASE_URL and PETSTORE_API_KEY: a real key never goes to the sandbox', async () => {
    const srv = await startTestServer();
    try {
      const key = 'pk_live_must_not_travel_0123';
      const r = await sandbox(dir, ['pets', 'list', '--limit', '2'], {
        PETSTORE_BASE_URL: srv.baseUrl,
        PETSTORE_API_KEY: key,
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(SEED_TSV.slice(0, 2).join('\n') + '\n');
      expect(srv.requests).toHaveLength(0);
    } finally {
      await srv.close();
    }
  });

  it('get of the int64 extremes that do not exist answers 404 (exit 5)', async () => {
    const [max, min] = await Promise.all([
      sandbox(dir, ['pets', 'get', '9223372036854775807']),
      sandbox(dir, ['pets', 'get', '--', '-9223372036854775808']),
    ]);
    expect(max.code).toBe(5);
    expect(max.stderr).toContain('pet 9223372036854775807 not found');
    expect(min.code).toBe(5);
    expect(min.stderr).toContain('pet -9223372036854775808 not found');
    expect(max.stdout + min.stdout).toBe('');
  });
});

describe.concurrent('creating pets (a sandbox of its own per test)', () => {
  it('create then get in a later run returns the same animal; default status is available', async () => {
    const dir = tempDir();
    const created = await sandbox(dir, [
      'pets',
      'create',
      '--name',
      'Biscuit',
      '--category-id',
      '9223372036854775807',
      '--json',
    ]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe(
      '{\n  "id": 10,\n  "name": "Biscuit",\n  "categoryId": 9223372036854775807,\n  "status": "available"\n}\n',
    );
    const got = await sandbox(dir, ['pets', 'get', '10', '--output', 'ndjson']);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('{"id":10,"name":"Biscuit","categoryId":9223372036854775807,"status":"available"}\n');

    const second = await sandbox(dir, [
      'pets',
      'create',
      '--name',
      'Tab\there',
      '--category-id',
      '-3',
      '--status',
      'sold',
    ]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('11\tTab\\there\t-3\tsold\n');
    const listed = await sandbox(dir, ['pets', 'list', '--status', 'sold']);
    expect(listed.stdout).toBe('4\tPolly\t4\tsold\n8\tBuddy\t1\tsold\n11\tTab\\there\t-3\tsold\n');
  });

  it('sandbox reset restores the seed', async () => {
    const dir = tempDir();
    expect((await sandbox(dir, ['pets', 'create', '--name', 'Temp', '--category-id', '1'])).code).toBe(0);
    expect((await sandbox(dir, ['pets', 'list'])).stdout.split('\n')).toHaveLength(12);
    const reset = await runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe('');
    expect(reset.stderr).toContain('10 seed pets');
    expect(reset.stderr).toContain(join(dir, 'sandbox.json'));
    const after = await sandbox(dir, ['pets', 'list']);
    expect(after.stdout).toBe(SEED_TSV.join('\n') + '\n');
    // Ids start again after the seed.
    const again = await sandbox(dir, ['pets', 'create', '--name', 'Again', '--category-id', '2']);
    expect(again.stdout).toBe('10\tAgain\t2\tavailable\n');
  });

  it('a corrupt sandbox.json → exit 2 with its path and a hint; bytes unchanged; reset repairs it', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.json');
    const corrupt = '{"nextId": 12, "pets": [ {"id": 1, "name": "Rex"';
    writeFileSync(file, corrupt);
    const [list, create] = await Promise.all([
      sandbox(dir, ['pets', 'list']),
      sandbox(dir, ['pets', 'create', '--name', 'X', '--category-id', '1']),
    ]);
    for (const r of [list, create]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(file);
      expect(r.stderr).toContain('petstore sandbox reset');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(file, 'utf8')).toBe(corrupt);

    // Valid JSON that is not sandbox data is refused the same way.
    writeFileSync(file, '{"pets": "none"}');
    const wrong = await sandbox(dir, ['pets', 'list', '--json']);
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stderr.trim())).toMatchObject({ code: 'config', status: 0 });
    expect(readFileSync(file, 'utf8')).toBe('{"pets": "none"}');

    expect((await runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } })).code).toBe(0);
    expect((await sandbox(dir, ['pets', 'list'])).stdout).toBe(SEED_TSV.join('\n') + '\n');
  });

  it('20 creates in parallel processes get 20 distinct ids, all kept', async () => {
    const dir = tempDir();
    expect((await sandbox(dir, ['pets', 'list', '--limit', '1'])).code).toBe(0);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sandboxProcess(dir, ['pets', 'create', '--name', `Par${i}`, '--category-id', String(100 + i), '-o', 'ndjson']),
      ),
    );
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const created = results.map((r) => losslessParse(r.stdout) as { id: unknown; name: string });
    const ids = created.map((p) => String(p.id));
    expect(new Set(ids).size).toBe(20);
    expect(ids.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));

    const listed = await sandbox(dir, ['pets', 'list', '--limit', '100']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(30);
    const names = new Set(lines.map((l) => l.split('\t')[1]));
    for (let i = 0; i < 20; i++) expect(names.has(`Par${i}`), `Par${i} kept`).toBe(true);
  });
});

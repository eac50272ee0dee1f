/**
 * SandboxStore on real files: what one store writes, another (as another process would)
 * reads; compaction keeps every pet and id; ids stay exact and increasing beyond 2^53;
 * files are private. Two store objects on one file stand for two processes: each keeps
 * its own view and takes the file lock like a process does.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { COMPACT_MIN_BYTES, seedData } from '../../src/sandbox/data-files.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/sandbox/codec.js';
import { FileLock } from '../../src/fs/file-lock.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

const stores: SandboxStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

function open(file: string): SandboxStore {
  const store = new SandboxStore(file);
  stores.push(store);
  return store;
}

function generationOf(file: string): number {
  return Number(/^\{"generation":(\d+),/.exec(readFileSync(file, 'utf8'))?.[1]);
}

describe.concurrent('two stores on one file', () => {
  it('each create is seen by the other store at its next read', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    const b = open(file);
    expect((await b.read()).pets).toHaveLength(10);
    for (let i = 0; i < 5; i++) {
      const { pet } = await (i % 2 === 0 ? a : b).create({ name: `N${i}`, categoryId: 1 });
      expect(pet.id).toBe(10 + i);
      for (const s of [a, b]) expect((await s.read()).pets.map((p) => p.name)).toContain(`N${i}`);
    }
  });

  it('compaction folds the journal into a new snapshot; every pet and id is kept', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    const b = open(file);
    await b.read();
    const gen0 = generationOf(file);
    // Enough creates for the journal to outgrow COMPACT_MIN_BYTES (about 60 bytes each).
    const n = Math.ceil(COMPACT_MIN_BYTES / 55) + 100;
    const made = await Promise.all(
      Array.from({ length: n }, (_, i) => (i % 3 === 0 ? b : a).create({ name: `C${i}`, categoryId: i })),
    );
    expect(generationOf(file)).toBeGreaterThan(gen0);
    expect(statSync(`${file}.journal`).size).toBeLessThan(COMPACT_MIN_BYTES);
    const ids = made.map(({ pet }) => Number(pet.id)).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => 10 + i));
    for (const s of [a, b, open(file)]) {
      const data = await s.read();
      expect(data.pets).toHaveLength(10 + n);
      expect(data.nextId).toBe(BigInt(10 + n));
      expect(data.pets.map((p) => String(p.id))).toContain('9007199254740993');
    }
  });

  it('reset by one store is seen by the other, which then creates from the seed ids', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    const b = open(file);
    await a.create({ name: 'Gone', categoryId: 1 });
    expect((await b.read()).pets).toHaveLength(11);
    await a.reset();
    expect((await b.read()).pets).toHaveLength(10);
    expect((await b.create({ name: 'Again', categoryId: 1 })).pet.id).toBe(10);
  });
});

describe.concurrent('ids and files', () => {
  it('ids beyond 2^53 stay exact and increasing, through the journal and a new snapshot', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    await a.update((seed) => ({ ...seed, nextId: 9007199254740992n }));
    const { pet: first } = await a.create({ name: 'Big1', categoryId: 9223372036854775807n });
    const { pet: second } = await a.create({ name: 'Big2', categoryId: 1 });
    expect(first).toEqual({
      id: 9007199254740992n,
      name: 'Big1',
      categoryId: 9223372036854775807n,
      status: 'available',
    });
    // 9007199254740993 is the seed's Atlas: a create never takes an id the store holds.
    expect(second.id).toBe(9007199254740994n);
    expect(readFileSync(`${file}.journal`, 'utf8')).toContain(
      '{"id":9007199254740992,"name":"Big1","categoryId":9223372036854775807,',
    );
    const fresh = await open(file).read();
    expect(fresh.nextId).toBe(9007199254740995n);
    expect(fresh.pets.at(-1)?.id).toBe(9007199254740994n);
  });

  it('the last id is 2^63-1; past it, a create fails with a ConfigError and adds nothing', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    await a.update((seed) => ({ ...seed, nextId: 9223372036854775807n }));
    expect((await a.create({ name: 'Last', categoryId: 1 })).pet.id).toBe(9223372036854775807n);
    await expect(a.create({ name: 'Over', categoryId: 1 })).rejects.toThrow(ConfigError);
    expect((await open(file).read()).pets.map((p) => p.name)).not.toContain('Over');
  });

  it('both files are mode 0600, the directory 0700 when the store makes it', async () => {
    const dir = join(tempDir(), 'made-here');
    const file = join(dir, 'sandbox.json');
    await open(file).create({ name: 'P', categoryId: 1 });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.journal`).mode & 0o777).toBe(0o600);
  });

  it('a create whose signal aborts while it waits for the lock is not made', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const a = open(file);
    await a.read();
    // Another holder (as another process would) keeps the lock until the create gave up.
    const other = new FileLock(file);
    const gaveUp = new AbortController();
    let held!: () => void;
    const holding = other.run(
      { deadline: Date.now() + 10_000 },
      () => new Promise<void>((resolve) => (held = resolve)),
    );
    // The first store lingers on the lock a moment after its read; a loaded machine may take seconds.
    await vi.waitFor(() => expect(held).toBeDefined(), { timeout: 10_000 });
    const create = a.create({ name: 'Never', categoryId: 1 }, { signal: gaveUp.signal });
    gaveUp.abort(new Error('client gone'));
    await expect(create).rejects.toThrow('client gone');
    held();
    await holding;
    await other.close();
    expect((await open(file).read()).pets.map((p) => p.name)).not.toContain('Never');
  });
});

describe('snapshot text', () => {
  it('round-trips the seed exactly, and any JSON of the same shape reads the same', () => {
    const seed = seedData();
    const text = encodeSnapshot({ generation: 4, nextId: seed.nextId, pets: [...seed.pets] });
    expect(decodeSnapshot(text)).toEqual({ generation: 4, nextId: 10n, pets: seed.pets });
    const pretty = JSON.stringify(
      { generation: 4, nextId: 10, pets: [{ id: 1, name: 'Rex', categoryId: 1 }] },
      null,
      2,
    );
    expect(decodeSnapshot(pretty)).toEqual({
      generation: 4,
      nextId: 10n,
      pets: [{ id: 1, name: 'Rex', categoryId: 1 }],
      foreign: true,
    });
  });

  it.each([
    ['', /empty/],
    ['{"nextId": 1, "pets": {}}', /pets: not an array/],
    ['{"nextId": 1.5, "pets": []}', /nextId/],
    ['{"nextId": 1, "pets": [{"id": 1, "name": 2, "categoryId": 1}]}', /pets\[0\]/],
  ])('%j is described, not thrown', (text, why) => {
    expect(decodeSnapshot(text)).toMatch(why);
  });
});

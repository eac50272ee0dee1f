/**
 * The sandbox's `Idempotency-Key` on createPet (IETF draft-ietf-httpapi-idempotency-key-header),
 * over real HTTP against real servers on real files: the same key and body replay the first
 * answer (`Idempotent-Replayed: true`) and create nothing; another body is 422
 * `idempotency_key_reused`; a key whose first request is still being answered is 409
 * `idempotency_key_in_use`; a malformed key is 400; failed requests keep no key; keys
 * survive a restart and compaction, expire after 24 hours (aged by rewriting the files by
 * hand), and are forgotten by a reset; two stores on one file (as two processes) create one
 * pet for one key, in one batch too; no answer shows the `idempotency` member the files keep.
 */
import { mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileLock } from '../../src/fs/file-lock.js';
import {
  decodeJournalPets,
  decodeSnapshot,
  encodePet,
  encodeSnapshot,
  type KeyedLines,
} from '../../src/sandbox/codec.js';
import { COMPACT_MIN_BYTES } from '../../src/sandbox/data-files.js';
import { IdempotencyKeyReusedError, requestFingerprint } from '../../src/sandbox/idempotency.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { ownerFile } from '../helpers/lock-holder.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const API_KEY = 'sbx_0123456789abcdef0123456789abcdef';
const HOUR_MS = 60 * 60 * 1000;
/** A limit for a wait on an event (a waiter reaching the lock): only a hang reaches it. */
const HANG_MS = 60_000;

const running: RunningSandbox[] = [];
const stores: SandboxStore[] = [];
afterAll(async () => {
  for (const s of running) await s.close();
  for (const s of stores) await s.close();
  removeTempDirs();
});

/** A data file in a fresh folder (not made yet: the first use seeds it). */
function dataFile(): string {
  return join(tempDir(), 'sandbox.json');
}

/** A store on `file`, as a process of its own would have; closed after the tests. */
function open(file: string, opts: { waitMs?: number } = {}): SandboxStore {
  const store = new SandboxStore(file, opts);
  stores.push(store);
  return store;
}

/** Starts a sandbox on `file` with a new store (as a newly started process would). */
async function serve(file: string, opts: { waitMs?: number } = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ store: new SandboxStore(file, opts), apiKey: API_KEY });
  running.push(sandbox);
  return sandbox;
}

/** Stops a sandbox started by `serve` (a restart is `stop`, then `serve` again). */
async function stop(sandbox: RunningSandbox): Promise<void> {
  running.splice(running.indexOf(sandbox), 1);
  await sandbox.close();
}

interface Answer {
  status: number;
  body: string;
  location: string | null;
  replayed: string | null;
  retryAfter: string | null;
}

/** `POST /pets` with `body` (JSON text, or a value made JSON), the key header when `key` is given. */
async function post(
  sandbox: RunningSandbox,
  body: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${sandbox.baseUrl}/pets`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: await res.text(),
    location: res.headers.get('location'),
    replayed: res.headers.get('idempotent-replayed'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/** An Error body's code and message. */
function problem(answer: Answer): { code: string; message: string; status: number } {
  return JSON.parse(answer.body) as { code: string; message: string; status: number };
}

/** The text of every page of `GET /pets` (following `Link: rel="next"`). */
async function listPages(sandbox: RunningSandbox): Promise<string[]> {
  const pages: string[] = [];
  let url: string | undefined = `${sandbox.baseUrl}/pets?limit=100`;
  while (url !== undefined) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(res.status).toBe(200);
    pages.push(await res.text());
    url = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return pages;
}

/** How many pets `GET /pets` lists. */
async function count(sandbox: RunningSandbox): Promise<number> {
  return (await listPages(sandbox)).reduce((n, page) => n + (JSON.parse(page) as unknown[]).length, 0);
}

/** The `idempotency` member's time of `key` in the data file `path`, set to `hoursAgo` before now. */
function age(path: string, key: string, hoursAgo: number): void {
  const text = readFileSync(path, 'utf8');
  const line = new RegExp(`("idempotency":\\{"key":${JSON.stringify(key)},"fingerprint":"[s-]","at":)\\d+`);
  expect(text).toMatch(line);
  // A new file renamed into place, as the store writes: a reader sees that it changed.
  writeFileSync(`${path}.tmp`, text.replace(line, `$1${Date.now() - hoursAgo * HOUR_MS}`), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/**
 * A fresh data file with two stores on it (as two processes have), both having read it,
 * and its lock held by the test: their creates wait for it together.
 */
async function twoStoresLocked(): Promise<{
  file: string;
  a: SandboxStore;
  b: SandboxStore;
  lock: Awaited<ReturnType<typeof holdLock>>;
}> {
  const file = dataFile();
  const a = open(file);
  const b = open(file);
  await a.read();
  await b.read();
  return { file, a, b, lock: await holdLock(file) };
}

/** Holds the data's lock from the test until `release`; `waited` resolves once a create waits for it. */
async function holdLock(file: string): Promise<{ waited: () => Promise<void>; release: () => Promise<void> }> {
  const lock = new FileLock(file);
  await lock.hold({ deadline: Date.now() + HANG_MS });
  return {
    // A waiter asks the holder to let go by setting the owner file's mtime to 0 (file-lock.ts).
    waited: () =>
      vi.waitFor(() => expect(statSync(ownerFile(`${file}.lock`) ?? 'no owner file').mtimeMs).toBe(0), {
        timeout: HANG_MS,
        interval: 5,
      }),
    release: () => lock.close(),
  };
}

const REX = { name: 'Rex II', categoryId: 9223372036854775807n };
const REX_JSON = '{"name":"Rex II","categoryId":9223372036854775807}';

describe('one server', () => {
  it('the same key and body twice: one pet; the second answer is the first, byte for byte, with Idempotent-Replayed: true', async () => {
    const sandbox = await serve(dataFile());
    const before = await count(sandbox);
    const first = await post(sandbox, REX_JSON, 'order-42');
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    // The category beyond 2^53 is exact: the pet the request is compared with keeps its digits.
    expect(first.body).toBe('{"id":10,"name":"Rex II","categoryId":9223372036854775807,"status":"available"}');
    const second = await post(sandbox, REX_JSON, 'order-42');
    expect(second).toEqual({ ...first, replayed: 'true' });
    expect(await count(sandbox)).toBe(before + 1);
    // Without the header, the same body creates again, as it always did.
    expect((await post(sandbox, REX_JSON)).location).toBe('/v1/pets/11');
    expect(await count(sandbox)).toBe(before + 2);
  });

  it('the same key with another body: 422 idempotency_key_reused, nothing created; a status left out is not `available` sent', async () => {
    const sandbox = await serve(dataFile());
    expect((await post(sandbox, { name: 'Bo', categoryId: 1 }, 'k-422')).status).toBe(201);
    const before = await count(sandbox);
    for (const other of [
      { name: 'Bo', categoryId: 2 },
      { name: 'Bob', categoryId: 1 },
      // Creates the same pet, but the request differs: the body is compared as sent.
      { name: 'Bo', categoryId: 1, status: 'available' },
    ]) {
      const answer = await post(sandbox, other, 'k-422');
      expect(answer.status).toBe(422);
      expect(answer.replayed).toBeNull();
      expect(answer.location).toBeNull();
      expect(problem(answer)).toEqual({
        code: 'idempotency_key_reused',
        message:
          'this Idempotency-Key was already used with another request body within 24 hours; the pet was not created',
        status: 422,
      });
    }
    expect(await count(sandbox)).toBe(before);
    // Members the spec does not name are not part of the request's fingerprint.
    expect((await post(sandbox, { name: 'Bo', categoryId: 1, colour: 'brown' }, 'k-422')).replayed).toBe('true');
  });

  it('the same key while the first request is in flight: 409 idempotency_key_in_use without Retry-After, nothing created by it', async () => {
    const file = dataFile();
    const sandbox = await serve(file);
    const before = await count(sandbox);
    const lock = await holdLock(file);
    const first = post(sandbox, REX_JSON, 'in-flight');
    try {
      await lock.waited();
      const second = await post(sandbox, REX_JSON, 'in-flight');
      expect(second.status).toBe(409);
      expect(second.retryAfter).toBeNull();
      expect(problem(second)).toEqual({
        code: 'idempotency_key_in_use',
        message: 'the first request with this Idempotency-Key is still being answered; the pet was not created',
        status: 409,
      });
      // Another body with that key is refused the same way: the first is still undecided.
      expect((await post(sandbox, { name: 'Other', categoryId: 1 }, 'in-flight')).status).toBe(409);
    } finally {
      await lock.release();
    }
    const answered = await first;
    expect(answered.status).toBe(201);
    expect(answered.replayed).toBeNull();
    expect(await count(sandbox)).toBe(before + 1);
    // Once answered, the key replays.
    expect(await post(sandbox, REX_JSON, 'in-flight')).toEqual({ ...answered, replayed: 'true' });
  });

  it.each([
    ['empty', '', 'is empty'],
    ['256 characters', 'k'.repeat(256), 'is 256 characters long'],
    ['a space', 'order 42', 'holds a character outside that range'],
    ['a tab (a control character)', 'order\t42', 'holds a character outside that range'],
    ['a letter beyond ASCII', 'ordré', 'holds a character outside that range'],
  ])(
    'a key that is %s: 400 invalid_request naming the rule, the key not echoed, nothing created',
    async (_, key, why) => {
      const sandbox = await serve(dataFile());
      const before = await count(sandbox);
      const answer = await post(sandbox, REX_JSON, key);
      expect(answer.status).toBe(400);
      expect(problem(answer)).toEqual({
        code: 'invalid_request',
        message: `the Idempotency-Key header ${why}: it must be 1 to 255 visible ASCII characters (0x21 to 0x7E, no spaces)`,
        status: 400,
      });
      if (key !== '') expect(answer.body).not.toContain(key);
      expect(await count(sandbox)).toBe(before);
    },
  );

  it('a key of 255 visible ASCII characters, every one of them allowed, is taken', async () => {
    const sandbox = await serve(dataFile());
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const key = visible.repeat(3).slice(0, 255);
    const first = await post(sandbox, REX_JSON, key);
    expect(first.status).toBe(201);
    expect((await post(sandbox, REX_JSON, key)).replayed).toBe('true');
  });

  it('the checks come in order: auth, then the body, then the key', async () => {
    const sandbox = await serve(dataFile());
    const unauthorized = await post(sandbox, '{"name":""', 'bad key', { authorization: 'Bearer wrong' });
    expect(problem(unauthorized).code).toBe('unauthorized');
    const badBody = await post(sandbox, '{"name":""', 'bad key');
    expect(problem(badBody)).toMatchObject({ code: 'invalid_request', message: 'the body is not valid JSON' });
  });

  it('answers that failed keep no key: after a 401, 400, 413, 503 or 500 with a key, the key creates afresh', async () => {
    const file = dataFile();
    const sandbox = await serve(file);
    const before = await count(sandbox);
    const key = 'retry-me';
    expect((await post(sandbox, REX_JSON, key, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(sandbox, { name: ' ', categoryId: 1 }, key)).status).toBe(400);
    expect((await post(sandbox, { name: 'x'.repeat(1024 * 1024), categoryId: 1 }, key)).status).toBe(413);
    // 500: the journal is a directory, which the store cannot read.
    rmSync(`${file}.journal`);
    mkdirSync(`${file}.journal`);
    expect(problem(await post(sandbox, REX_JSON, key))).toMatchObject({ code: 'internal_error', status: 500 });
    rmdirSync(`${file}.journal`);
    // 503: another holder keeps the lock for longer than the store waits.
    const impatient = await serve(file, { waitMs: 300 });
    const lock = await holdLock(file);
    try {
      const busy = await post(impatient, { name: 'Other', categoryId: 2 }, key);
      expect(problem(busy).code).toBe('busy');
    } finally {
      await lock.release();
    }
    expect(await count(sandbox)).toBe(before);
    // A different body each time above: none of them was kept, so none is a 422 now.
    const created = await post(sandbox, REX_JSON, key);
    expect(created.status).toBe(201);
    expect(created.replayed).toBeNull();
    expect(await count(sandbox)).toBe(before + 1);
  });
});

describe('keys in the data files', () => {
  it('survive a restart: a new store on the same file replays the first answer', async () => {
    const file = dataFile();
    const before = await serve(file);
    const first = await post(before, REX_JSON, 'restart');
    await stop(before);
    const after = await serve(file);
    expect(await post(after, REX_JSON, 'restart')).toEqual({ ...first, replayed: 'true' });
    expect(await count(after)).toBe(11);
  });

  it('an entry older than 24 hours is as if absent: a new pet, whose key then replays', async () => {
    const file = dataFile();
    const before = await serve(file);
    const old = await post(before, REX_JSON, 'yesterday');
    await stop(before);
    age(`${file}.journal`, 'yesterday', 25);
    const after = await serve(file);
    const fresh = await post(after, REX_JSON, 'yesterday');
    expect(fresh.status).toBe(201);
    expect(fresh.replayed).toBeNull();
    expect(fresh.location).not.toBe(old.location);
    expect(await post(after, REX_JSON, 'yesterday')).toEqual({ ...fresh, replayed: 'true' });
    await stop(after);
    // Two lines hold the key now: the later one counts, after a restart too.
    expect(await post(await serve(file), REX_JSON, 'yesterday')).toEqual({ ...fresh, replayed: 'true' });
  });

  it('are read from snapshot lines written by hand; an aged or malformed entry is ignored, the pet kept', async () => {
    const file = dataFile();
    const entry = (key: string, pet: { name: string; categoryId: number }, hoursAgo: number): string =>
      `"idempotency":{"key":${JSON.stringify(key)},"fingerprint":"${requestFingerprint(pet)}","at":${Date.now() - hoursAgo * HOUR_MS}}`;
    const live = { name: 'Live', categoryId: 1 };
    const old = { name: 'Old', categoryId: 1 };
    writeFileSync(
      file,
      [
        '{"generation":3,"nextId":13,"pets":[',
        `{"id":10,"name":"Live","categoryId":1,"status":"available",${entry('live', live, 23)}},`,
        `{"id":11,"name":"Old","categoryId":1,"status":"available",${entry('old', old, 25)}},`,
        '{"id":12,"name":"Odd","categoryId":1,"status":"available","idempotency":{"key":"odd","fingerprint":"no","at":1}}',
        ']}',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    writeFileSync(`${file}.journal`, '{"generation":3}\n', { mode: 0o600 });
    const sandbox = await serve(file);
    const replay = await post(sandbox, live, 'live');
    expect(replay).toEqual({
      status: 201,
      body: '{"id":10,"name":"Live","categoryId":1,"status":"available"}',
      location: '/v1/pets/10',
      replayed: 'true',
      retryAfter: null,
    });
    expect(await post(sandbox, old, 'old')).toMatchObject({ status: 201, location: '/v1/pets/13', replayed: null });
    expect(await post(sandbox, live, 'odd')).toMatchObject({ status: 201, location: '/v1/pets/14', replayed: null });
    expect(await count(sandbox)).toBe(5);
  });

  it('compaction keeps the live keys on their pets and drops the expired ones', async () => {
    const file = dataFile();
    const first = await serve(file);
    const kept = await post(first, REX_JSON, 'kept');
    const expired = await post(first, { name: 'Gone', categoryId: 1 }, 'expired');
    await stop(first);
    age(`${file}.journal`, 'expired', 25);
    const store = new SandboxStore(file);
    const sandbox = await startSandbox({ store, apiKey: API_KEY });
    running.push(sandbox);
    const generation = (): number => Number(/^\{"generation":(\d+),/.exec(readFileSync(file, 'utf8'))?.[1]);
    const before = generation();
    // Enough creates for the journal to outgrow COMPACT_MIN_BYTES (about 60 bytes each).
    const n = Math.ceil(COMPACT_MIN_BYTES / 55) + 100;
    await Promise.all(Array.from({ length: n }, (_, i) => store.create({ name: `C${i}`, categoryId: i })));
    expect(generation()).toBeGreaterThan(before);
    const snapshot = readFileSync(file, 'utf8');
    expect(snapshot).toMatch(/^\{"id":10,"name":"Rex II",.*,"idempotency":\{"key":"kept",/m);
    expect(snapshot).toMatch(/^\{"id":11,"name":"Gone","categoryId":1,"status":"available"\},$/m);
    expect(snapshot).not.toContain('"expired"');
    expect(await post(sandbox, REX_JSON, 'kept')).toEqual({ ...kept, replayed: 'true' });
    const again = await post(sandbox, { name: 'Gone', categoryId: 1 }, 'expired');
    expect(again).toMatchObject({ status: 201, replayed: null });
    expect(again.location).not.toBe(expired.location);
    await stop(sandbox);
    expect(await post(await serve(file), REX_JSON, 'kept')).toEqual({ ...kept, replayed: 'true' });
  });

  it('a journal removed by hand takes its pets and their keys with it, in a store that had read them', async () => {
    const file = dataFile();
    const sandbox = await serve(file);
    const first = await post(sandbox, REX_JSON, 'journal-gone');
    rmSync(`${file}.journal`);
    expect(await count(sandbox)).toBe(10);
    const again = await post(sandbox, REX_JSON, 'journal-gone');
    expect(again).toMatchObject({ status: 201, replayed: null, location: first.location });
    expect(await count(sandbox)).toBe(11);
  });

  it('a reset forgets every key: the same key then creates a new pet', async () => {
    const file = dataFile();
    const store = new SandboxStore(file);
    const sandbox = await startSandbox({ store, apiKey: API_KEY });
    running.push(sandbox);
    expect((await post(sandbox, REX_JSON, 'before-reset')).status).toBe(201);
    await store.reset();
    expect(readFileSync(file, 'utf8')).not.toContain('idempotency');
    expect(await count(sandbox)).toBe(10);
    const after = await post(sandbox, REX_JSON, 'before-reset');
    expect(after).toMatchObject({ status: 201, replayed: null });
    expect(await count(sandbox)).toBe(11);
  });

  it('no answer of listPets or getPet shows the idempotency member the files keep', async () => {
    const file = dataFile();
    const before = await serve(file);
    const created = await post(before, REX_JSON, 'hidden');
    expect(created.body).not.toContain('idempotency');
    await stop(before);
    expect(readFileSync(`${file}.journal`, 'utf8')).toContain('"idempotency":{"key":"hidden"');
    // A new store reads the pets from their lines, the member with them.
    const sandbox = await serve(file);
    const replay = await post(sandbox, REX_JSON, 'hidden');
    expect(replay.body).toBe(created.body);
    for (const page of await listPages(sandbox)) expect(page).not.toContain('idempotency');
    const get = await fetch(`${sandbox.baseUrl}/pets/10`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(await get.text()).toBe(created.body);
  });
});

describe('several stores on one file, as several processes', () => {
  it('two servers sent one key at once: exactly one pet, the other answer its replay', async () => {
    const file = dataFile();
    const a = await serve(file);
    const b = await serve(file);
    expect(await count(a)).toBe(10);
    const answers = await Promise.all([post(a, REX_JSON, 'shared'), post(b, REX_JSON, 'shared')]);
    expect(answers.map((r) => r.status)).toEqual([201, 201]);
    expect(answers.map((r) => r.replayed).sort()).toEqual([null, 'true']);
    expect(answers[0].body).toBe(answers[1].body);
    expect(await count(a)).toBe(11);
    expect(await count(b)).toBe(11);
  });

  it('two stores whose creates wait for the lock together: the key is decided under it, one pet', async () => {
    const { file, a, b, lock } = await twoStoresLocked();
    const idempotency = { key: 'both', fingerprint: requestFingerprint(REX) };
    const waiting = [a.create(REX, { idempotency }), b.create(REX, { idempotency })];
    try {
      await lock.waited();
    } finally {
      await lock.release();
    }
    const results = await Promise.all(waiting);
    expect(results.map((r) => r.replayed).sort()).toEqual([false, true]);
    expect(results[0]?.pet).toEqual(results[1]?.pet);
    expect((await open(file).read()).pets).toHaveLength(11);
  });

  it('one batch holding a key twice, and another store: one pet, replays, and a 422 for another body', async () => {
    const { file, a, b, lock } = await twoStoresLocked();
    const same = { key: 'batch', fingerprint: requestFingerprint(REX) };
    const other = { name: 'Not Rex', categoryId: 1 };
    // Called in one turn of the event loop: the first store appends its three in one batch.
    const waiting = [
      a.create(REX, { idempotency: same }),
      a.create(REX, { idempotency: same }),
      a.create(other, { idempotency: { key: 'batch', fingerprint: requestFingerprint(other) } }),
      b.create(REX, { idempotency: same }),
    ];
    try {
      await lock.waited();
    } finally {
      await lock.release();
    }
    const settled = await Promise.allSettled(waiting);
    const made = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(made).toHaveLength(3);
    expect(made.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of made) expect(r.pet).toEqual(made[0]?.pet);
    expect(settled[2]).toMatchObject({ status: 'rejected', reason: expect.any(IdempotencyKeyReusedError) as unknown });
    expect((await open(file).read()).pets).toHaveLength(11);
  });
});

describe('pet lines', () => {
  it('carry the key after the spec fields, and read back exactly whatever digits the line holds', () => {
    const pets = [
      { id: 9007199254740993n, name: 'Atlas', categoryId: 9223372036854775807n, status: 'available' as const },
      { id: 12, name: '1234567890123456789', categoryId: 1, status: 'sold' as const },
    ];
    const keys: KeyedLines = new Map([
      [0, { key: 'a:12345678901234567890', fingerprint: 's', at: 1764892800000 }],
      [1, { key: '9007199254740993', fingerprint: '-', at: 1764892800001 }],
    ]);
    const text = encodeSnapshot({ generation: 2, nextId: 13n, pets, keys });
    expect(text.split('\n')[1]).toBe(
      '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"available","idempotency":{"key":"a:12345678901234567890","fingerprint":"s","at":1764892800000}},',
    );
    expect(decodeSnapshot(text)).toEqual({ generation: 2, nextId: 13n, pets, keys });
    const journal = Buffer.from(pets.map((p, i) => encodePet(p, keys.get(i)) + '\n').join(''));
    expect(decodeJournalPets(journal)).toEqual({ pets, keys, consumed: journal.length });
  });
});

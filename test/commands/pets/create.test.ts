/**
 * `pets create`, one pet (`--name`, `--category-id`) or many (`--from-file`, cli-contract.md
 * "Bulk create"). One pet: under the one retry policy ("Network behaviour": a 429 is a
 * refusal, sent again once its `Retry-After` has passed; a POST whose outcome is unknown is
 * never sent twice), against the sandbox, and its `Sunset` warning. Many: strict validation
 * before anything is sent; creation with requests in flight against pet servers that answer
 * out of order, refuse with 429, close kept-alive connections or fail several records at once
 * (the created pets printed in input order, every record created once, the account exact);
 * a resumable stop at the first failure that never creates a pet twice; `--jq` failing on
 * created pets; `--concurrency` refused outside 1-32. And the sandbox journal a create appends
 * to: a torn last line, older generations, data files edited by hand. In-process (`runMain`).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ShutdownRegistry } from '../../../src/base/shutdown.js';
import {
  daysUntil,
  inSandbox,
  lastJson,
  operationNamed,
  remoteEnv,
  sandboxCreated,
  sandboxListed,
} from '../../helpers/harness.js';
import {
  gate,
  inLineOrder,
  lineOf,
  petInput,
  petNames,
  petRecords,
  printedNames,
  startPetServer,
  type PetAnswer,
  type PetServer,
} from '../../helpers/pet-server.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import {
  errorReply,
  serverPool,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from '../../helpers/test-server.js';

const KEY = 'pst_create_one_4Jk8Wn2Qx5';
/** How a warning names createPet: `createPet (POST /pets)`. */
const CREATE_PET_NAMED = operationNamed('createPet');
const servers: PetServer[] = [];
const bulkServers: TestServer[] = [];
const { start: startServer, closeAll: closeServers } = serverPool();

afterAll(async () => {
  await Promise.all([...servers, ...bulkServers].map((s) => s.close()));
  await closeServers();
  removeTempDirs();
});

/** A pet server (test/helpers/pet-server.ts) closed when the file ends. */
async function petServer(decide?: Parameters<typeof startPetServer>[0], opts?: TestServerOptions): Promise<PetServer> {
  const s = await startPetServer(decide, opts);
  servers.push(s);
  return s;
}

/** `pets create --name Rex --category-id 7 -o ndjson ...flags` against `s`. */
function createRex(s: PetServer, ...flags: string[]) {
  return runMain(['pets', 'create', '--name', 'Rex', '--category-id', '7', '-o', 'ndjson', ...flags], {
    env: remoteEnv(s.baseUrl, KEY),
  });
}

/** `pets create --name NAME --category-id ID ...flags` in the sandbox of `dir`. */
function createIn(dir: string, name: string, categoryId: string, ...flags: string[]) {
  return inSandbox(dir, ['pets', 'create', '--name', name, '--category-id', categoryId, ...flags]);
}

/** A test server that creates pets with ids from 101, answering `failAt` (1-based POST count) with `fail`. */
async function failingServer(fail?: { at: number; reply: 'error500' | 'error400' | 'destroy' }): Promise<TestServer> {
  let nextId = 101;
  let posts = 0;
  const server = await startTestServer((req, res) => {
    if (req.method !== 'POST') return { status: 405, body: { code: 'method', message: 'no', status: 405 } };
    posts++;
    if (fail !== undefined && posts === fail.at) {
      if (fail.reply === 'destroy') {
        res.destroy();
        return undefined;
      }
      return fail.reply === 'error500'
        ? errorReply(500, 'internal_error', 'database unavailable')
        : errorReply(400, 'invalid_request', 'invalid name');
    }
    const body = JSON.parse(req.body) as Record<string, unknown>;
    // Echo categoryId textually so int64 values stay exact.
    const cat = /"categoryId":(-?\d+)/.exec(req.body)?.[1] ?? '0';
    const id = nextId++;
    return {
      status: 201,
      raw: `{"id":${id},"name":${JSON.stringify(body.name)},"categoryId":${cat},"status":${JSON.stringify(body.status ?? 'available')}}`,
    };
  });
  bulkServers.push(server);
  return server;
}

function posts(s: TestServer): string[] {
  return s.requests.filter((r) => r.method === 'POST').map((r) => r.body);
}

const SIX =
  ['Rex', 'Kiwi', 'Polly', 'Shadow', 'Nibbles', 'Bubbles']
    .map((name, i) => JSON.stringify({ name, categoryId: i + 1 }))
    .join('\n') + '\n';

/** A new file `name` in a temp dir holding SIX; its path. */
function sixRecordsIn(name: string): string {
  const file = join(tempDir(), name);
  writeFileSync(file, SIX);
  return file;
}

/** `pets create --from-file` of SIX (in a new file) against a `failingServer(fail)`. */
async function createSix(fail: Parameters<typeof failingServer>[0], ...flags: string[]) {
  const server = await failingServer(fail);
  const file = sixRecordsIn('pets.ndjson');
  const r = await runMain(['pets', 'create', '--from-file', file, ...flags], { env: remoteEnv(server.baseUrl, KEY) });
  return { server, file, r };
}

/** The names in an NDJSON file. */
const namesIn = (file: string): string[] => printedNames(readFileSync(file, 'utf8'));

/** Line ranges of names (consecutive lines joined), as the account gives them. */
function ranges(names: string[]): { lines: [number, number] }[] {
  const out: { lines: [number, number] }[] = [];
  for (const line of inLineOrder(names).map(lineOf)) {
    const last = out[out.length - 1];
    if (last !== undefined && last.lines[1] + 1 === line) last.lines[1] = line;
    else out.push({ lines: [line, line] });
  }
  return out;
}

/** A 429 with an API Error body and `Retry-After: seconds`. */
function refusal(seconds: string): PetAnswer {
  return { ...errorReply(429, 'rate_limited', 'slow down'), headers: { 'retry-after': seconds } };
}

/**
 * Holds requests until `batch(answeredSoFar)` of them wait, then answers them all, the last
 * to come first: answers come back in the reverse of the order they were sent.
 */
function reversedBatches(batch: (answered: number) => number): () => Promise<PetAnswer> {
  let held: (() => void)[] = [];
  let answered = 0;
  return () =>
    new Promise<PetAnswer>((resolve) => {
      held.push(() => resolve('create'));
      if (held.length < batch(answered)) return;
      const now = held.reverse();
      held = [];
      answered += now.length;
      // One after another, each on a later turn, so each answer really leaves after the one before.
      const next = (): void => {
        now.shift()?.();
        if (now.length > 0) setImmediate(next);
      };
      next();
    });
}

/** Every line of the journal is whole and is JSON. */
function expectWholeLines(journal: string): string[] {
  expect(journal.endsWith('\n')).toBe(true);
  const lines = journal.slice(0, -1).split('\n');
  for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
  return lines;
}

describe('pets create and the retry policy', () => {
  it('a 429 with Retry-After: 1 is a refusal: sent again no sooner, the pet created once', async () => {
    let refusedAt = 0;
    let waited = 0;
    const srv = await petServer(({ attempt }): PetAnswer => {
      if (attempt === 1) {
        refusedAt = performance.now();
        return { ...errorReply(429, 'rate_limited', 'slow down'), headers: { 'retry-after': '1' } };
      }
      waited = performance.now() - refusedAt;
      return 'create';
    });
    const r = await createRex(srv);
    expect(r.code, r.stderr).toBe(0);
    expect(srv.received()).toEqual(['Rex', 'Rex']);
    expect(srv.created()).toEqual(['Rex']);
    // The server's own clock: the second POST came at least a second after the refusal.
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(JSON.parse(r.stdout) as unknown).toMatchObject({ id: 1000, name: 'Rex', categoryId: 7 });
  });

  it('a POST whose outcome is unknown (the connection reset after it was sent) is never sent again', async () => {
    const srv = await petServer(() => 'destroy');
    const r = await createRex(srv, '--retries', '5');
    expect(r.code).toBe(3);
    expect(srv.received()).toEqual(['Rex']);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'network', status: 0 });
    expect(r.stderr).toContain('the pet may have been created');
  });
});

describe.concurrent('one pet', () => {
  it('create then get in a later run returns the same animal; default status is available', async () => {
    const dir = tempDir();
    const created = await createIn(dir, 'Biscuit', '9223372036854775807', '--json');
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe(
      '{\n  "id": 10,\n  "name": "Biscuit",\n  "categoryId": 9223372036854775807,\n  "status": "available"\n}\n',
    );
    const got = await inSandbox(dir, ['pets', 'get', '10', '--output', 'ndjson']);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('{"id":10,"name":"Biscuit","categoryId":9223372036854775807,"status":"available"}\n');

    const second = await createIn(dir, 'Tab\there', '-3', '--status', 'sold');
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('11\tTab\\there\t-3\tsold\n');
    const listed = await inSandbox(dir, ['pets', 'list', '--status', 'sold']);
    expect(listed.stdout).toBe('4\tPolly\t4\tsold\n8\tBuddy\t1\tsold\n11\tTab\\there\t-3\tsold\n');
  });

  it('warns on create when the answer carries a Sunset header', async () => {
    const server = await startServer(() => ({
      status: 201,
      body: { id: 7, name: 'Rex', categoryId: 1, status: 'available' },
      headers: { sunset: 'Sat, 01 Jan 2050 00:00:00 GMT' },
    }));
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }).id).toBe(7);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `${CREATE_PET_NAMED} is deprecated and will be removed on 2050-01-01 (in ${daysUntil('2050-01-01T00:00:00Z').toLocaleString('en-US')} days)`,
    });
  });
});

describe.concurrent('pets create --from-file', () => {
  it('stops at a 500 half-way, saves the rest, and a re-run creates each remaining pet exactly once', async () => {
    // One request at a time (today's --concurrency 1): the stop comes at a known record.
    const { server, file, r } = await createSix(
      { at: 4, reply: 'error500' },
      '--output',
      'ndjson',
      '--concurrency',
      '1',
    );
    expect(r.code).toBe(1);
    expect(posts(server)).toHaveLength(4);
    // The created pets are on stdout, one line each, as they were created.
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: unknown }).id),
    ).toEqual([101, 102, 103]);
    // In ndjson mode stderr is one JSON error object.
    const err = JSON.parse(r.stderr.trim()) as { code: string; message: string; status: number };
    expect(err.code).toBe('internal_error');
    expect(err.status).toBe(500);
    const remaining = `${file}.remaining.ndjson`;
    expect(err.message).toContain(remaining);
    expect(err.message).toContain('3 created');
    expect(statSync(remaining).mode & 0o777).toBe(0o600);
    expect(readFileSync(remaining, 'utf8')).toBe(SIX.split('\n').slice(3).join('\n'));

    const fresh = await failingServer();
    const again = await runMain(['pets', 'create', '--from-file', remaining, '--output', 'ndjson'], {
      env: remoteEnv(fresh.baseUrl, KEY),
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(posts(fresh).map((b) => (JSON.parse(b) as { name: string }).name)).toEqual(['Shadow', 'Nibbles', 'Bubbles']);
  });

  it('reports the created lines, the failed record and the remaining file in plain text', async () => {
    const { server, file, r } = await createSix({ at: 3, reply: 'error400' }, '--concurrency', '1');
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('101\tRex\t1\tavailable\n102\tKiwi\t2\tavailable\n');
    expect(unwrapped(r.stderr)).toContain(
      'error: stopped at record 3 of 6 (line 3), not created: invalid name (invalid_request, HTTP 400)',
    );
    expect(unwrapped(r.stderr)).toContain('created 2: lines 1-2 failed 1');
    expect(unwrapped(r.stderr)).toContain('failed 1: line 3, not created');
    expect(unwrapped(r.stderr)).toContain('not sent 3');
    expect(unwrapped(r.stderr)).toContain(`the 4 records not created are in ${file}.remaining.ndjson`);
    expect(unwrapped(r.stderr)).toContain(`petstore pets create --from-file ${file}.remaining.ndjson`);
    expect(posts(server)).toHaveLength(3);
  });

  it('counts in the account with thousands separated; line numbers as they are', async () => {
    const server = await failingServer({ at: 1201, reply: 'error400' });
    const file = join(tempDir(), 'many.ndjson');
    writeFileSync(file, Array.from({ length: 2500 }, (_, i) => `{"name":"P${i + 1}","categoryId":1}\n`).join(''));
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(6);
    const err = unwrapped(r.stderr);
    expect(err).toContain(
      'error: stopped at record 1,201 of 2,500 (line 1201), not created: invalid name (invalid_request, HTTP 400)',
    );
    expect(err).toContain('created 1,200: lines 1-1200');
    expect(err).toContain('failed 1: line 1201, not created');
    expect(err).toContain('not sent 1,299');
    expect(err).toContain(`the 1,300 records not created are in ${file}.remaining.ndjson`);
    expect(posts(server)).toHaveLength(1201);
  });

  it('never retries nor saves a record whose POST may have reached the server', async () => {
    const { server, file, r } = await createSix({ at: 2, reply: 'destroy' }, '--retries', '3', '--concurrency', '1');
    expect(r.code).toBe(3);
    expect(posts(server)).toHaveLength(2);
    expect(unwrapped(r.stderr)).toContain('stopped at record 2 of 6 (line 2), which may have been created');
    expect(unwrapped(r.stderr)).toContain('unknown 1: line 2: the request may have reached the server');
    expect(unwrapped(r.stderr)).toContain('not sent 4');
    expect(unwrapped(r.stderr)).toContain(`the 4 records not created are in ${file}.remaining.ndjson`);
    const rest = readFileSync(`${file}.remaining.ndjson`, 'utf8');
    expect(rest).not.toContain('Kiwi');
    expect(
      rest
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { name: string }).name),
    ).toEqual(['Polly', 'Shadow', 'Nibbles', 'Bubbles']);
  });

  it('saves every record when the server cannot be reached at all (nothing was sent)', async () => {
    const file = sixRecordsIn('p.ndjson');
    const r = await runMain(['pets', 'create', '--from-file', file], {
      env: remoteEnv('http://127.0.0.1:1/v1', KEY),
    });
    expect(r.code).toBe(3);
    // Four requests in flight (the default) fail together; the account names the first.
    expect(unwrapped(r.stderr)).toContain('stopped at record 1 of 6 (line 1), not created: cannot reach 127.0.0.1:1');
    expect(unwrapped(r.stderr)).toContain('failed 4: lines 1-4, not created');
    expect(unwrapped(r.stderr)).toContain('not sent 2');
    expect(readFileSync(`${file}.remaining.ndjson`, 'utf8')).toBe(SIX);
  });

  it('reads a JSON array from stdin, prints one JSON array, keeps int64 exact', async () => {
    const server = await failingServer();
    const input =
      '[\n  {"name": "Big", "categoryId": 9223372036854775807},\n  {"name": "Small", "categoryId": -9223372036854775808, "status": "sold"}\n]\n';
    const r = await runMain(['pets', 'create', '--from-file', '-', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
      input,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"categoryId": 9223372036854775807');
    expect(r.stdout).toContain('"categoryId": -9223372036854775808');
    expect(posts(server)).toEqual([
      '{"name":"Big","categoryId":9223372036854775807}',
      '{"name":"Small","categoryId":-9223372036854775808,"status":"sold"}',
    ]);
  });

  it('saves what remains of stdin input in the current directory, mode 0600, never over a file', async () => {
    const server = await failingServer({ at: 2, reply: 'error500' });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'stdin.remaining.ndjson'), 'mine\n');
    const r = await runMain(['pets', 'create', '--from-file', '-', '--concurrency', '1'], {
      env: remoteEnv(server.baseUrl, KEY),
      input: SIX,
      cwd,
    });
    expect(r.code).toBe(1);
    const path = join(cwd, 'stdin.remaining-2.ndjson');
    expect(unwrapped(r.stderr)).toContain(`are in ${path}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(SIX.split('\n').slice(1).join('\n'));
    expect(readFileSync(join(cwd, 'stdin.remaining.ndjson'), 'utf8')).toBe('mine\n');
  });

  it('refuses invalid records with every problem and its line, and sends nothing', async () => {
    const server = await failingServer();
    const input = [
      '[',
      '  {"name": "Rex", "categoryId": 1},',
      '  {"name": "Kiwi", "categoryid": 2},',
      '  {"name": "Polly",',
      '   "categoryId": 1.5},',
      '  {"name": 7, "categoryId": "3", "status": "lost"},',
      '  "Shadow",',
      '  {"name": "Big", "categoryId": 9223372036854775808}',
      ']',
    ].join('\n');
    const r = await runMain(['pets', 'create', '--from-file', '-'], { env: remoteEnv(server.baseUrl, KEY), input });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
    expect(unwrapped(r.stderr)).toContain('5 invalid records; nothing was sent');
    expect(unwrapped(r.stderr)).toContain(
      'line 3: categoryId is missing (an int64 is required); unknown field "categoryid" (did you mean categoryId?)',
    );
    expect(unwrapped(r.stderr)).toContain('line 4: categoryId must be an integer');
    expect(unwrapped(r.stderr)).toMatch(
      /line 6: name must be a string; categoryId must be an integer .*got "3"; status must be one of available, pending, sold, got "lost"/,
    );
    expect(unwrapped(r.stderr)).toContain('line 7: must be a JSON object');
    expect(unwrapped(r.stderr)).toContain('line 8: categoryId must be an integer');
    expect(r.stderr).not.toContain('line 2:');
  });

  it('reports NDJSON syntax errors by line, blank lines allowed', async () => {
    const server = await failingServer();
    const dir = tempDir();
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":}\n{"name":"C","categoryId":3}\n');
    const r = await runMain(['pets', 'create', '--from-file', file], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('1 invalid record; nothing was sent');
    expect(unwrapped(r.stderr)).toContain('line 3: not valid JSON');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [
      ['--from-file', 'x.ndjson', '--name', 'Rex'],
      "option '--from-file <file>' cannot be used with option '--name <name>'",
    ],
    [
      ['--from-file', 'x.ndjson', '--category-id', '1', '--status', 'sold'],
      "option '--from-file <file>' cannot be used with option '--category-id <id>'",
    ],
    [['--from-file', '/nonexistent/pets.ndjson'], 'cannot read --from-file "/nonexistent/pets.ndjson": no such file'],
  ])('%j is a usage error and sends nothing', async (args, message) => {
    const server = await failingServer();
    const r = await runMain(['pets', 'create', ...args], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses empty input', async () => {
    const server = await failingServer();
    const r = await runMain(['pets', 'create', '--from-file', '-'], {
      env: remoteEnv(server.baseUrl, KEY),
      input: '  \n',
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('no records');
    expect(server.requests).toHaveLength(0);
  });

  it('creates every record against the sandbox, in order', async () => {
    const dir = tempDir();
    const file = join(dir, 'p.json');
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'Alpha', categoryId: 9 },
        { name: 'Beta', categoryId: 9, status: 'pending' },
      ]),
    );
    const r = await inSandbox(dir, ['pets', 'create', '--from-file', file, '--output', 'ndjson']);
    expect(r.code).toBe(0);
    const pets = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; status: string });
    expect(pets.map((p) => p.name)).toEqual(['Alpha', 'Beta']);
    expect(pets[1]!.status).toBe('pending');
    expect(existsSync(`${file}.remaining.ndjson`)).toBe(false);
  });
});

// The file's first test also loads the CLI's modules: a loaded machine took 10 s; only a
// hang takes two minutes.
describe('input order', { timeout: 120_000 }, () => {
  it.each([
    ['the default (4)', [] as string[], 4, 'ndjson'],
    ['--concurrency 16', ['--concurrency', '16'], 16, 'json'],
  ] as const)('%s in flight, answers in reverse order: printed in input order', async (_, flags, n, format) => {
    const records = 48;
    const srv = await petServer(reversedBatches((answered) => Math.min(n, records - answered)));
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', format, ...flags], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.maxPending()).toBe(n);
    // The server created them out of order...
    expect(srv.created()).not.toEqual(petNames(1, records));
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    // ... and they are printed in input order, once each.
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });

  it('--concurrency 1 is one request at a time', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(20);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1', '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.maxPending()).toBe(1);
    expect(srv.created()).toEqual(petNames(1, 20));
    expect(printedNames(r.stdout)).toEqual(petNames(1, 20));
  });
});

describe('429: a refusal, sent again after Retry-After, fewer requests in flight', () => {
  it('Retry-After: 1 to every fifth first attempt: every record created once, in order, none sent again sooner', async () => {
    const refusedAt = new Map<string, number>();
    const early: string[] = [];
    let firsts = 0;
    const srv = await petServer(({ name, attempt }) => {
      if (attempt === 1 && ++firsts % 5 === 0) {
        refusedAt.set(name, performance.now());
        return refusal('1');
      }
      // The server checks the wait itself: its own clock, from the refusal it sent.
      const at = refusedAt.get(name);
      if (at !== undefined && performance.now() - at < 1000) early.push(name);
      return 'create';
    });
    const records = 30;
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(refusedAt.size).toBe(records / 5);
    expect(early).toEqual([]);
    expect(srv.created().length).toBe(records);
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    for (const name of refusedAt.keys()) expect(srv.received().filter((n) => n === name)).toHaveLength(2);
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });

  it("a Retry-After past the record's --timeout is not waited for: that record failed (429), the rest accounted", async () => {
    // 20 s for each record (the others must be answered within it, however loaded the
    // machine) and a Retry-After of 50 s, past it and under the 60 s cap.
    const srv = await petServer(({ name }) => (name === 'P2' ? refusal('50') : 'create'));
    const { dir, file } = petInput(10);
    const r = await runMain(['pets', 'create', '--from-file', file, '--timeout', '20', '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(1);
    expect(srv.received().filter((n) => n === 'P2')).toHaveLength(1);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({
      code: 'rate_limited',
      status: 429,
      failed: [{ line: 2, code: 'rate_limited', status: 429 }],
      unknown: [],
      created: srv.created().length,
      createdRanges: ranges(srv.created()),
    });
    // Records sent with P2 were created; P2 and the records never sent are in the remaining file.
    const notReceived = petNames(1, 10).filter((n) => !srv.received().includes(n));
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(inLineOrder(['P2', ...notReceived]));
    expect(printedNames(r.stdout)).toEqual(inLineOrder(srv.created()));
  });

  it("a Retry-After longer than what the record's deadline leaves ends that record at once, naming the wait and the time left", async () => {
    // --timeout 10 for each record. P2 is refused twice with Retry-After: 6: the first wait
    // fits in its 10 s and is waited for; the second, 6 s with about 4 s left of that
    // record's deadline (not of a fresh 10 s), is not: P2 fails with the server's code at
    // once. A third attempt would have been created.
    const sentAt: number[] = [];
    const srv = await petServer(({ name, attempt }) => {
      if (name !== 'P2') return 'create';
      sentAt.push(performance.now());
      return attempt <= 2 ? refusal('6') : 'create';
    });
    const { dir, file } = petInput(3);
    const started = performance.now();
    const r = await runMain(['pets', 'create', '--from-file', file, '--timeout', '10', '-o', 'json'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    const ended = performance.now();
    expect(r.code, r.stderr).toBe(1);
    expect(srv.received().filter((n) => n === 'P2')).toHaveLength(2);
    // The first Retry-After was waited for; after the second refusal nothing waited for its 6 s
    // (nor for the deadline: that would have been a timeout, exit 3).
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(5900);
    expect(ended - sentAt[1]!).toBeLessThan(4000);
    expect(ended - started).toBeLessThan(10_000 + 4000);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({
      code: 'rate_limited',
      status: 429,
      retryAfter: 6,
      failed: [{ line: 2, code: 'rate_limited', status: 429, retryAfter: 6 }],
      unknown: [],
    });
    const failed = (account.failed as { message: string }[])[0]!;
    expect(failed.message).toMatch(/^slow down; the server asks to wait 6 s; --timeout leaves [0-4](\.\d+)? s$/);
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(['P2', ...(srv.received().includes('P3') ? [] : ['P3'])]);

    expect(account.message).toMatch(
      /not created: slow down; the server asks to wait 6 s; --timeout leaves [0-4](\.\d+)? s \(rate_limited, HTTP 429\)/,
    );
  });

  it('after a round of refusals the run keeps half as many requests in flight, then raises it', async () => {
    // 8 in flight, all refused together (Retry-After: 0): the limit halves once, to 4, and
    // grows by one per window of successes (see InFlightLimit).
    const first = gate();
    let refused = 0;
    const afterRefusals: number[] = [];
    const srv = await petServer(async ({ pending, count }) => {
      if (count <= 8) {
        if (count === 8) first.open();
        await first.promise;
        refused++;
        return refusal('0');
      }
      afterRefusals.push(pending);
      await new Promise((r) => setTimeout(r, 5));
      return 'create';
    });
    const records = 40;
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '8', '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(refused).toBe(8);
    // The requests sent right after the refusals: never more than 5 at once (4, then 5 after
    // four successes), where 8 were before.
    expect(Math.max(...afterRefusals.slice(0, 10))).toBeLessThanOrEqual(5);
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });
});

// 300 requests, each on a new connection: a loaded machine took 9 s; only a hang takes two minutes.
describe('connections', { timeout: 120_000 }, () => {
  it.each([
    ['the default (4)', [] as string[]],
    ['--concurrency 1', ['--concurrency', '1']],
  ] as const)(
    '%s: a server closing kept-alive connections a few ms after answering: 300 of 300 created',
    async (_, flags) => {
      const srv = await petServer(undefined, { closeIdleAfterMs: 2 });
      const { dir, file } = petInput(300);
      const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson', ...flags], {
        env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      });
      expect(r.code, r.stderr.slice(0, 500)).toBe(0);
      expect(srv.created()).toHaveLength(300);
      expect(inLineOrder(srv.created())).toEqual(petNames(1, 300));
      expect(printedNames(r.stdout)).toEqual(petNames(1, 300));
      // Each POST on a connection of its own, closed after its answer.
      expect(srv.requests.every((q) => q.headers.connection === 'close')).toBe(true);
    },
  );

  it('PETSTORE_BULK_CONNECTIONS=keep-alive reuses connections; another value is refused', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(20);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_BULK_CONNECTIONS: 'keep-alive' }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests.every((q) => q.headers.connection === 'keep-alive')).toBe(true);
    const bad = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson', '--force'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_BULK_CONNECTIONS: 'sometimes' }),
    });
    expect(bad.code).toBe(2);
    expect(lastJson(bad.stderr).message).toBe(
      'invalid PETSTORE_BULK_CONNECTIONS "sometimes": must be one of fresh, keep-alive',
    );
    expect(srv.requests).toHaveLength(20);
  });
});

describe('a stop with several requests in flight', () => {
  const decide = () => {
    const all = gate();
    const fifthAnswered = gate();
    let held = 0;
    return async ({ name }: { name: string }): Promise<PetAnswer> => {
      if (!['P5', 'P6', 'P7', 'P8'].includes(name)) return 'create';
      if (++held === 4) all.open();
      await all.promise;
      if (name === 'P5') {
        setTimeout(() => fifthAnswered.open(), 100);
        return errorReply(400, 'invalid_request', 'invalid name');
      }
      await fifthAnswered.promise;
      return name === 'P6' ? 'create' : name === 'P7' ? 'destroy' : errorReply(400, 'invalid_request', 'name taken');
    };
  };

  it('in JSON: created, failed, unknown and not sent, exactly as the server saw them; the remaining file in input order', async () => {
    const srv = await petServer(decide());
    const { dir, file } = petInput(12);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(6);
    const received = new Set(srv.received());
    const notSent = petNames(1, 12).filter((n) => !received.has(n));
    // What the server decided, whatever order the answers came in.
    expect(srv.answered('error')).toEqual(expect.arrayContaining(['P5', 'P8']));
    expect(srv.answered('destroyed')).toEqual(['P7']);
    expect(srv.created()).toEqual(expect.arrayContaining(['P1', 'P2', 'P3', 'P4', 'P6']));
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({
      code: 'invalid_request',
      status: 400,
      records: 12,
      created: srv.created().length,
      createdRanges: ranges(srv.created()),
      failed: [
        { line: 5, code: 'invalid_request', message: 'invalid name', status: 400 },
        { line: 8, code: 'invalid_request', message: 'name taken', status: 400 },
      ],
      unknown: [{ line: 7, code: 'network', status: 0 }],
      notSent: notSent.length,
      remaining: 2 + notSent.length,
      remainingFile: `${file}.remaining.ndjson`,
      remainingRanges: ranges(['P5', 'P8', ...notSent]),
    });
    expect(account.message).toMatch(/^stopped at record 5 of 12 \(line 5\), not created: invalid name/);
    // Every record once: created, failed, unknown or not sent.
    expect(srv.created().length + 2 + 1 + notSent.length).toBe(12);
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(['P5', 'P8', ...notSent]);
    expect(printedNames(r.stdout)).toEqual(inLineOrder(srv.created()));
  });

  it('for people: several failed and unknown at one stop, in a few lines', async () => {
    const srv = await petServer(decide());
    const { dir, file } = petInput(12);
    const r = await runMain(['pets', 'create', '--from-file', file], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(6);
    const err = unwrapped(r.stderr);
    expect(err).toMatch(
      /^error: stopped at record 5 of 12 \(line 5\), not created: invalid name \(invalid_request, HTTP 400\)/,
    );
    expect(err).toContain(`created ${srv.created().length}: lines 1-4, 6`);
    expect(err).toContain('failed 2: lines 5, 8, not created');
    expect(err).toContain('unknown 1: line 7: the request may have reached the server');
    expect(err).toContain(`the ${12 - srv.created().length - 1} records not created are in ${file}.remaining.ndjson`);
  });

  it('at a signal, stdout read slowly: every pet created is printed, the last ones once it is read again', async () => {
    const srv = await petServer();
    const controller = new AbortController();
    // The bulk create waits half the grace (1 s here) for answers under way and for stdout,
    // then stops waiting; reading resumes later than that.
    const shutdown = new ShutdownRegistry(2000);
    const reading = gate();
    const { dir, file } = petInput(12);
    const run = runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      signal: controller.signal,
      shutdown,
      stdoutReadFrom: reading.promise,
    });
    // The first pet's line waits for the reader; the default 4 in flight are sent meanwhile.
    while (srv.created().length < 4) await new Promise((r) => setTimeout(r, 5));
    controller.abort('SIGINT');
    setTimeout(() => reading.open(), 1500);
    const r = await run;
    expect(r.code).toBe(130);
    const account = lastJson(r.stderr) as ReturnType<typeof lastJson> & { idsNotPrinted: { line: number }[] };
    expect(account).toMatchObject({ code: 'interrupted', created: srv.created().length });
    // Not one line was read when the account was made: it names every pet created, with its id.
    expect(account.idsNotPrinted.map((p) => p.line)).toEqual(srv.created().map(lineOf));
    expect(printedNames(r.stdout)).toEqual(srv.created());
    expect(srv.created()).toEqual(petNames(1, srv.created().length));
  });

  it('at a signal: the answers under way are awaited; those still out when the grace is over are unknown', async () => {
    const all = gate();
    const never = gate<PetAnswer>();
    let held = 0;
    const srv = await petServer(async ({ name }) => {
      if (!['P5', 'P6', 'P7', 'P8'].includes(name)) return 'create';
      if (++held === 4) all.open();
      await all.promise;
      // P5 and P6 answer as soon as the signal has come; P7 and P8 never do.
      if (name === 'P5' || name === 'P6') {
        await interrupted.promise;
        return 'create';
      }
      return never.promise;
    });
    const interrupted = gate();
    const controller = new AbortController();
    // The bulk create waits half the grace (1 s here) for answers under way.
    const shutdown = new ShutdownRegistry(2000);
    const { dir, file } = petInput(12);
    const run = runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      signal: controller.signal,
      shutdown,
    });
    await all.promise;
    controller.abort('SIGINT');
    interrupted.open();
    const r = await run;
    never.open('destroy');
    expect(r.code).toBe(130);
    expect(srv.created()).toEqual(expect.arrayContaining(petNames(1, 6)));
    expect(srv.created()).toHaveLength(6);
    expect(lastJson(r.stderr)).toMatchObject({
      code: 'interrupted',
      created: 6,
      createdRanges: [{ lines: [1, 6] }],
      failed: [],
      unknown: [
        { line: 7, code: 'interrupted' },
        { line: 8, code: 'interrupted' },
      ],
      notSent: 4,
      remaining: 4,
      remainingFile: `${file}.remaining.ndjson`,
    });
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(petNames(9, 12));
    expect(printedNames(r.stdout)).toEqual(petNames(1, 6));
  });
});

describe("the account's commands at 60, 80 and 120 columns", () => {
  /** stderr as a terminal shows it at the end: the progress line's drawings taken out. */
  // eslint-disable-next-line no-control-regex -- the progress line's escape sequences are what is taken out
  const screenOf = (stderr: string): string => stderr.replace(/\r[^\r\n]*?\x1b\[K/g, '');
  /** Lines wider than `width`, but for a command on a line of its own (it overflows when longer). */
  const tooWide = (screen: string, width: number): string[] =>
    screen.split('\n').filter((l) => l.length > width && !l.trim().startsWith('petstore '));
  /**
   * The command that the line matching `start` holds — bare on a line of its own, or
   * between backquotes in the prose — as a shell reads it. A line never ends with ` \`.
   */
  function commandAt(screen: string, start: RegExp): string[] {
    const lines = screen.split('\n');
    expect(lines.filter((l) => l.endsWith(' \\'))).toEqual([]);
    const line = lines.find((l) => start.test(l));
    expect(line, screen).toBeDefined();
    const inline = /`(petstore [^`]*)`/.exec(line ?? '');
    const pasted = inline?.[1] ?? line ?? '';
    return execFileSync('sh', ['-c', `petstore() { printf '%s\\n' "$@"; }\n${pasted}`], { encoding: 'utf8' })
      .split('\n')
      .slice(0, -1);
  }

  it.each([60, 80, 120])(
    '%i: the re-run line and the already-sent hint are never broken, and run when pasted',
    async (columns) => {
      const srv = await petServer(({ name, attempt }) =>
        name === 'P2' && attempt === 1 ? errorReply(503, 'unavailable', 'later') : 'create',
      );
      const dir = tempDir();
      const file = join(dir, 'big pets.ndjson');
      writeFileSync(file, petRecords(3));
      const remaining = `${file}.remaining.ndjson`;
      const width = columns;
      const opts = {
        env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, NO_COLOR: '1' }),
        tty: true,
        columns,
      };
      const first = await runMain(
        ['pets', 'create', '--from-file', file, '--concurrency', '1', '--retries', '0'],
        opts,
      );
      expect(first.code).toBe(1);
      const account = screenOf(first.stderr);
      expect(tooWide(account, width)).toEqual([]);
      expect(commandAt(account, /^ +petstore /)).toEqual(['pets', 'create', '--from-file', remaining]);
      // Sent again: refused, naming the remaining file (shell-quoted: its name has a space) in a command never broken.
      const again = await runMain(['pets', 'create', '--from-file', file], opts);
      expect(again.code).toBe(2);
      const refusal = screenOf(again.stderr);
      expect(tooWide(refusal, width)).toEqual([]);
      const argv = commandAt(refusal, /^ *petstore |`petstore /);
      expect(argv).toEqual(['pets', 'create', '--from-file', remaining]);
      // Run as pasted: the records not created are created, and the file petstore wrote removed.
      const rerun = await runMain(argv, opts);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(existsSync(remaining)).toBe(false);
      expect(srv.created()).toEqual(['P1', 'P2', 'P3']);
    },
  );
});

describe('--jq that fails on created pets: every pet created is reported on stdout', { timeout: 120_000 }, () => {
  /**
   * The ids stdout reports: a line the filter printed (an id), or the record of a pet the
   * filter failed on, printed as it is; with the names of the records printed so.
   */
  function reported(stdout: string): { ids: string[]; unfiltered: { id: string; name: string }[] } {
    const lines = stdout
      .trimEnd()
      .split('\n')
      .filter((l) => l !== '');
    const unfiltered = lines
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ id: /"id":(-?\d+)/.exec(l)![1]!, name: (JSON.parse(l) as { name: string }).name }));
    return { ids: [...lines.filter((l) => !l.startsWith('{')), ...unfiltered.map((u) => u.id)], unfiltered };
  }

  /** The ids the sandbox in `dir` holds for pets named P1.., read back through the CLI. */
  async function sandboxIds(dir: string): Promise<string[]> {
    const r = await inSandbox(dir, ['pets', 'list', '--all', '-o', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
      .filter(([, name]) => /^P\d+$/.test(name ?? ''))
      .map(([id]) => id!);
  }

  const sorted = (ids: string[]): string[] => [...ids].sort((a, b) => Number(a) - Number(b));

  it('fails on every third id at --concurrency 32 (sandbox): each id created is on stdout, once; the run stops, exit 1 (jq)', async () => {
    const { dir, file } = petInput(100);
    const filter = 'if .id % 3 == 0 then error("x") else .id end';
    const args = ['pets', 'create', '--from-file', file, '--concurrency', '32', '--jq', filter];
    const r = await inSandbox(dir, args);
    expect(r.code, r.stderr).toBe(1);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({ code: 'jq', status: 0, records: 100, failed: [], unknown: [] });
    expect(account.message).toMatch(/^stopped after record \d+ of 100: --jq: x;/);
    const { ids, unfiltered } = reported(r.stdout);
    // What the server holds, no more, no less: every id created is reported once.
    const held = await sandboxIds(dir);
    expect(sorted(ids)).toEqual(sorted(held));
    expect(held).toHaveLength(account.created as number);
    // The requests under way at the first failure were many, and each of their pets printed.
    expect(account.created as number).toBeGreaterThan(1);
    expect(unfiltered.length).toBeGreaterThan(0);
    for (const u of unfiltered) expect(BigInt(u.id) % 3n).toBe(0n);
    for (const id of ids.filter((i) => !unfiltered.some((u) => u.id === i))) expect(BigInt(id) % 3n).not.toBe(0n);
    // The records not sent are in the remaining file, so that a re-run sends them.
    expect(namesIn(`${file}.remaining.ndjson`)).toHaveLength(100 - (account.created as number));
  });

  it('a filter past its --timeout on one pet (pet server): that pet and the ones after it printed as they are, exit 1 (jq_timeout)', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(6);
    const endless = 'if .name == "P2" then last(range(1e12)) else .id end';
    const args = ['pets', 'create', '--from-file', file, '--concurrency', '1', '--timeout', '3', '--jq', endless];
    const r = await runMain(args, { env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }) });
    expect(r.code, r.stderr).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'jq_timeout', status: 0 });
    const lines = r.stdout.trimEnd().split('\n');
    const created = srv.created();
    expect(created[0]).toBe('P1');
    // P1 through the filter; P2 (stopped) and every pet created after it as its record.
    expect(lines[0]).toMatch(/^\d+$/);
    expect(printedNames(lines.slice(1).join('\n'))).toEqual(inLineOrder(created).slice(1));
  });
});

describe('--concurrency refused', () => {
  it.each(['0', '33', '1.5', '-1', 'abc', '', '4x'])('--concurrency %j: exit 2, nothing sent', async (value) => {
    const srv = await petServer();
    const { dir, file } = petInput(3);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', value], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      `invalid --concurrency ${JSON.stringify(value)}: must be a whole number from 1 to 32 (requests in flight at once)`,
    );
    expect(srv.requests).toHaveLength(0);
  });

  it('without --from-file: exit 2, nothing sent', async () => {
    const srv = await petServer();
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--concurrency', '4'], {
      env: remoteEnv(srv.baseUrl, KEY),
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('--concurrency works with --from-file only');
    expect(srv.requests).toHaveLength(0);
  });
});

/**
 * A journal line without the `Idempotency-Key` a create kept on it (docs/sandbox.md: the
 * key, whether its body sent a status and its time, on the pet's line for 24 hours); every create
 * of `pets create` carries one.
 */
function withoutKey(line: string): string {
  const keyed = /^(\{.*),"idempotency":\{"key":"[0-9a-f-]{36}","fingerprint":"[s-]","at":\d+\}\}$/.exec(line);
  return keyed === null ? line : `${keyed[1]}}`;
}

describe('the sandbox journal a create appends to', () => {
  describe.concurrent('a torn last line', () => {
    it('is ignored by readers and cut off by the next create', async () => {
      const dir = tempDir();
      const journal = join(dir, 'sandbox.json.journal');
      expect(await sandboxCreated(dir, 'First')).toBe('10\tFirst\t1\tavailable\n');
      // A create killed half way through its append.
      appendFileSync(journal, '{"id":11,"name":"Tor');
      const before = await sandboxListed(dir);
      expect(before).toHaveLength(11);
      expect(before).toContain('10\tFirst\t1\tavailable');
      expect(before.join('\n')).not.toContain('Tor');

      expect(await sandboxCreated(dir, 'Second')).toBe('11\tSecond\t1\tavailable\n');
      const lines = expectWholeLines(readFileSync(journal, 'utf8'));
      expect(lines.slice(1).map(withoutKey)).toEqual([
        '{"id":10,"name":"First","categoryId":1,"status":"available"}',
        '{"id":11,"name":"Second","categoryId":1,"status":"available"}',
      ]);
      expect(await sandboxListed(dir)).toHaveLength(12);
    });

    it('a torn line that is all the journal holds after its header is cut off too', async () => {
      const dir = tempDir();
      const journal = join(dir, 'sandbox.json.journal');
      expect((await sandboxListed(dir)).length).toBe(10);
      appendFileSync(journal, '{"id":10,"na');
      expect(await sandboxListed(dir)).toHaveLength(10);
      expect(await sandboxCreated(dir, 'Whole')).toBe('10\tWhole\t1\tavailable\n');
      expect(expectWholeLines(readFileSync(journal, 'utf8'))).toHaveLength(2);
    });
  });

  describe.concurrent('generations', () => {
    it('a journal older than the snapshot (a compaction cut short) is ignored, then replaced', async () => {
      const dir = tempDir();
      const file = join(dir, 'sandbox.json');
      const journal = `${file}.journal`;
      writeFileSync(
        file,
        '{"generation":3,"nextId":12,"pets":[\n{"id":10,"name":"A","categoryId":1,"status":"available"},\n{"id":11,"name":"B","categoryId":1,"status":"sold"}\n]}\n',
      );
      // The journal of generation 2: its pets are in the snapshot already.
      writeFileSync(
        journal,
        '{"generation":2}\n{"id":10,"name":"A","categoryId":1,"status":"available"}\n{"id":11,"name":"B","categoryId":1,"status":"sold"}\n',
      );
      expect(await sandboxListed(dir)).toEqual(['10\tA\t1\tavailable', '11\tB\t1\tsold']);
      expect(await sandboxCreated(dir, 'C')).toBe('12\tC\t1\tavailable\n');
      expect(expectWholeLines(readFileSync(journal, 'utf8')).map(withoutKey)).toEqual([
        '{"generation":3}',
        '{"id":12,"name":"C","categoryId":1,"status":"available"}',
      ]);
      expect(await sandboxListed(dir)).toEqual(['10\tA\t1\tavailable', '11\tB\t1\tsold', '12\tC\t1\tavailable']);
    });

    it('a data file written by an older petstore (no journal) is read, then rewritten in the new layout', async () => {
      const dir = tempDir();
      const file = join(dir, 'sandbox.json');
      writeFileSync(
        file,
        JSON.stringify(
          { nextId: 21, pets: [{ id: 20, name: 'Old', categoryId: 2, status: 'pending' }] },
          null,
          2,
        ).replace('"categoryId": 2', '"categoryId": 9223372036854775807'),
      );
      expect(await sandboxListed(dir)).toEqual(['20\tOld\t9223372036854775807\tpending']);
      expect(await sandboxCreated(dir, 'New')).toBe('21\tNew\t1\tavailable\n');
      expect(readFileSync(file, 'utf8')).toMatch(/^\{"generation":1,"nextId":22,"pets":\[\n/);
      expect(readFileSync(file, 'utf8')).toContain('"categoryId":9223372036854775807');
      expect(await sandboxListed(dir)).toEqual(['20\tOld\t9223372036854775807\tpending', '21\tNew\t1\tavailable']);
    });
  });

  describe.concurrent('a data file edited by hand', () => {
    // A create never takes an id the store holds, whatever `nextId` says: two pets never
    // share an id (the seed itself holds Atlas, 9007199254740993, far above its next id).
    it.each([
      [
        'its own layout, nextId at a held id',
        '{"generation":1,"nextId":2,"pets":[\n{"id":1,"name":"A","categoryId":1},\n{"id":2,"name":"B","categoryId":1}\n]}\n',
        ['3', '4', '5'],
      ],
      [
        'any JSON, nextId below held ids',
        JSON.stringify(
          {
            nextId: 1,
            pets: [
              { id: 2, name: 'A', categoryId: 1 },
              { id: 3, name: 'B', categoryId: 1 },
              { id: 5, name: 'C', categoryId: 1 },
            ],
          },
          null,
          2,
        ),
        ['1', '4', '6'],
      ],
    ])('%s: each create takes the next id the store does not hold', async (_name, text, ids) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'sandbox.json'), text);
      const held = (await sandboxListed(dir)).map((l) => l.split('\t')[0]);
      for (const [i, id] of ids.entries())
        expect(await sandboxCreated(dir, `New${i}`)).toBe(`${id}\tNew${i}\t1\tavailable\n`);
      const all = (await sandboxListed(dir)).map((l) => l.split('\t')[0]);
      expect(all).toEqual(expect.arrayContaining([...held, ...ids]));
      expect(new Set(all).size).toBe(all.length);
    });

    it('a held id met after the journal replays: skipped by a later run too', async () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'sandbox.json'),
        '{"generation":1,"nextId":1,"pets":[\n{"id":2,"name":"Two","categoryId":1}\n]}\n',
      );
      // One run per create: each reads the journal the last one wrote, then skips id 2.
      expect(await sandboxCreated(dir, 'One')).toBe('1\tOne\t1\tavailable\n');
      expect(await sandboxCreated(dir, 'Three')).toBe('3\tThree\t1\tavailable\n');
      expect(await sandboxListed(dir)).toEqual(['1\tOne\t1\tavailable', '2\tTwo\t1\t', '3\tThree\t1\tavailable']);
    });
  });
});

/**
 * `pets create --from-file` end to end: strict validation before anything is sent, creation
 * in order with streamed output, and a resumable stop at the first failure that never
 * creates a pet twice. In-process (`runMain`), each test with a server of its own.
 */
import { readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = 'test-key-bulk-0123456789';
const servers: TestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  removeTempDirs();
});

/** A server that creates pets with ids from 101, answering `failAt` (1-based POST count) with `fail`. */
async function petServer(fail?: { at: number; reply: 'error500' | 'error400' | 'destroy' }): Promise<TestServer> {
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
  servers.push(server);
  return server;
}

function env(s: TestServer, extra: Record<string, string> = {}): Record<string, string> {
  return { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir(), ...extra };
}

function posts(s: TestServer): string[] {
  return s.requests.filter((r) => r.method === 'POST').map((r) => r.body);
}

const SIX =
  ['Rex', 'Kiwi', 'Polly', 'Shadow', 'Nibbles', 'Bubbles']
    .map((name, i) => JSON.stringify({ name, categoryId: i + 1 }))
    .join('\n') + '\n';

describe.concurrent('pets create --from-file', () => {
  it('stops at a 500 half-way, saves the rest, and a re-run creates each remaining pet exactly once', async () => {
    const server = await petServer({ at: 4, reply: 'error500' });
    const dir = tempDir();
    const file = join(dir, 'new-pets.ndjson');
    writeFileSync(file, SIX);
    // One request at a time (today's --concurrency 1): the stop comes at a known record.
    const r = await runMain(['pets', 'create', '--from-file', file, '--output', 'ndjson', '--concurrency', '1'], {
      env: env(server),
    });
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

    const fresh = await petServer();
    const again = await runMain(['pets', 'create', '--from-file', remaining, '--output', 'ndjson'], {
      env: env(fresh),
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(posts(fresh).map((b) => (JSON.parse(b) as { name: string }).name)).toEqual(['Shadow', 'Nibbles', 'Bubbles']);
  });

  it('reports the created lines, the failed record and the remaining file in plain text', async () => {
    const server = await petServer({ at: 3, reply: 'error400' });
    const dir = tempDir();
    const file = join(dir, 'p.ndjson');
    writeFileSync(file, SIX);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1'], { env: env(server) });
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

  it('never retries nor saves a record whose POST may have reached the server', async () => {
    const server = await petServer({ at: 2, reply: 'destroy' });
    const dir = tempDir();
    const file = join(dir, 'p.ndjson');
    writeFileSync(file, SIX);
    const r = await runMain(['pets', 'create', '--from-file', file, '--retries', '3', '--concurrency', '1'], {
      env: env(server),
    });
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
    const dir = tempDir();
    const file = join(dir, 'p.ndjson');
    writeFileSync(file, SIX);
    const r = await runMain(['pets', 'create', '--from-file', file], {
      env: { PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1', PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(3);
    // Four requests in flight (the default) fail together; the account names the first.
    expect(unwrapped(r.stderr)).toContain('stopped at record 1 of 6 (line 1), not created: cannot reach 127.0.0.1:1');
    expect(unwrapped(r.stderr)).toContain('failed 4: lines 1-4, not created');
    expect(unwrapped(r.stderr)).toContain('not sent 2');
    expect(readFileSync(`${file}.remaining.ndjson`, 'utf8')).toBe(SIX);
  });

  it('reads a JSON array from stdin, prints one JSON array, keeps int64 exact', async () => {
    const server = await petServer();
    const input =
      '[\n  {"name": "Big", "categoryId": 9223372036854775807},\n  {"name": "Small", "categoryId": -9223372036854775808, "status": "sold"}\n]\n';
    const r = await runMain(['pets', 'create', '--from-file', '-', '--json'], { env: env(server), input });
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
    const server = await petServer({ at: 2, reply: 'error500' });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'stdin.remaining.ndjson'), 'mine\n');
    const r = await runMain(['pets', 'create', '--from-file', '-', '--concurrency', '1'], {
      env: env(server),
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
    const server = await petServer();
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
    const r = await runMain(['pets', 'create', '--from-file', '-'], { env: env(server), input });
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
    const server = await petServer();
    const dir = tempDir();
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":}\n{"name":"C","categoryId":3}\n');
    const r = await runMain(['pets', 'create', '--from-file', file], { env: env(server) });
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
    const server = await petServer();
    const r = await runMain(['pets', 'create', ...args], { env: env(server) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses empty input', async () => {
    const server = await petServer();
    const r = await runMain(['pets', 'create', '--from-file', '-'], { env: env(server), input: '  \n' });
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
    const r = await runMain(['--env', 'sandbox', 'pets', 'create', '--from-file', file, '--output', 'ndjson'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
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

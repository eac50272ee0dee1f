/**
 * The CLI under network faults (cli-contract.md "Network behaviour", "Errors and exit
 * codes"): each fault of test/helpers/fault-server.ts against the CLI run in-process
 * (runMain: no process is needed to see a fault on the wire; signals and closed pipes are
 * faults-process.test.ts), checking the exit code, the message, time bounds where the rule
 * is about time, and exactly what the server received. Every test has servers of its own,
 * so the tests run concurrently and their waits (backoff, Retry-After, deadlines) overlap.
 *
 * Time bounds hold on a loaded machine: a lower bound (a wait that was waited) is exact, an
 * upper bound ("at once", "within the deadline") has SLACK_MS of room and tells apart only
 * waits far longer than that, which the tests make so (a 50 s Retry-After, a 120 s slow answer).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  answer,
  closedPortBaseUrl,
  count,
  cutOff,
  hugeBody,
  malformedJson,
  pets,
  redirect,
  reset,
  sequence,
  slowBody,
  slowHeaders,
  wrongContentType,
  CLI_MAX_BODY_BYTES,
} from '../helpers/fault-server.js';
import { commandTree } from '../helpers/command-tree.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import {
  CLI_OPERATIONS,
  isIdempotent,
  isSafe,
  longFlag,
  successReply,
  type CliOperation,
} from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { type Handler, type TestServer } from '../helpers/test-server.js';

const KEY = 'pst_faults_9f3Kq7ZxW2mLr8Tb';

const pool = fileServers();
/** The command tree, read before the tables are built (they name the verbs' arguments). */
const tree = await commandTree();
beforeAll(async () => {
  // The first in-process runs load the CLI's modules through Vite's transform, which takes
  // seconds on a busy machine (a spawned CLI loads its prebuilt bundle in a fraction of
  // that). Loaded here, it does not count against the time bounds below, which are about
  // backoff, Retry-After and deadlines.
  const warm = await start((req) =>
    req.method === 'POST' ? { status: 201, body: pets(1)[0] } : { status: 200, body: pets(1) },
  );
  for (const args of [list('--verbose'), ['pets', 'list'], create()]) await run(args, warm.baseUrl);
});

/** A recording server of the test's own, answering with `handler`. */
function start(handler?: Handler): Promise<TestServer> {
  return pool.start(handler);
}

/** Runs the CLI against `baseUrl` (a test server's, or one where nothing listens). */
function run(args: string[], baseUrl: string) {
  return runMain(args, { env: remoteEnv(baseUrl, KEY) });
}

function list(...extra: string[]): string[] {
  return ['pets', 'list', '--output', 'json', ...extra];
}

function create(...extra: string[]): string[] {
  return ['pets', 'create', '--name', 'Rex', '--category-id', '1', '--output', 'json', ...extra];
}

/** Parses the one JSON error object on stderr. */
function jsonError(stderr: string): { code: string; message: string; status: number } {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as { code: string; message: string; status: number };
}

/**
 * Room an upper time bound leaves for a loaded machine (in-process runs share the test
 * worker with the concurrent tests, on two cores busy with other work): a quiet machine
 * needs a few hundred milliseconds of it.
 */
const SLACK_MS = 15_000;

/** An answer that never comes within a test: slower than any bound here allows. */
const NEVER_MS = 120_000;

/** The declared operations sent again after a failure the server may have seen (GET), and the others (POST). */
const IDEMPOTENT = CLI_OPERATIONS.filter(isIdempotent).map((op) => [op.name, op] as const);
const NOT_IDEMPOTENT = CLI_OPERATIONS.filter((op) => !isIdempotent(op)).map((op) => [op.name, op] as const);
/** The declared operations whose redirects are followed (GET), and the others. */
const SAFE = CLI_OPERATIONS.filter(isSafe).map((op) => [op.name, op] as const);
const NOT_SAFE = CLI_OPERATIONS.filter((op) => !isSafe(op)).map((op) => [op.name, op] as const);

/** `op`'s valid run with `--output json` and `extra`. */
function runOf(op: CliOperation, ...extra: string[]): string[] {
  return [...op.argv, '--output', 'json', ...extra];
}

/**
 * The error object of a JSON stderr: its last line; any line before it is a warning, and
 * only a deprecated operation warns.
 */
function errorOf(op: CliOperation, stderr: string): { code: string; message: string; status: number } {
  const lines = stderr.trim().split('\n');
  if (!op.deprecated) expect(lines).toHaveLength(1);
  for (const l of lines.slice(0, -1)) expect(JSON.parse(l)).toMatchObject({ level: 'warning' });
  return JSON.parse(lines.at(-1)!) as { code: string; message: string; status: number };
}

/** Asserts stderr holds nothing but a deprecated operation's warnings (JSON lines). */
function expectNoMessage(op: CliOperation, stderr: string): void {
  if (!op.deprecated) expect(stderr).toBe('');
  else for (const l of stderr.trim().split('\n')) expect(JSON.parse(l)).toMatchObject({ level: 'warning' });
}

function expectKeySent(server: TestServer, n: number): void {
  expect(server.requests).toHaveLength(n);
  for (const r of server.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
}

describe.concurrent('GET retries', () => {
  it.each(IDEMPOTENT)('%s: retries a 503 and succeeds with the next answer', async (_, op) => {
    const server = await start(sequence(apiError(503, 'unavailable', 'try later'), answer(successReply(op))));
    const r = await run(runOf(op), server.baseUrl);
    expectNoMessage(op, r.stderr);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(successReply(op).body);
    expectKeySent(server, 2);
    expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual(
      Array(2).fill(`${op.request.method} ${op.request.url}`),
    );
    // The backoff of a first retry is 125-250 ms: nothing near the 30 s default deadline.
    expect(r.ms).toBeLessThan(SLACK_MS);
  });

  it('retries 502 and 504 as well, and a connection reset', async () => {
    const server = await start(
      sequence(
        apiError(502, 'bad_gateway', 'x'),
        reset(),
        apiError(504, 'gateway_timeout', 'y'),
        answer({ status: 200, body: pets(1) }),
      ),
    );
    const r = await run(list('--retries', '3'), server.baseUrl);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectKeySent(server, 4);
  });

  it.each(IDEMPOTENT)(
    '%s: gives up after --retries and reports the last answer: 503 Error body, exit 1',
    async (_, op) => {
      const server = await start(apiError(503, 'unavailable', 'the pet store is down for maintenance'));
      const r = await run(runOf(op), server.baseUrl);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(errorOf(op, r.stderr)).toEqual({
        code: 'unavailable',
        message: 'the pet store is down for maintenance',
        status: 503,
      });
      expectKeySent(server, 3); // 1 + 2 retries (default)
    },
  );

  it('a 429 without Retry-After: retried with backoff, then exit 1 with the server message', async () => {
    const server = await start(apiError(429, 'rate_limited', 'too many requests'));
    const r = await run(list('--retries', '1'), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr)).toEqual({ code: 'rate_limited', message: 'too many requests', status: 429 });
    expectKeySent(server, 2);
  });

  it('--retries 0 turns retries off', async () => {
    const server = await start(apiError(503, 'unavailable', 'down'));
    const r = await run(['pets', 'list', '--retries', '0'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('down');
    expect(unwrapped(r.stderr)).toContain('HTTP 503');
    expectKeySent(server, 1);
  });

  it.each(IDEMPOTENT)('%s: does not retry a 500 (not in the contract list)', async (_, op) => {
    const server = await start(apiError(500, 'internal', 'boom'));
    const r = await run(runOf(op), server.baseUrl);
    expect(r.code).toBe(1);
    expect(errorOf(op, r.stderr)).toEqual({ code: 'internal', message: 'boom', status: 500 });
    expectKeySent(server, 1);
  });

  it.each([
    ['in seconds', (): Handler => apiError(429, 'rate_limited', 'slow down', { 'retry-after': '1' })],
    [
      // HTTP-dates have whole seconds: 2 s from now is 1..2 s of waiting.
      'as an HTTP-date',
      (): Handler => (req, res) =>
        apiError(503, 'unavailable', 'later', { 'retry-after': new Date(Date.now() + 2000).toUTCString() })(req, res),
    ],
  ])('honours Retry-After %s', async (_how, first) => {
    const server = await start(sequence(first(), answer({ status: 200, body: pets(1) })));
    const r = await run(list(), server.baseUrl);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectKeySent(server, 2);
    expect(r.ms).toBeGreaterThanOrEqual(900);
    expect(r.ms).toBeLessThan(1000 + SLACK_MS);
  });

  it('does not wait for a Retry-After longer than the time left: fails at once with the 429', async () => {
    // A 50 s Retry-After and a 40 s deadline: a run that waited would
    // last 40 s, far beyond the bound, which leaves a loaded machine its slack.
    const server = await start(apiError(429, 'rate_limited', 'slow down', { 'retry-after': '50' }));
    const r = await run(list('--timeout', '40'), server.baseUrl);
    expect(r.code).toBe(1);
    const error = jsonError(r.stderr);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 50 });
    expect(error.message).toMatch(/^slow down; the server asks to wait 50 s; --timeout leaves \d+ s$/);
    expectKeySent(server, 1);
    expect(r.ms).toBeLessThan(SLACK_MS);
  });

  it('does not wait for a Retry-After longer than a long --timeout leaves', async () => {
    const server = await start(apiError(503, 'unavailable', 'maintenance', { 'retry-after': '3600' }));
    const r = await run(list('--timeout', '1800'), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr)).toMatchObject({ status: 503, retryAfter: 3600 });
    expectKeySent(server, 1);
    expect(r.ms).toBeLessThan(SLACK_MS);
  });

  it('connection refused: retried, then exit 3 naming the host', async () => {
    const base = await closedPortBaseUrl();
    const r = await run(['pets', 'list', '--verbose'], base);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('connection refused');
    expect(unwrapped(r.stderr)).toContain(new URL(base).host);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(3);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(IDEMPOTENT)('%s: connection reset on every attempt: exit 3 after 1 + retries attempts', async (_, op) => {
    const server = await start(reset());
    const r = await run(runOf(op), server.baseUrl);
    expect(r.code).toBe(3);
    expect(errorOf(op, r.stderr)).toMatchObject({ code: 'network', status: 0 });
    expectKeySent(server, 3);
  });
});

describe.concurrent('cut-off answers and DNS', () => {
  it('a GET answer cut off after its headers: not retried (no Range support), exit 3', async () => {
    const server = await start(cutOff());
    const r = await run(list('--verbose'), server.baseUrl);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('failed while reading the answer: connection closed by the server');
    expect(unwrapped(r.stderr)).toContain('* the answer was cut off after its headers; not retried');
    expectKeySent(server, 1);
  });

  it('a host that does not resolve (.invalid, RFC 6761): retried, then exit 3 naming DNS', async () => {
    // The deadline leaves three lookups room on a loaded machine.
    const r = await run(list('--verbose', '--timeout', '30'), 'https://petstore.invalid/v1');
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toMatch(/cannot reach petstore\.invalid: (host not found|DNS lookup failed)/);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(3);
  });
});

// The deadline rule holds for any deadline; short ones (0.5 s, 6 s) keep the waits short.
// A run reaches its deadline no sooner than it (an exact lower bound); the upper bound is the
// deadline plus SLACK_MS, against an answer that would come only after NEVER_MS.
describe.concurrent('one deadline', () => {
  it('slow headers past --timeout: exit 3 within the deadline, not retried', async () => {
    const server = await start(slowHeaders(NEVER_MS));
    const r = await run(list('--timeout', '0.5'), server.baseUrl);
    expect(r.code).toBe(3);
    expect(jsonError(r.stderr)).toMatchObject({ code: 'timeout', status: 0 });
    expect(r.ms).toBeGreaterThanOrEqual(450);
    expect(r.ms).toBeLessThan(500 + SLACK_MS);
    expectKeySent(server, 1);
  });

  it('slow body past --timeout: exit 3', async () => {
    const server = await start(slowBody(NEVER_MS));
    const r = await run(['pets', 'list', '--timeout', '0.5'], server.baseUrl);
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toMatch(/within 0\.5 s/);
    expect(r.ms).toBeGreaterThanOrEqual(450);
    expect(r.ms).toBeLessThan(500 + SLACK_MS);
    expectKeySent(server, 1);
  });

  it('slow answers within the deadline still succeed', async () => {
    // 0.3 s of a 30 s deadline: within it however loaded the machine.
    const server = await start(slowBody(300));
    const r = await run(list('--timeout', '30'), server.baseUrl);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });

  it('retries and their waits count against the one deadline', async () => {
    // A 3 s Retry-After in a 6 s deadline: the first answer may take up to 3 s (a loaded
    // machine) and still leave room for the one wait; after it, at most 3 s are left, too
    // little for a second.
    const server = await start(apiError(503, 'unavailable', 'down', { 'retry-after': '3' }));
    const r = await run(list('--timeout', '6', '--retries', '5'), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr).status).toBe(503);
    expectKeySent(server, 2); // waited 3 s once; a second 3 s wait does not fit in the 6 s deadline
    expect(r.ms).toBeGreaterThanOrEqual(2900);
    expect(r.ms).toBeLessThan(6000 + SLACK_MS);
  });
});

describe.concurrent('a POST is sent once when the server may have received it (a 429 excepted: a refusal)', () => {
  it('the declarations have a write sent by POST', () => {
    expect(NOT_IDEMPOTENT.length).toBeGreaterThan(0);
  });

  it.each(NOT_IDEMPOTENT)('%s: 503: not retried, exit 1 with the server message', async (_, op) => {
    const server = await start(apiError(503, 'unavailable', 'cannot create now'));
    const r = await run(runOf(op), server.baseUrl);
    expect(r.code).toBe(1);
    expect(errorOf(op, r.stderr)).toEqual({ code: 'unavailable', message: 'cannot create now', status: 503 });
    expect(count(server.requests, op.request.method)).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it.each(NOT_IDEMPOTENT)(
    '%s: 429 is a refusal (nothing was done): sent again once Retry-After has passed',
    async (_, op) => {
      const server = await start(
        sequence(apiError(429, 'rate_limited', 'slow down', { 'retry-after': '0' }), answer(successReply(op))),
      );
      const r = await run(runOf(op), server.baseUrl);
      expectNoMessage(op, r.stderr);
      expect(r.code).toBe(0);
      expect(count(server.requests, op.request.method)).toBe(2);
      expect(server.requests.map((q) => q.body)).toEqual([op.request.body, op.request.body]);
      // The same request again: the one Idempotency-Key, where the operation sends one.
      expect(server.requests[1]?.headers['idempotency-key']).toBe(server.requests[0]?.headers['idempotency-key']);
    },
  );

  it.each(NOT_IDEMPOTENT)(
    '%s: 429 on every attempt: 1 + --retries requests, then exit 1 with the server message',
    async (_, op) => {
      const server = await start(apiError(429, 'rate_limited', 'slow down', { 'retry-after': '0' }));
      const r = await run(runOf(op, '--retries', '1'), server.baseUrl);
      expect(r.code).toBe(1);
      expect(errorOf(op, r.stderr)).toEqual({ code: 'rate_limited', message: 'slow down', status: 429 });
      expect(count(server.requests, op.request.method)).toBe(2);
    },
  );

  it.each(NOT_IDEMPOTENT)('%s: reset after the request: not retried, exit 3', async (_, op) => {
    const server = await start(reset());
    const r = await run(runOf(op), server.baseUrl);
    expect(r.code).toBe(3);
    expect(errorOf(op, r.stderr)).toMatchObject({ code: 'network', status: 0 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toBe(op.request.body);
  });

  it.each(NOT_IDEMPOTENT)('%s: slow headers past --timeout: not retried, exit 3', async (_, op) => {
    const server = await start(slowHeaders(NEVER_MS, successReply(op)));
    const r = await run(runOf(op, '--timeout', '0.5'), server.baseUrl);
    expect(r.code).toBe(3);
    expect(errorOf(op, r.stderr)).toMatchObject({ code: 'timeout' });
    expect(server.requests).toHaveLength(1);
  });

  it.each(NOT_IDEMPOTENT)('%s: connection refused (nothing sent): retried, then exit 3', async (_, op) => {
    const base = await closedPortBaseUrl();
    const r = await run(runOf(op, '--verbose'), base);
    expect(r.code).toBe(3);
    expect(r.stderr.match(new RegExp(`^> ${op.request.method} `, 'gm'))).toHaveLength(3);
  });
});

describe.concurrent('redirects', () => {
  it.each(SAFE)('%s: follows a same-origin redirect with the key', async (_, op) => {
    const server = await start((req, res) =>
      req.url === op.request.url ? redirect('/v1/moved')(req, res) : successReply(op),
    );
    const r = await run(runOf(op), server.baseUrl);
    expectNoMessage(op, r.stderr);
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => q.url)).toEqual([op.request.url, '/v1/moved']);
    expectKeySent(server, 2);
  });

  it.each(SAFE)(
    '%s: refuses a redirect to another origin: exit 1 naming it, and the other origin receives nothing',
    async (_, op) => {
      const other = await start(answer(successReply(op)));
      const server = await start(redirect(`${other.origin}${op.request.url}`, 307));
      const r = await run(op.argv, server.baseUrl);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toContain(other.origin);
      expect(unwrapped(r.stderr)).toContain('not followed');
      expectKeySent(server, 1);
      expect(other.requests).toHaveLength(0);
    },
  );

  it.each(NOT_SAFE)('%s: refuses a redirect of a write, even on the same origin', async (_, op) => {
    const server = await start(redirect(`${op.request.url}2`, 307));
    const r = await run(runOf(op), server.baseUrl);
    expect(r.code).toBe(1);
    expect(errorOf(op, r.stderr)).toMatchObject({ code: 'invalid_response', status: 307 });
    expect(server.requests).toHaveLength(1);
  });

  it('stops after 5 redirects', async () => {
    const server = await start(redirect('/v1/pets'));
    const r = await run(list(), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr).message).toContain('too many redirects');
    expectKeySent(server, 6);
  });
});

describe.concurrent('redirects and next links outside the base path: not followed, exit 1 naming the target', () => {
  // The base URL is `${origin}/v1`: a target on its origin but not under /v1 is refused as a
  // target on another origin is, so the key never reaches it (cli-contract.md "Network
  // behaviour"); dot segments count after they are resolved.
  const targets: [string, string][] = [
    ['/admin', '/admin'],
    ['/v1x/pets', '/v1x/pets'],
    ['/v1/../admin', '/admin'],
    ['/v1/%2e%2E/admin', '/admin'],
    ['../admin', '/admin'],
    ['/', '/'],
  ];
  // Every read operation, then the ways through pages: --all, --via-list, api.
  const commands: { name: string; args: string[] }[] = [
    ...CLI_OPERATIONS.filter(isSafe).map((op) => ({ name: op.name, args: op.argv })),
    { name: 'pets list --all', args: ['pets', 'list', '--all'] },
    { name: 'pets get --via-list', args: ['pets', 'get', '1', '--via-list'] },
    { name: 'api', args: ['api', 'pets'] },
    { name: 'api --paginate', args: ['api', 'pets', '--paginate'] },
  ];
  const paging = commands.filter(({ name }) => /--all|--via-list|--paginate/.test(name));
  type Case = { name: string; args: string[]; to: string; named: string };
  // Every command meets /admin; one command meets every form of target.
  const cases = (these: typeof commands, one: (typeof commands)[number]): Case[] => [
    ...these.map((c) => ({ ...c, to: '/admin', named: '/admin' })),
    ...targets.slice(1).map(([to, named]) => ({ ...one, to, named })),
  ];

  /** Asserts the run refused `named` and that nothing outside /v1 was asked for, the key sent only there. */
  function expectRefused(
    r: { code: number | null; stderr: string },
    server: TestServer,
    named: string,
    what: RegExp,
  ): void {
    expect(r.code, r.stderr).toBe(1);
    expect(unwrapped(r.stderr)).toMatch(what);
    expect(unwrapped(r.stderr)).toContain(`${named}, outside the base URL's path /v1; not followed`);
    expect(server.requests.length).toBeGreaterThan(0);
    for (const q of server.requests) {
      expect(q.url).toMatch(/^\/v1\//);
      expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  }

  it.each(cases(commands, commands[0]!))('$name, redirected (302) to $to', async ({ args, to, named }) => {
    // Anything outside /v1 would answer as the API does: following there would succeed.
    const server = await start((req, res) =>
      req.url.startsWith('/v1/') ? redirect(to)(req, res) : { status: 200, body: pets(1) },
    );
    const r = await run(args, server.baseUrl);
    expectRefused(r, server, named, /server redirected \(302\) to /);
    expect(server.requests).toHaveLength(1);
    const j = await run([...args, '--json'], server.baseUrl);
    expect(j.code).toBe(1);
    expect(lastJson(j.stderr)).toMatchObject({ code: 'invalid_response', status: 302 });
  });

  it.each(cases(paging, paging[0]!))('$name, with Link rel="next" to $to', async ({ name, args, to, named }) => {
    // A page without pet 1 (so `get --via-list` looks on), linking outside.
    const server = await start(() => ({
      status: 200,
      headers: { link: `<${to}?page=2>; rel="next"` },
      body: [{ id: 2, name: 'Two', categoryId: 1, status: 'available' }],
    }));
    const r = await run(args, server.baseUrl);
    expectRefused(r, server, named, /server's Link rel="next" points to /);
    expect(server.requests).toHaveLength(1);
    // What was fetched before the refusal is printed; the exit code says it is incomplete.
    if (name !== 'pets get --via-list') expect(r.stdout).toContain('Two');
  });
});

describe.concurrent('off-contract answers: exit 1, a clear message, no stack trace', () => {
  const cases: { name: string; handler: Parameters<TestServer['handle']>[0]; message: RegExp }[] = [
    { name: 'malformed JSON', handler: malformedJson(), message: /malformed JSON/ },
    {
      name: 'a non-JSON content type',
      handler: wrongContentType(),
      message: /content type "text\/html; charset=utf-8", not application\/json/,
    },
    {
      name: 'a record missing a required field',
      handler: answer({ status: 200, body: [pets(1)[0], { id: 2, categoryId: 1 }] }),
      message: /\[1\]\.name: required field is missing/,
    },
    {
      name: 'a field of the wrong type',
      handler: answer({ status: 200, body: [{ id: 1, name: 'Rex', categoryId: '7' }] }),
      message: /\[0\]\.categoryId: expected an int64 integer/,
    },
    {
      name: 'an error status whose body is not an Error',
      handler: answer({ status: 500, body: { error: 'nope' } }),
      message: /500 with a body that is not an API Error \(code: required field is missing\)/,
    },
    {
      name: 'an unexpected success status',
      handler: answer({ status: 202, body: [] }),
      message: /answered 202; the API defines 200/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const server = await start(c.handler);
      const r = await run(['pets', 'list'], server.baseUrl);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toMatch(c.message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stderr).not.toContain('internal error');
      expectKeySent(server, 1);
      const j = await run(list(), server.baseUrl);
      expect(j.code).toBe(1);
      expect(jsonError(j.stderr)).toMatchObject({ code: 'invalid_response' });
    });
  }

  it('a body just over the 10 MiB cap, streamed: exit 1', async () => {
    const server = await start(hugeBody(CLI_MAX_BODY_BYTES + 1));
    const r = await run(list(), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr)).toEqual({
      code: 'invalid_response',
      message: `response body too large (over ${CLI_MAX_BODY_BYTES.toLocaleString('en-US')} bytes)`,
      status: 200,
    });
  });

  it('a body declared over the cap by Content-Length: exit 1 before reading it', async () => {
    const server = await start(hugeBody(CLI_MAX_BODY_BYTES + 1, true));
    const r = await run(list(), server.baseUrl);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr).message).toContain(
      `${(CLI_MAX_BODY_BYTES + 1).toLocaleString('en-US')} bytes; limit ${CLI_MAX_BODY_BYTES.toLocaleString('en-US')}`,
    );
  });

  it('a body exactly at the cap is read', async () => {
    const server = await start(hugeBody(CLI_MAX_BODY_BYTES));
    const r = await run(list(), server.baseUrl);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('[]');
  });
});

describe.concurrent('--verbose', () => {
  it('prints request, response and retry lines on stderr with the key redacted', async () => {
    const server = await start(
      sequence(apiError(503, 'unavailable', 'x', { 'retry-after': '0' }), answer({ status: 200, body: pets(1) })),
    );
    const r = await run(['pets', 'list', '--verbose'], server.baseUrl);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tpet-1\t1\tavailable\n');
    const url = `${server.baseUrl}/pets`;
    expect(unwrapped(r.stderr)).toContain(`> GET ${url}`);
    expect(unwrapped(r.stderr)).toContain('> authorization: Bearer ****');
    expect(r.stderr).toMatch(/^< 503 \(\d+ ms\)$/m);
    expect(r.stderr).toMatch(/^\* retry 1 of 2 after HTTP 503 in 0 s \(Retry-After\)$/m);
    expect(r.stderr).toMatch(/^< 200 \(\d+ ms\)$/m);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(2);
    expect(r.stderr).not.toContain(KEY.slice(0, 12));
  });

  it('says why it does not retry', async () => {
    const server = await start(apiError(503, 'unavailable', 'x', { 'retry-after': '30' }));
    const r = await run(['pets', 'list', '--verbose', '--timeout', '2'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^\* not retrying HTTP 503: Retry-After 30 s is longer than the [\d.]+ s left before the --timeout deadline$/m,
    );
  });
});

describe.concurrent('with --output json|ndjson every error is one JSON object on stderr', () => {
  /**
   * Every operation with an unknown flag, and without any of its required inputs: commander
   * names a missing argument first, else the verb names every missing flag at once.
   */
  const perOperation = CLI_OPERATIONS.flatMap((op) => {
    const inputs = Object.values(op.declaration.inputs).filter((i) => i.required === true);
    const argument = tree.find((c) => c.words.join(' ') === op.name)?.arguments[0];
    const flags = inputs.filter((i) => typeof i.flag === 'string').map(longFlag);
    const missing = inputs.some((i) => i.flag === undefined)
      ? `missing required argument '${argument}'`
      : `missing ${flags.join(' and ')}`;
    return [
      { args: [...op.argv, '--json', '--bogus'], code: 'usage', exit: 2, message: /unknown option '--bogus'/ },
      ...(inputs.length === 0
        ? []
        : [{ args: [...op.verb, '--output=ndjson'], code: 'usage', exit: 2, message: new RegExp(missing) }]),
    ];
  });
  const cases: { args: string[]; code: string; exit: number; message?: RegExp }[] = [
    ...perOperation,
    { args: ['--output', 'ndjson', 'pets', 'lst'], code: 'usage', exit: 2, message: /unknown command 'lst'/ },
    { args: ['pets', 'list', '--json', '--limit', '0'], code: 'usage', exit: 2, message: /--limit "0"/ },
    { args: ['pets', 'list', '--json', '--timeout', 'soon'], code: 'usage', exit: 2, message: /--timeout "soon"/ },
  ];
  for (const c of cases) {
    it(`${c.args.join(' ')} → ${c.code}, exit ${c.exit}`, async () => {
      const server = await start();
      const r = await run(c.args, server.baseUrl);
      expect(r.code).toBe(c.exit);
      expect(r.stdout).toBe('');
      const e = jsonError(r.stderr);
      expect(e.code).toBe(c.code);
      expect(e.status).toBe(0);
      if (c.message) expect(e.message).toMatch(c.message);
      expect(server.requests).toHaveLength(0);
    });
  }

  it('a missing base URL → config, exit 2', async () => {
    const r = await runMain(['pets', 'list', '--json'], {
      env: { PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    expect(jsonError(r.stderr)).toMatchObject({ code: 'config', status: 0 });
  });

  it('a refused connection → network, exit 3', async () => {
    const r = await run(['pets', 'list', '--output', 'ndjson', '--retries', '0'], await closedPortBaseUrl());
    expect(r.code).toBe(3);
    expect(jsonError(r.stderr)).toMatchObject({ code: 'network', status: 0 });
  });
});

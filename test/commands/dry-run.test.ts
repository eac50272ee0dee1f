/**
 * `--dry-run[=curl]` of `api` and of every declared operation whose verb offers it (`pets
 * create`; test/helpers/operations.ts) (cli-contract.md "Commands"): the request a
 * dry run prints equals, field for field, what a 127.0.0.1 test server receives when the
 * same command runs for real (the key aside, shown as `$PETSTORE_API_KEY`), and the dry run
 * itself sends nothing; the curl form, run through sh with the key in the environment,
 * makes the same request, and the key is in no argv (a curl stand-in records its
 * arguments). In-process for the comparisons, spawned for sh and curl.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandTree } from '../helpers/command-tree.js';
import { lastError, remoteEnv } from '../helpers/harness.js';
import { CLI_OPERATIONS, examplePet, operationAt, successReply } from '../helpers/operations.js';
import { baseEnv, collectRun, unwrapped, type CliResult } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type RecordedRequest, type Reply, type TestServer } from '../helpers/test-server.js';

/** The note's `export` line, never broken: inline between backquotes, or bare on a line of its own. */
const EXPORT_LINE =
  /`export PETSTORE_API_KEY="\$\(petstore --env production auth token\)"`|^ *export PETSTORE_API_KEY="\$\(petstore --env production auth token\)"$/m;

const KEY = 'pk_test_dry_run_Q7w3Zx91';
const BIG = '9223372036854775807';
const pool = serverPool();
afterAll(async () => {
  await pool.closeAll();
  removeTempDirs();
});

/**
 * What the shop answers: a create with what it was sent (id 42); any other declared
 * operation as it succeeds, with pet 42; anything else `[]`.
 */
function shopAnswer(req: RecordedRequest): Reply {
  if (req.method === 'POST' && req.url === '/v1/pets') return { status: 201, raw: `{"id":42,${req.body.slice(1)}` };
  const op = operationAt(req.method, req.url);
  return op === undefined ? { status: 200, body: [] } : successReply(op, examplePet(op, 42));
}

/** A server answering as `shopAnswer` says. */
function shop(): Promise<TestServer> {
  return pool.start(shopAnswer);
}

/** The declared operations whose verb offers --dry-run (the command tree says which). */
const tree = await commandTree();
const DRY_RUNS = CLI_OPERATIONS.filter((op) =>
  tree.find((c) => c.words.join(' ') === op.name)?.flags.includes('--dry-run'),
).map((op) => [op.name, op] as const);

/** Each dry-run operation's run and `api`'s, with `extra`. */
function everyDryRun(...extra: string[]): string[][] {
  return [...DRY_RUNS.map(([, op]) => [...op.argv, ...extra]), ['api', 'POST', 'pets', '-f', 'name=Rex', ...extra]];
}

/** Runs `args` in-process against `server`, errors as JSON. */
function run(server: TestServer, args: string[], opts: MainOptions = {}) {
  return runMain(args, {
    ...opts,
    env: remoteEnv(server.baseUrl, KEY, { PETSTORE_MESSAGES: 'json', ...(opts.env as Record<string, string>) }),
  });
}

/** What a dry run prints. */
interface Printed {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/** A recorded request in a dry run's terms: absolute URL, header names lower case, key replaced. */
function asPrinted(server: TestServer, req: RecordedRequest): Printed {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : (value ?? '');
  }
  expect(headers.authorization).toBe(`Bearer ${KEY}`);
  headers.authorization = 'Bearer $PETSTORE_API_KEY';
  // An empty body and none are one on the wire: a dry run says null for both.
  return { method: req.method, url: `${server.origin}${req.url}`, headers, body: req.body === '' ? null : req.body };
}

/**
 * Runs `args --dry-run` (nothing may reach the server), then `args` for real, and expects
 * the printed request to equal the received one field for field, headers in the order sent.
 */
async function expectDryRunMatches(args: string[], opts: MainOptions = {}, dryFirst = false): Promise<Printed> {
  const server = await shop();
  const dry = await run(server, dryFirst ? [args[0]!, '--dry-run', ...args.slice(1)] : [...args, '--dry-run'], opts);
  expect(dry.code, dry.stderr).toBe(0);
  expect(server.requests).toEqual([]);
  const printed = JSON.parse(dry.stdout) as Printed;
  if (printed.body === '') printed.body = null;
  const real = await run(server, args, opts);
  expect(real.code, real.stderr).toBe(0);
  expect(server.requests).toHaveLength(1);
  const received = asPrinted(server, server.requests[0]!);
  expect(sampleKey(printed)).toEqual(sampleKey(received));
  expect(Object.keys(printed.headers)).toEqual(Object.keys(received.headers));
  return printed;
}

/**
 * `req` with its `Idempotency-Key` written as `KEY`: each create makes a random one (a
 * UUID), so a dry run shows one and the real run sends another.
 */
function sampleKey(req: Printed): Printed {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return req;
  expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  return { ...req, headers: { ...req.headers, 'idempotency-key': 'KEY' } };
}

describe.concurrent('--dry-run prints the request the server then receives', () => {
  it('the declarations have an operation whose verb offers --dry-run', () => {
    expect(DRY_RUNS.length).toBeGreaterThan(0);
  });

  it.each(DRY_RUNS)('%s: the declared request, the key as $PETSTORE_API_KEY', async (_, op) => {
    const printed = await expectDryRunMatches(op.argv);
    expect(printed.method).toBe(op.request.method);
    expect(new URL(printed.url).pathname).toBe(op.request.url);
    expect(printed.body).toBe(op.request.body ?? null);
    expect(printed.headers.authorization).toBe('Bearer $PETSTORE_API_KEY');
  });

  it('pets create: POST /pets with the NewPet, int64 exact, the key as $PETSTORE_API_KEY', async () => {
    const printed = await expectDryRunMatches(['pets', 'create', '--name', 'Rex', '--category-id', BIG]);
    expect(printed.body).toBe(`{"name":"Rex","categoryId":${BIG}}`);
    expect(printed.headers.authorization).toBe('Bearer $PETSTORE_API_KEY');
    expect(printed.method).toBe('POST');
  });

  it('pets create with --status', async () => {
    await expectDryRunMatches(['pets', 'create', '--name', 'Kiwi', '--category-id', '4', '--status', 'pending']);
  });

  it('api GET with query fields', async () => {
    const printed = await expectDryRunMatches(['api', 'GET', 'pets?limit=3', '-f', 'status=sold', '-F', 'x=1']);
    expect(printed.url).toMatch(/\/v1\/pets\?limit=3&status=sold&x=1$/);
    expect(printed.body).toBeNull();
  });

  it('api POST with -f and -F fields (int64 exact)', async () => {
    const printed = await expectDryRunMatches(['api', 'pets', '-f', 'name=Rex', '-F', `categoryId=${BIG}`]);
    expect(printed.body).toBe(`{"name":"Rex","categoryId":${BIG}}`);
  });

  it('api POST with an --input body, given as it is', async () => {
    const file = join(tempDir(), 'pet.json');
    writeFileSync(file, `{ "name": "Rex",\n  "categoryId": ${BIG} }\n`);
    const printed = await expectDryRunMatches(['api', 'POST', 'pets', '--input', file]);
    expect(printed.body).toBe(readFileSync(file, 'utf8'));
  });

  it('api with -H custom headers, one overriding Accept', async () => {
    const printed = await expectDryRunMatches([
      'api',
      'pets',
      '-H',
      'X-Trace: abc 123',
      '-H',
      'Accept: application/problem+json',
    ]);
    expect(printed.headers['x-trace']).toBe('abc 123');
    expect(printed.headers.accept).toBe('application/problem+json');
  });

  it('api POST and DELETE without a body (content-length 0 for a POST, as sent)', async () => {
    expect((await expectDryRunMatches(['api', 'POST', 'pets'])).headers['content-length']).toBe('0');
    expect((await expectDryRunMatches(['api', '-X', 'DELETE', 'pets/7'])).headers['content-length']).toBeUndefined();
  });

  it('api --dry-run pets keeps pets as the path, as api pets --dry-run does', async () => {
    const printed = await expectDryRunMatches(['api', 'pets'], {}, true);
    expect(printed.url).toMatch(/\/v1\/pets$/);
    const server = await shop();
    const before = await run(server, ['api', '--dry-run', 'pets']);
    const after = await run(server, ['api', 'pets', '--dry-run']);
    expect(before.stdout).toBe(after.stdout);
    expect(server.requests).toEqual([]);
  });
});

describe.concurrent('what a dry run does not do', () => {
  it('never asks, even where writes are confirmed', async () => {
    const server = await shop();
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ production: { confirmWrites: true } }), { mode: 0o600 });
    for (const args of [...everyDryRun('--dry-run'), ...everyDryRun('--dry-run=curl')]) {
      const r = await run(server, args, { env: { PETSTORE_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(server.requests).toEqual([]);
  });

  it('refuses --dry-run=bogus (exit 2), naming the one value', async () => {
    const server = await shop();
    for (const args of [...everyDryRun('--dry-run=bogus'), ['api', 'pets', '--dry-run=json']]) {
      const r = await run(server, args);
      expect(r.code).toBe(2);
      expect(String(lastError(r)?.message)).toContain('the one value is curl');
    }
    expect(server.requests).toEqual([]);
  });

  it('refuses --dry-run=curl with --env sandbox (exit 2), pointing to sandbox serve', async () => {
    for (const args of [...everyDryRun('--dry-run=curl'), ['api', 'pets', '--dry-run=curl']]) {
      const r = await runMain(['--env', 'sandbox', ...args], {
        env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_MESSAGES: 'json' },
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('petstore sandbox serve');
    }
  });

  it.each(DRY_RUNS)('%s with --env sandbox: --dry-run prints the request to the embedded server', async (_, op) => {
    const r = await runMain(['--env', 'sandbox', ...op.argv, '--dry-run'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Printed;
    expect(printed.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${op.request.url}$`));
    expect(printed.method).toBe(op.request.method);
  });

  it('refuses --dry-run=curl with --from-file (exit 2); --from-file --dry-run still prints the records', async () => {
    const server = await shop();
    const file = join(tempDir(), 'new.ndjson');
    writeFileSync(file, `{"name":"Rex","categoryId":${BIG}}\n`);
    const curl = await run(server, ['pets', 'create', '--from-file', file, '--dry-run=curl']);
    expect(curl.code).toBe(2);
    expect(String(lastError(curl)?.message)).toContain('--dry-run=curl prints one request');
    const records = await run(server, ['pets', 'create', '--from-file', file, '--dry-run', '--output', 'ndjson']);
    expect(records.code, records.stderr).toBe(0);
    expect(records.stdout).toBe(`{"name":"Rex","categoryId":${BIG}}\n`);
    expect(server.requests).toEqual([]);
  });

  it('refuses --jq with a dry run (exit 2): there is no answer to filter', async () => {
    const server = await shop();
    for (const args of [...everyDryRun('--dry-run', '--jq', '.id'), ['api', 'pets', '--dry-run=curl', '--jq', '.']]) {
      const r = await run(server, args);
      expect(r.code).toBe(2);
      expect(String(lastError(r)?.message)).toContain('a dry run receives none');
    }
    expect(server.requests).toEqual([]);
  });

  it('refuses --dry-run=curl for a body of 128 KiB or more (exit 2): one argument cannot hold it', async () => {
    const server = await shop();
    const file = join(tempDir(), 'huge.json');
    writeFileSync(file, JSON.stringify({ name: 'R'.repeat(128 * 1024), categoryId: 1 }));
    const r = await run(server, ['api', 'POST', 'pets', '--input', file, '--dry-run=curl']);
    expect(r.code).toBe(2);
    expect(String(lastError(r)?.message)).toContain('more than one argument of a command may hold');
    expect((await run(server, ['api', 'POST', 'pets', '--input', file, '--dry-run'])).code).toBe(0);
    expect(server.requests).toEqual([]);
  });

  it('refuses --dry-run with --paginate or -i (exit 2)', async () => {
    const server = await shop();
    expect((await run(server, ['api', 'pets', '--paginate', '--dry-run'])).code).toBe(2);
    expect((await run(server, ['api', 'pets', '-i', '--dry-run'])).code).toBe(2);
    expect(server.requests).toEqual([]);
  });
});

/** Where curl is; the test command's tool step (scripts/ensure-test-tools.sh) installs it. */
function realCurl(): string {
  const found = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') throw new Error('curl is missing: run scripts/ensure-test-tools.sh (npm test runs it)');
  return found;
}

/**
 * A folder holding a `curl` that appends its arguments (one per line, then a blank line)
 * to `argv.log` and execs the real curl; and that log's path.
 */
function curlStandIn(): { bin: string; log: string } {
  const bin = tempDir();
  const log = join(bin, 'argv.log');
  const script = `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho >> '${log}'\nexec '${realCurl()}' "$@"\n`;
  writeFileSync(join(bin, 'curl'), script);
  chmodSync(join(bin, 'curl'), 0o755);
  return { bin, log };
}

/** Runs `command` through `sh -c` with `env` (asynchronously: the test server answers meanwhile). */
function sh(command: string, env: Record<string, string>): Promise<CliResult> {
  const child = spawn('sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return collectRun(child, Date.now(), 60_000);
}

/** A NewPet of 2 KiB, above the size at which older curls add `Expect: 100-continue`. */
function bigPetFile(): string {
  const file = join(tempDir(), 'big-pet.json');
  writeFileSync(file, JSON.stringify({ name: 'R'.repeat(2048), categoryId: 1 }));
  return file;
}

describe.concurrent('--dry-run=curl', () => {
  for (const [what, args] of [
    ...DRY_RUNS.map(([name, op]) => [`${name}, as declared`, op.argv] as const),
    ['api POST with a 2 KiB --input body', ['api', 'POST', 'pets', '--input', bigPetFile()]],
    ['pets create', ['pets', 'create', '--name', "Rex 'the dog'", '--category-id', BIG]],
    [
      'api POST with fields and a header',
      ['api', 'pets', '-f', 'name=@Rex', '-F', 'categoryId=1', '-H', 'X-Trace: a b'],
    ],
    [
      'api GET with a query and an empty header',
      ['api', 'pets?limit=2', '-f', 'status=sold', '-X', 'GET', '-H', 'X-Empty:'],
    ],
    ['api POST without a body', ['api', 'POST', 'pets/7/vaccinations']],
    ['api DELETE', ['api', 'DELETE', 'pets/7']],
  ] as const) {
    it(`${what}: run through sh with the key in the environment, it makes the request the real run makes; the key is in no argv`, async () => {
      const server = await shop();
      const dry = await run(server, [...args, '--dry-run=curl']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/^printf 'Authorization: Bearer %s\\n' "\$PETSTORE_API_KEY" \| curl .* -H @- /);
      expect(dry.stdout).not.toContain(KEY);
      expect(server.requests).toEqual([]);
      const real = await run(server, [...args]);
      expect(real.code, real.stderr).toBe(0);
      const { bin, log } = curlStandIn();
      const r = await sh(dry.stdout, { ...baseEnv(), PATH: `${bin}:${baseEnv().PATH}`, PETSTORE_API_KEY: KEY });
      expect(r.code, r.stderr).toBe(0);
      // curl prints the server's answer as it came; `api` prints it so too.
      const answered = shopAnswer(server.requests[1]!);
      expect(r.stdout).toBe(answered.raw ?? JSON.stringify(answered.body));
      if (args[0] === 'api') expect(r.stdout).toBe(real.stdout);
      expect(server.requests).toHaveLength(2);
      // Headers curl writes in its own case and order are compared by name.
      const [byPetstore, byCurl] = server.requests.map((req) => asPrinted(server, req));
      expect(sampleKey(byCurl!)).toEqual(sampleKey(byPetstore!));
      // The command sends the very key it shows.
      const shown = byCurl?.headers['idempotency-key'];
      if (shown !== undefined) expect(dry.stdout).toContain(`'idempotency-key: ${shown}'`);
      const argv = readFileSync(log, 'utf8');
      expect(argv).toContain('@-');
      expect(argv).not.toContain(KEY);
    });
  }
});

describe.concurrent('the key of a dry run (cli-contract.md "Commands": a key source, never a key command run)', () => {
  /** A config folder: production at `server`, with `more` of its settings and, with `key`, a stored key for it. */
  function configAt(server: TestServer, more: Record<string, unknown>, key?: string): string {
    const dir = tempDir();
    const auth = key === undefined ? {} : { auth: { production: { apiKey: key, baseUrl: server.baseUrl } } };
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ production: { baseUrl: server.baseUrl, ...more }, ...auth }),
      { mode: 0o600 },
    );
    return dir;
  }

  it('an apiKeyCommand counts as the key source and is never run, for every dry run', async () => {
    const server = await shop();
    const marker = join(tempDir(), 'key-command-ran');
    const dir = configAt(server, { apiKeyCommand: `touch ${marker}` });
    for (const args of [...everyDryRun('--dry-run'), ...everyDryRun('--dry-run=curl')]) {
      const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(existsSync(marker), args.join(' ')).toBe(false);
    }
    expect(server.requests).toEqual([]);
    // The real run does run it (and, as it prints no key, fails).
    const real = await runMain(['pets', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(real.code).toBe(4);
    expect(existsSync(marker)).toBe(true);
  });

  it('no key source at all is still exit 4, nothing printed', async () => {
    const server = await shop();
    const r = await runMain([...CREATE_ARGS, '--dry-run=curl'], { env: { PETSTORE_CONFIG_DIR: configAt(server, {}) } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });

  it('a stored key and PETSTORE_API_KEY unset: the curl form, and a note with the export line', async () => {
    const server = await shop();
    const dir = configAt(server, {}, KEY);
    for (const args of [
      [...CREATE_ARGS, '--dry-run=curl'],
      ['api', 'POST', 'pets', '-f', 'name=Rex', '--dry-run=curl'],
    ]) {
      const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"$PETSTORE_API_KEY"');
      // The sentence, its command whole: inline between backquotes, or bare on a line of its own.
      expect(unwrapped(r.stderr).replaceAll('`', '')).toBe(
        'the curl command reads the key from $PETSTORE_API_KEY, and PETSTORE_API_KEY is not set here; set it first with export PETSTORE_API_KEY="$(petstore --env production auth token)"\n',
      );
      expect(r.stderr).toMatch(EXPORT_LINE);
      // The line it gives sets the very key the stored key is.
      const token = await runMain(['--env', 'production', 'auth', 'token'], { env: { PETSTORE_CONFIG_DIR: dir } });
      expect(token.stdout).toBe(`${KEY}\n`);
    }
    // The JSON form is no command to paste: no note.
    const json = await runMain([...CREATE_ARGS, '--dry-run'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(server.requests).toEqual([]);
  });

  it("PETSTORE_API_KEY set and used: no note; set but ignored for --env NAME's own key: the note says so", async () => {
    const server = await shop();
    const used = await run(server, [...CREATE_ARGS, '--dry-run=curl']);
    expect(used).toMatchObject({ code: 0, stderr: '' });
    const dir = configAt(server, {}, KEY);
    const ignored = await runMain(['--env', 'production', ...CREATE_ARGS, '--dry-run=curl'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_API_KEY: 'pk_other_shell_key_0000' },
    });
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(unwrapped(ignored.stderr).replaceAll('`', '')).toContain(
      'PETSTORE_API_KEY here holds a key this run ignored for production; set it first with export PETSTORE_API_KEY="$(petstore --env production auth token)"',
    );
    expect(ignored.stderr).toMatch(EXPORT_LINE);
  });

  it("the sandbox refusal's hint names both things a dry run needs: a base URL and a key source", async () => {
    const r = await runMain(['--env', 'sandbox', ...CREATE_ARGS, '--dry-run=curl'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(
      /A dry run needs a base URL and a key source: .*PETSTORE_BASE_URL, PETSTORE_API_KEY/,
    );
  });

  it('--dry-run curl, with a space, is exit 2 naming --dry-run=curl, for pets create and api; nothing sent', async () => {
    const server = await shop();
    for (const args of [
      [...CREATE_ARGS, '--dry-run', 'curl'],
      ['api', 'pets', '--dry-run', 'curl'],
    ]) {
      const r = await run(server, args, { env: { PETSTORE_MESSAGES: 'text' } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toContain('--dry-run takes its value only after =');
      expect(unwrapped(r.stderr)).toContain('--dry-run=curl');
    }
    expect(server.requests).toEqual([]);
  });
});

/** A single create, all its values given. */
const CREATE_ARGS = ['pets', 'create', '--name', 'Rex', '--category-id', '1'];

/**
 * `petstore mcp` (cli-contract.md "Agents"), the built CLI driven by the official MCP client
 * over stdio (or the standalone executable, under PETSTORE_TEST_EXECUTABLE), against the
 * embedded sandbox and test servers that misbehave: the tool list and its annotations,
 * int64 ids exact in the raw JSON-RPC lines, failures as `isError` results with the CLI's
 * `{code, message, status}`, the write grant and its confirmation, cancellation, the
 * result cap, concurrency, the end of stdin and signals; no frame, stderr line or file
 * holds the key.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { apiError, answer, sequence, slowHeaders } from '../helpers/fault-server.js';
import { mcpEnv, mcpTestServers, serveMcp, type Served } from '../helpers/mcp-client.js';
import { expectedTools } from '../helpers/operations.js';
import { CLI_ARGV, runCli } from '../helpers/run-cli.js';
import type { Handler, TestServer } from '../helpers/test-server.js';

const KEY = 'mcp-test-key-3b9f1c7e';
const BIG_ID = '9007199254740993';
const MAX_INT64 = '9223372036854775807';
/** A Pets body with exact int64 literals beyond 2^53 (what JSON.parse would round). */
const BIG_PETS = `[{"id":${BIG_ID},"name":"Atlas","categoryId":${MAX_INT64},"status":"available"}]`;

const { pool, servers } = mcpTestServers();

/** A server for the environment at `srv` (production, key in PETSTORE_API_KEY). */
async function remote(srv: TestServer, flags: string[] = [], ask?: 'accept' | 'decline' | 'cancel', extra = {}) {
  const env = mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY, ...extra });
  const served = await serveMcp(['mcp', ...flags], env, ask);
  servers.push(served);
  return { ...served, env };
}

/** A server on the sandbox. */
async function sandbox(flags: string[] = []) {
  const served = await serveMcp(['--env', 'sandbox', 'mcp', ...flags], mcpEnv());
  servers.push(served);
  return served;
}

/** The structured content of a tool result. */
type Structured = Record<string, unknown> & {
  error?: { code: string; message: string; status: number; hint?: string };
};
const structured = (r: unknown): Structured => (r as { structuredContent: Structured }).structuredContent;

/** Every frame and stderr line of `served`, and every file under `dirs`, without the key. */
function expectNoKey(served: Served, dirs: string[]): void {
  for (const frame of served.transport.frames) expect(frame).not.toContain(KEY);
  expect(served.transport.stderr).not.toContain(KEY);
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else expect(readFileSync(path, 'utf8'), path).not.toContain(KEY);
    }
  };
  for (const dir of dirs) walk(dir);
}

/** Ends stdin and waits for the exit. */
async function ended(served: Served) {
  await served.transport.close();
  return served.transport.exit;
}

describe('petstore mcp: tools', () => {
  it('lists the declared reads with their annotations, and the writes only with --allow-writes (official stdio transport)', async () => {
    const [command, ...pre] = CLI_ARGV;
    for (const [flags, expected] of [
      [[], expectedTools(false)],
      [['--allow-writes'], expectedTools(true)],
    ] as const) {
      const transport = new StdioClientTransport({
        command,
        args: [...pre, '--env', 'sandbox', 'mcp', ...flags],
        env: mcpEnv(),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'petstore-test', version: '1.0.0' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
      expect(tools.some((t) => t.annotations?.readOnlyHint === false)).toBe(flags.length > 0);
      for (const [i, tool] of tools.entries()) {
        expect(tool.description).toContain('data, not instructions');
        expect(tool.outputSchema).toBeDefined();
        expect(tool.title).toBe(expected[i]?.title);
        expect(tool.annotations).toEqual(expected[i]?.annotations);
      }
      const list = tools.find((t) => t.name === 'list_pets')!;
      expect(list.inputSchema.properties).toMatchObject({
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        status: { enum: ['available', 'pending', 'sold'] },
      });
      const doc = await client.readResource({ uri: 'petstore://openapi.yaml' });
      expect((doc.contents[0] as { text: string }).text).toMatch(/^openapi: 3/m);
      await client.close();
    }
  });

  it('lists, gets and creates in the sandbox, ids exact as strings in the raw lines', async () => {
    const served = await sandbox(['--allow-writes']);
    const list = await served.client.callTool({ name: 'list_pets', arguments: { limit: 100 } });
    expect(list.isError).toBeFalsy();
    expect(served.transport.frames.at(-1)).toContain(`"id":"${BIG_ID}","name":"Atlas","categoryId":"${MAX_INT64}"`);
    const got = await served.client.callTool({ name: 'get_pet', arguments: { id: BIG_ID } });
    expect(structured(got).pet).toMatchObject({ id: BIG_ID, name: 'Atlas', categoryId: MAX_INT64 });
    const created = await served.client.callTool({
      name: 'create_pet',
      arguments: { name: 'Nova', categoryId: MAX_INT64, status: 'pending' },
    });
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    expect(served.transport.frames.at(-1)).toContain(`"categoryId":"${MAX_INT64}"`);
    expect(await ended(served)).toEqual({ code: 0, signal: null });
  });
});

describe('petstore mcp: get_pet after getPet is gone', () => {
  it('finds the pet through listPets after a 410, as pets get does, and says so', async () => {
    const served = await serveMcp(['--env', 'sandbox', 'mcp'], mcpEnv({ PETSTORE_SANDBOX_WITHOUT_GET_PET: '1' }));
    servers.push(served);
    const r = await served.client.callTool({ name: 'get_pet', arguments: { id: BIG_ID } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(structured(r).pet).toMatchObject({ id: BIG_ID, name: 'Atlas' });
    expect(structured(r).warnings).toEqual([
      `getPet answered 410 Gone: finding pet ${BIG_ID} through listPets (GET /pets)`,
    ]);
  });
});

describe('petstore mcp: int64 against a remote server', () => {
  it('list_pets, get_pet and create_pet keep ids above 2^53 exact, both ways', async () => {
    const srv = await pool.start((req) =>
      req.method === 'POST'
        ? { status: 201, raw: `{"id":${BIG_ID},"name":"Rex","categoryId":${MAX_INT64}}` }
        : req.url.startsWith('/v1/pets/')
          ? { status: 200, raw: BIG_PETS.slice(1, -1) }
          : { status: 200, raw: BIG_PETS },
    );
    const served = await remote(srv, ['--allow-writes', '--yes']);
    await served.client.callTool({ name: 'list_pets', arguments: {} });
    expect(served.transport.frames.at(-1)).toContain(`"id":"${BIG_ID}"`);
    expect(served.transport.frames.at(-1)).toContain(`"categoryId":"${MAX_INT64}"`);
    await served.client.callTool({ name: 'get_pet', arguments: { id: BIG_ID } });
    expect(srv.requests.at(-1)?.url).toBe(`/v1/pets/${BIG_ID}`);
    expect(served.transport.frames.at(-1)).toContain(`"id":"${BIG_ID}"`);
    await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: MAX_INT64 } });
    expect(srv.requests.at(-1)?.body).toBe(`{"name":"Rex","categoryId":${MAX_INT64}}`);
    expect(served.transport.frames.at(-1)).toContain(`"id":"${BIG_ID}"`);
    expect(served.transport.frames.at(-1)).toContain(`"categoryId":"${MAX_INT64}"`);
    expect(srv.requests.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${KEY}`));
    expect(await ended(served)).toEqual({ code: 0, signal: null });
    expectNoKey(served, [served.env.PETSTORE_CONFIG_DIR!, served.env.HOME!]);
  });

  it('refuses an integer id beyond 2^53 - 1 (already rounded), asking for the string form; nothing sent', async () => {
    const srv = await pool.start();
    const served = await remote(srv);
    // What a client holding 2^53 + 1 as a number sends: JSON.stringify writes it rounded, 2^53.
    const r = await served.client.callTool({ name: 'get_pet', arguments: { id: 2 ** 53 + 1 } });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'usage', status: 0 });
    expect(structured(r).error?.message).toContain('invalid id 9007199254740992');
    expect(structured(r).error?.hint).toContain('as a string of digits');
    expect(srv.requests).toHaveLength(0);
  });
});

describe('petstore mcp: failures are results', () => {
  it.each<[string, Handler, string, Record<string, unknown>, { code: string; status: number }]>([
    ['401', apiError(401, 'unauthorized', 'bad key'), 'list_pets', {}, { code: 'unauthorized', status: 401 }],
    ['404', apiError(404, 'not_found', 'no such pet'), 'get_pet', { id: '7' }, { code: 'not_found', status: 404 }],
  ])('%s: isError with the CLI code, message, status and hint', async (_name, handler, tool, args, expected) => {
    const srv = await pool.start(handler);
    const served = await remote(srv);
    const r = await served.client.callTool({ name: tool, arguments: args });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject(expected);
    expect(structured(r).error?.hint).toBeDefined();
    expectNoKey(served, [served.env.PETSTORE_CONFIG_DIR!]);
  });

  it("a 503 with x-request-id: the error names the server's request id", async () => {
    const srv = await pool.start(apiError(503, 'unavailable', 'down', { 'x-request-id': 'req_mcp_41d7' }));
    const served = await remote(srv, ['--retries', '0']);
    const r = await served.client.callTool({ name: 'list_pets', arguments: {} });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'unavailable', status: 503, requestId: 'req_mcp_41d7' });
    const text = (r.content as { type: string; text: string }[])[0]!.text;
    expect(text).toBe('error (unavailable, HTTP 503): down (request req_mcp_41d7)');
  });

  it('a 429 then success: sent again by the retry policy, answered', async () => {
    const srv = await pool.start(
      sequence(apiError(429, 'too_many', 'slow down', { 'retry-after': '0' }), answer({ status: 200, raw: BIG_PETS })),
    );
    const served = await remote(srv);
    const r = await served.client.callTool({ name: 'list_pets', arguments: {} });
    expect(r.isError).toBeFalsy();
    expect(srv.requests).toHaveLength(2);
  });

  it('a create answered 429 then 201 is created once', async () => {
    const srv = await pool.start(
      sequence(
        apiError(429, 'too_many', 'slow down', { 'retry-after': '0' }),
        answer({ status: 201, raw: BIG_PETS.slice(1, -1) }),
      ),
    );
    const served = await remote(srv, ['--allow-writes']);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: 1 } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(srv.requests.map((q) => q.method)).toEqual(['POST', 'POST']);
  });

  it('a create answered 201 with a body that breaks the API: an error result saying it may have been created, with its key', async () => {
    const srv = await pool.start(answer({ status: 201, raw: '{"name":"Rex","categoryId":1}' }));
    const served = await remote(srv, ['--allow-writes']);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: 1 } });
    expect(r.isError).toBe(true);
    const key = String(srv.requests[0]?.headers['idempotency-key']);
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(structured(r).error).toMatchObject({ code: 'invalid_response', status: 201, idempotencyKey: key });
    expect(structured(r).error?.message).toContain(`the pet may have been created (Idempotency-Key ${key})`);
    expect(structured(r).error?.hint).toContain('list_pets');
    expect(srv.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('a timeout bounds each call; a create that timed out may have been created, and is not sent again', async () => {
    const srv = await pool.start(slowHeaders(60_000));
    const served = await remote(srv, ['--allow-writes'], undefined);
    served.transport.child.kill('SIGKILL');
    const env = mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY });
    const timed = await serveMcp(['--timeout', '0.5', 'mcp', '--allow-writes'], env);
    servers.push(timed);
    const r = await timed.client.callTool({ name: 'list_pets', arguments: {} });
    expect(structured(r).error).toMatchObject({ code: 'timeout' });
    const c = await timed.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: 1 } });
    expect(structured(c).error?.code).toBe('timeout');
    expect(structured(c).error?.message).toContain('may have been created');
    expect(structured(c).error?.hint).toContain('list_pets');
    expect(srv.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
    // A fresh deadline for the next call: the server still answers.
    srv.handle(answer({ status: 200, raw: BIG_PETS }));
    expect((await timed.client.callTool({ name: 'list_pets', arguments: {} })).isError).toBeFalsy();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['list_pets', { limit: 0 }, 'invalid limit "0": must be a whole number from 1 to 100'],
    ['list_pets', { status: 'lost' }, 'invalid status "lost": must be one of available, pending, sold'],
    ['list_pets', { max_pages: 3 }, 'max_pages needs all: true'],
    ['list_pets', { colour: 'red' }, 'unknown argument "colour"'],
    ['get_pet', { id: 'seven' }, 'invalid id "seven": must be an integer'],
    ['create_pet', { name: 'Rex' }, 'missing categoryId'],
    ['create_pet', { name: 'Rex', categoryId: '99999999999999999999' }, 'invalid categoryId "99999999999999999999"'],
  ])('%s %j: refused before anything is sent', async (tool, args, message) => {
    const srv = await pool.start();
    const served = await remote(srv, ['--allow-writes', '--yes']);
    const r = await served.client.callTool({ name: tool, arguments: args });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'usage', status: 0 });
    expect(structured(r).error?.message).toContain(message);
    expect(srv.requests).toHaveLength(0);
  });
});

describe('petstore mcp: writes are confirmed', () => {
  const created = (): Handler => answer({ status: 201, raw: BIG_PETS.slice(1, -1) });

  it('asks a client that can ask, naming the environment, host and pet; accepted: sent', async () => {
    const srv = await pool.start(created());
    const served = await remote(srv, ['--allow-writes'], 'accept');
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(served.asked).toEqual([
      `Create the pet {"name":"Rex","categoryId":3} in production (${new URL(srv.origin).host})?`,
    ]);
    expect(srv.requests).toHaveLength(1);
  });

  it.each(['decline', 'cancel'] as const)('%s: nothing sent, an isError result saying so', async (ask) => {
    const srv = await pool.start(created());
    const served = await remote(srv, ['--allow-writes'], ask);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'not_confirmed' });
    expect(structured(r).error?.message).toContain('nothing was sent');
    expect(served.asked).toHaveLength(1);
    expect(srv.requests).toHaveLength(0);
  });

  it('confirmWrites with a client that cannot ask: refused without --yes, sent with it', async () => {
    const srv = await pool.start(created());
    const env = mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY });
    const set = await runCli(['config', 'set', 'production.confirmWrites', 'true'], { env });
    expect(set.code, set.stderr).toBe(0);
    const refused = await serveMcp(['mcp', '--allow-writes'], env);
    servers.push(refused);
    const r = await refused.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(structured(r).error).toMatchObject({ code: 'not_confirmed' });
    expect(structured(r).error?.hint).toContain('--yes');
    expect(srv.requests).toHaveLength(0);
    const yes = await serveMcp(['--yes', 'mcp', '--allow-writes'], env);
    servers.push(yes);
    const ok = await yes.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(ok.isError, JSON.stringify(ok)).toBeFalsy();
    expect(srv.requests).toHaveLength(1);
    expectNoKey(yes, [env.PETSTORE_CONFIG_DIR!]);
  });

  it("confirmWrites follows the base URL: staging selected with production's URL in PETSTORE_BASE_URL is refused as production", async () => {
    const srv = await pool.start(created());
    const env = mcpEnv({ PETSTORE_ENV: 'staging', PETSTORE_BASE_URL: `${srv.baseUrl}/`, PETSTORE_API_KEY: KEY });
    for (const args of [
      ['config', 'set', 'production.baseUrl', srv.baseUrl],
      ['config', 'set', 'production.confirmWrites', 'true'],
    ]) {
      const set = await runCli(args, { env });
      expect(set.code, set.stderr).toBe(0);
    }
    const refused = await serveMcp(['mcp', '--allow-writes'], env);
    servers.push(refused);
    const r = await refused.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(structured(r).error).toMatchObject({ code: 'not_confirmed' });
    expect(structured(r).error?.message).toMatch(/^production\.confirmWrites is on, .*nothing was sent to staging/);
    expect(srv.requests).toHaveLength(0);
  });

  it('the sandbox asks nothing', async () => {
    const served = await serveMcp(['--env', 'sandbox', 'mcp', '--allow-writes'], mcpEnv(), 'accept');
    servers.push(served);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: 1 } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(served.asked).toEqual([]);
  });
});

describe('petstore mcp: cancellation, the cap, concurrency, lifecycle', () => {
  it("a client's cancellation aborts the call's request; the server goes on", async () => {
    let aborted!: () => void;
    const abortSeen = new Promise<void>((resolve) => (aborted = resolve));
    let arrived!: () => void;
    const requestSeen = new Promise<void>((resolve) => (arrived = resolve));
    const srv = await pool.start((_req, res: ServerResponse) => {
      arrived();
      res.once('close', () => aborted());
      return new Promise(() => undefined);
    });
    const served = await remote(srv);
    const controller = new AbortController();
    const call = served.client.callTool({ name: 'list_pets', arguments: {} }, { signal: controller.signal });
    await requestSeen;
    controller.abort();
    await expect(call).rejects.toThrow();
    await abortSeen;
    srv.handle(answer({ status: 200, raw: BIG_PETS }));
    expect((await served.client.callTool({ name: 'list_pets', arguments: {} })).isError).toBeFalsy();
  });

  it('--max-result-bytes: list_pets with all stops at the cap and says how far it got', async () => {
    const page = (n: number) =>
      JSON.stringify(
        Array.from({ length: 100 }, (_, i) => ({
          id: n * 100 + i,
          name: `pet-${n}-${i}`,
          categoryId: 1,
          status: 'sold',
        })),
      );
    const srv = await pool.start((req) => {
      const n = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '0');
      const headers: Record<string, string> = n < 50 ? { link: `</v1/pets?limit=100&page=${n + 1}>; rel="next"` } : {};
      return { status: 200, raw: page(n), headers };
    });
    const served = await remote(srv, ['--max-result-bytes', '20000']);
    const r = await served.client.callTool({ name: 'list_pets', arguments: { all: true } });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s.complete).toBe(false);
    expect(s.incomplete).toMatch(
      /^the result reached the server's size cap \(20000 bytes\) after \d+ pages?, with \d+ pets; the cursor goes on with the rest$/,
    );
    expect(s.next_cursor).toEqual(expect.any(String));
    expect(Buffer.byteLength(served.transport.frames.at(-1)!)).toBeLessThan(20000 + 200);
    expect(srv.requests.length).toBeLessThan(51);
  });

  it('answers 50 concurrent calls', async () => {
    const served = await sandbox();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? served.client.callTool({ name: 'list_pets', arguments: { limit: 5 } })
          : served.client.callTool({ name: 'get_pet', arguments: { id: BIG_ID } }),
      ),
    );
    expect(results.filter((r) => r.isError === true)).toEqual([]);
    expect(await ended(served)).toEqual({ code: 0, signal: null });
  });

  it('the end of stdin: the call under way is answered, then exit 0', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const requestSeen = new Promise<void>((resolve) => (arrived = resolve));
    const srv = await pool.start(async () => {
      arrived();
      await released;
      return { status: 200, raw: BIG_PETS };
    });
    const served = await remote(srv);
    const call = served.client.callTool({ name: 'list_pets', arguments: {} });
    await requestSeen;
    await served.transport.close();
    release();
    const r = await call;
    expect(r.isError).toBeFalsy();
    expect(await served.transport.exit).toEqual({ code: 0, signal: null });
    expectNoKey(served, [served.env.PETSTORE_CONFIG_DIR!]);
  });

  it('SIGTERM: the call under way is answered as terminated, then exit 143', async () => {
    let arrived!: () => void;
    const requestSeen = new Promise<void>((resolve) => (arrived = resolve));
    const srv = await pool.start(() => {
      arrived();
      return new Promise(() => undefined);
    });
    const served = await remote(srv);
    const call = served.client.callTool({ name: 'list_pets', arguments: {} });
    await requestSeen;
    served.transport.child.kill('SIGTERM');
    const r = await call;
    expect(structured(r).error).toMatchObject({ code: 'interrupted', message: 'terminated' });
    expect((await served.transport.exit).code).toBe(143);
  });

  it('a bad environment fails before serving: exit 4 without a key, and stdout stays empty', async () => {
    const env = mcpEnv({ PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1' });
    const r = await runCli(['mcp'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });
});

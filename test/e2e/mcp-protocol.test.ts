/**
 * `petstore mcp`'s protocol (cli-contract.md "Agents", docs/mcp.md): the built CLI driven
 * by the official MCP client in both protocol eras (2025-11-25, and pinned to 2026-07-28),
 * and by raw frames written to its stdin: the write confirmation in each era (elicitation,
 * multi-round-trip requests with an HMAC-sealed requestState tied to the pet and
 * environment), progress during `all: true` walks, every malformed frame answered, an
 * oversized frame answered while a create is under way, error answers bounded by
 * `--max-result-bytes`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { answer } from '../helpers/fault-server.js';
import { mcpEnv, serveMcp, type Answer, type ClientMode, type Served } from '../helpers/mcp-client.js';
import { pagingServerPool } from '../helpers/paging-server.js';
import { CLI_ARGV } from '../helpers/run-cli.js';
import { removeTempDirs } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';

const KEY = 'mcp-protocol-key-5d2a9e1f';
const PINNED: ClientMode = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
const CREATED = answer({ status: 201, raw: '{"id":41,"name":"Rex","categoryId":3,"status":"available"}' });

const pool = serverPool();
const paging = pagingServerPool();
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await pool.closeAll();
  await paging.closeAll();
  removeTempDirs();
});

/** A server for the environment at `baseUrl` (production, key in PETSTORE_API_KEY). */
async function remote(baseUrl: string, flags: string[], ask?: Answer, mode: ClientMode = {}): Promise<Served> {
  const env = mcpEnv({ PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: KEY });
  const served = await serveMcp(['mcp', ...flags], env, ask, mode);
  children.push(served.transport.child);
  return served;
}

/** The frames `served`'s server wrote, parsed. */
const framesOf = (served: Served): Record<string, unknown>[] =>
  served.transport.frames.map((f) => JSON.parse(f) as Record<string, unknown>);

/** The server→client requests (`method` and `id`) among `served`'s frames. */
const requestsOf = (served: Served, method: string) => framesOf(served).filter((f) => f.method === method && 'id' in f);

/** The results of `served`'s frames that asked for input (2026-07-28 multi-round-trip). */
const inputRequiredOf = (served: Served) =>
  framesOf(served).filter((f) => (f.result as { resultType?: string } | undefined)?.resultType === 'input_required');

const structured = (r: unknown) => (r as { structuredContent: Record<string, unknown> }).structuredContent;

describe('petstore mcp: both protocol eras', () => {
  it('a client pinned to 2026-07-28 connects, lists the tools and the pets, follows a next_cursor, with the same instructions', async () => {
    const modern = await serveMcp(['--env', 'sandbox', 'mcp'], mcpEnv(), undefined, PINNED);
    children.push(modern.transport.child);
    const legacy = await serveMcp(['--env', 'sandbox', 'mcp'], mcpEnv());
    children.push(legacy.transport.child);
    expect(
      framesOf(modern).some((f) =>
        (f.result as { supportedVersions?: string[] } | undefined)?.supportedVersions?.includes('2026-07-28'),
      ),
    ).toBe(true);
    const tools = await modern.client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual((await legacy.client.listTools()).tools.map((t) => t.name));
    expect(modern.client.getInstructions()).toBe(legacy.client.getInstructions());
    const r = await modern.client.callTool({ name: 'list_pets', arguments: { limit: 3 } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    const first = structured(r);
    expect((first.pets as unknown[]).length).toBe(3);
    // The paging contract in this era too: the first page says there is more, and its cursor
    // gives the next three pets, none of the first page's.
    expect(first.complete).toBe(false);
    expect(typeof first.next_cursor).toBe('string');
    const next = await modern.client.callTool({ name: 'list_pets', arguments: { cursor: first.next_cursor } });
    expect(next.isError, JSON.stringify(next)).toBeFalsy();
    const ids = (result: Record<string, unknown>) => (result.pets as { id: string }[]).map((p) => p.id);
    const second = ids(structured(next));
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((id) => ids(first).includes(id))).toEqual([]);
  });

  it("a client in 'auto' mode negotiates 2026-07-28 through server/discover", async () => {
    const served = await serveMcp(['--env', 'sandbox', 'mcp'], mcpEnv(), undefined, {
      versionNegotiation: { mode: 'auto' },
    });
    children.push(served.transport.child);
    expect(framesOf(served).some((f) => 'supportedVersions' in ((f.result as object | undefined) ?? {}))).toBe(true);
    const r = await served.client.callTool({ name: 'get_pet', arguments: { id: '1' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
  });
});

describe('petstore mcp: the write confirmation in each era', () => {
  it('2026-07-28: the create asks by input_required, accepted: sent once; no server-to-client request', async () => {
    const srv = await pool.start(CREATED);
    const served = await remote(srv.baseUrl, ['--allow-writes'], 'accept', PINNED);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(served.asked).toEqual([
      `Create the pet {"name":"Rex","categoryId":3} in production (${new URL(srv.origin).host})?`,
    ]);
    expect(srv.requests).toHaveLength(1);
    const asked = inputRequiredOf(served);
    expect(asked).toHaveLength(1);
    expect(typeof (asked[0]!.result as { requestState?: unknown }).requestState).toBe('string');
    expect(requestsOf(served, 'elicitation/create')).toEqual([]);
  });

  it.each(['decline', 'cancel'] as const)('2026-07-28, %s: nothing sent, not_confirmed', async (ask) => {
    const srv = await pool.start(CREATED);
    const served = await remote(srv.baseUrl, ['--allow-writes'], ask, PINNED);
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'not_confirmed' });
    expect(srv.requests).toHaveLength(0);
  });

  it('2025-11-25: the create asks by elicitation/create, accepted: sent once', async () => {
    const srv = await pool.start(CREATED);
    const served = await remote(srv.baseUrl, ['--allow-writes'], 'accept');
    const r = await served.client.callTool({ name: 'create_pet', arguments: { name: 'Rex', categoryId: '3' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(served.asked).toHaveLength(1);
    expect(requestsOf(served, 'elicitation/create')).toHaveLength(1);
    expect(inputRequiredOf(served)).toEqual([]);
    expect(srv.requests).toHaveLength(1);
  });

  it('2026-07-28: a tampered requestState is refused, one sealed for another pet is refused; the right one creates', async () => {
    const srv = await pool.start(CREATED);
    const served = await remote(srv.baseUrl, ['--allow-writes'], 'accept', {
      ...PINNED,
      inputRequired: { autoFulfill: false },
    });
    const rex = { name: 'Rex', categoryId: '3', status: 'available' };
    const first = (await served.client.callTool(
      { name: 'create_pet', arguments: rex },
      { allowInputRequired: true },
    )) as unknown as { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['confirm']);
    const accepted = { confirm: { action: 'accept', content: {} } };
    const again = (args: Record<string, string>, requestState: string) =>
      served.client.callTool({ name: 'create_pet', arguments: args, inputResponses: accepted, requestState } as never, {
        allowInputRequired: true,
      });

    const [body, mac] = first.requestState.split('.').slice(1);
    const flipped = `${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`;
    await expect(again(rex, `v1.${body}.${flipped}`)).rejects.toThrow(/Invalid or expired requestState/);
    // The payload rewritten to another pet, the MAC kept: refused too.
    const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as { p: { question: string } };
    decoded.p.question = decoded.p.question.replace('Rex', 'Max');
    const forged = Buffer.from(JSON.stringify(decoded)).toString('base64url');
    await expect(again({ ...rex, name: 'Max' }, `v1.${forged}.${mac}`)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    // A genuine state replayed with another pet's arguments: the answer does not hold for it.
    const other = await again({ ...rex, name: 'Max' }, first.requestState);
    expect(structured(other).error).toMatchObject({ code: 'not_confirmed' });
    expect((structured(other).error as { message: string }).message).toContain('another pet');
    // Another environment's or status's question is another question, too.
    const sold = await again({ ...rex, status: 'sold' }, first.requestState);
    expect(structured(sold).error).toMatchObject({ code: 'not_confirmed' });
    expect(srv.requests).toHaveLength(0);

    const created = await again(rex, first.requestState);
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    expect(srv.requests).toHaveLength(1);
  });

  it('a state sealed by another server (another secret) is refused', async () => {
    const srv = await pool.start(CREATED);
    const mode: ClientMode = { ...PINNED, inputRequired: { autoFulfill: false } };
    const one = await remote(srv.baseUrl, ['--allow-writes'], 'accept', mode);
    const two = await remote(srv.baseUrl, ['--allow-writes'], 'accept', mode);
    const rex = { name: 'Rex', categoryId: '3' };
    const first = (await one.client.callTool(
      { name: 'create_pet', arguments: rex },
      { allowInputRequired: true },
    )) as unknown as {
      requestState: string;
    };
    await expect(
      two.client.callTool(
        {
          name: 'create_pet',
          arguments: rex,
          inputResponses: { confirm: { action: 'accept', content: {} } },
          requestState: first.requestState,
        } as never,
        { allowInputRequired: true },
      ),
    ).rejects.toThrow(/Invalid or expired requestState/);
    expect(srv.requests).toHaveLength(0);
  });
});

describe('petstore mcp: progress during all: true walks', () => {
  it.each([
    ['2025-11-25', {}],
    ['2026-07-28', PINNED],
  ] as const)(
    '%s: one notification a page after the first, with a progress token; none without',
    async (_era, mode) => {
      const srv = await paging.start({ pages: 4, perPage: 2 });
      const served = await remote(srv.baseUrl, [], undefined, mode);
      const seen: number[] = [];
      const r = await served.client.callTool(
        { name: 'list_pets', arguments: { all: true } },
        { onprogress: (p) => seen.push(p.progress) },
      );
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(structured(r).count).toBe(8);
      expect(seen).toEqual([1, 2, 3]);
      const before = framesOf(served).length;
      await served.client.callTool({ name: 'list_pets', arguments: { all: true } });
      const later = framesOf(served).slice(before);
      expect(later.filter((f) => f.method === 'notifications/progress')).toEqual([]);
    },
  );
});

/** A `petstore mcp` child spoken to in raw frames: what it writes on stdout, line by line. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every line of stdout, parsed. */
  readonly answers: Record<string, unknown>[] = [];
  /** Every line of stdout as written. */
  readonly lines: string[] = [];
  stderr = '';
  readonly exit: Promise<number | null>;
  private wake: (() => void)[] = [];

  constructor(args: string[], env: Record<string, string>) {
    const [command, ...pre] = CLI_ARGV;
    this.child = spawn(command, [...pre, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(this.child);
    this.exit = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      this.lines.push(line);
      this.answers.push(JSON.parse(line) as Record<string, unknown>);
      for (const wake of this.wake.splice(0)) wake();
    });
  }

  /** Writes `frame` (a newline is added), once the pipe took it. */
  write(frame: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.child.stdin.write(Buffer.concat([Buffer.from(frame), Buffer.from('\n')]), (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  /** Settles once `done` holds of the answers so far. */
  async until(done: (answers: Record<string, unknown>[]) => boolean): Promise<void> {
    while (!done(this.answers)) await new Promise<void>((resolve) => this.wake.push(resolve));
  }

  /** The answer to `id`, once it came. */
  async answerTo(id: unknown): Promise<Record<string, unknown>> {
    await this.until((all) => all.some((a) => a.id === id && ('result' in a || 'error' in a)));
    return this.answers.find((a) => a.id === id && ('result' in a || 'error' in a))!;
  }

  /** The 2025 handshake. */
  async initialize(): Promise<void> {
    await this.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await this.answerTo('init');
    await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  }
}

const call = (id: unknown, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('petstore mcp: frames', () => {
  it('40 malformed frames: each with a readable id is answered with it, the others with id null; notifications are not', async () => {
    const server = new RawServer(['--env', 'sandbox', 'mcp'], mcpEnv());
    await server.initialize();
    const NOTE = 'notification';
    /** Each frame, and the ids its answers carry (`null` for none readable), or NOTE. */
    const frames: [string | Buffer, (string | number | null)[] | typeof NOTE][] = [
      ['{', [null]],
      ['{"jsonrpc":"2.0","id":1,"method":"ping",', [1]],
      ['{"jsonrpc":"2.0","id":2,"method":"ping"}garbage', [2]],
      ['[]', [null]],
      ['[1,2]', [null]],
      ['[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]', ['b1', 'b2']],
      ['{"jsonrpc":"1.0","id":3,"method":"ping"}', [3]],
      ['{"id":4,"method":"ping"}', [4]],
      ['{"jsonrpc":"2.0","id":5}', [5]],
      ['{"jsonrpc":"2.0","id":6,"method":7}', [6]],
      ['{"jsonrpc":"2.0","id":true,"method":"ping"}', [null]],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', [null]],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', [null]],
      ['{"jsonrpc":"2.0","id":[1],"method":"ping"}', [null]],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', [1.5]],
      [`{"jsonrpc":"2.0","id":"${'i'.repeat(5000)}","method":"ping"}`, [null]],
      ['{"jsonrpc":"2.0","id":1e400,"method":"ping"}', [null]],
      // A huge number id comes back as the double every JSON parser reads it as.
      ['{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}', [1.2345678901234568e29]],
      ['42', [null]],
      ['"ping"', [null]],
      ['null', [null]],
      ['true', [null]],
      ['{"jsonrpc":"2.0","method":"notifications/initialized"}', NOTE],
      ['{"jsonrpc":"2.0","method":"notifications/no-such-thing","params":{"x":[1,{"y":null}]}}', NOTE],
      ['{"jsonrpc":"2.0","method":"ping"}', NOTE],
      ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}', [7]],
      ['{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"no_such_tool"}}', [8]],
      ['{"jsonrpc":"2.0","id":9,"method":"no/such/method"}', [9]],
      ['{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"list_pets","arguments":[1,2]}}', [10]],
      ['{"jsonrpc":"2.0","id":11,"result":"x"}', [11]],
      ['{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":[[[[[[[[[[{}]]]]]]]]]]}}', [12]],
      ['{"a":{"b":{"c":[1,{"d":"e"}]}}}', [null]],
      ['{"jsonrpc":"2.0","id":"","method":"ping"}', ['']],
      ['{"jsonrpc":"2.0","id":-1,"method":"ping"}', [-1]],
      [Buffer.from([0xff, 0xfe, 0x7b, 0x22]), [null]],
      ['{"jsonrpc":"2.0","id":14,"id":15,"method":"ping"}', [15]],
      ['{"jsonrpc":"2.0","method":5}', [null]],
      ['{"jsonrpc":"2.0","id":16,"method":"initialize","params":{}}', [16]],
      ['{"jsonrpc":"2.0","id":17,"error":{"code":"x"}}', [17]],
      ['{"jsonrpc":"2.0","id":18,"method":"resources/read","params":{"uri":"petstore://nope"}}', [18]],
      ['{"jsonrpc":"2.0","id":"s\\u0000\\u202e","method":"ping"}', ['s\u0000\u202e']],
    ];
    expect(frames.length).toBeGreaterThanOrEqual(40);
    const start = server.answers.length;
    for (const [frame] of frames) await server.write(frame);
    await server.write('{"jsonrpc":"2.0","id":"end","method":"ping"}');
    const expected = frames.flatMap(([, ids]) => (ids === NOTE ? [] : ids));
    await server.until((all) => all.length - start >= expected.length + 1);
    await server.answerTo('end');
    const got = server.answers.slice(start).filter((a) => a.id !== 'end');
    const key = (id: unknown) => JSON.stringify(id);
    expect(got.map((a) => key(a.id)).sort()).toEqual(expected.map(key).sort());
    for (const a of got) expect('error' in a || 'result' in a).toBe(true);
    expect(
      got.filter((a) => (a.error as { code?: number } | undefined)?.code === -32700).length,
    ).toBeGreaterThanOrEqual(4);
    // Still serving.
    const r = await server.write(call('after', 'get_pet', { id: '1' })).then(() => server.answerTo('after'));
    expect((r.result as { isError?: boolean }).isError).toBeFalsy();
    server.child.stdin.end();
    expect(await server.exit).toBe(0);
  });

  it('an 11 MiB frame while a create is under way: the create is answered, the frame gets an error, the next call is answered', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const posted = new Promise<void>((resolve) => (arrived = resolve));
    const srv: TestServer = await pool.start(async (req) => {
      if (req.method !== 'POST') return { status: 200, body: [] };
      arrived();
      await released;
      return { status: 201, raw: '{"id":41,"name":"Rex","categoryId":3,"status":"available"}' };
    });
    const server = new RawServer(
      ['--yes', 'mcp', '--allow-writes'],
      mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY }),
    );
    await server.initialize();
    await server.write(call('create', 'create_pet', { name: 'Rex', categoryId: '3' }));
    await posted;
    const big = 'x'.repeat(11 * 1024 * 1024);
    // The id first (as most clients write it), and last (as the official client writes it).
    await server.write(call('big-head', 'list_pets', { status: big }));
    await server.write(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_pets","arguments":{"status":"${big}"}},"id":"big-tail"}`,
    );
    await server.write(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_pets","arguments":{"status":"${big}"}}}`,
    );
    for (const id of ['big-head', 'big-tail']) {
      const a = await server.answerTo(id);
      expect(a.error).toMatchObject({ code: -32600 });
      expect((a.error as { message: string }).message).toContain('over the limit of 10485760 bytes');
    }
    await server.until((all) => all.some((a) => a.id === null));
    release();
    const created = await server.answerTo('create');
    expect((created.result as { isError?: boolean }).isError, JSON.stringify(created)).toBeFalsy();
    expect(srv.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await server.write(call('next', 'list_pets', {}));
    const next = await server.answerTo('next');
    expect((next.result as { isError?: boolean }).isError, JSON.stringify(next)).toBeFalsy();
    for (const line of server.lines) expect(line.length).toBeLessThan(300_000);
    server.child.stdin.end();
    expect(await server.exit).toBe(0);
  });

  it('a 5 MB bad argument: the error answer is at most --max-result-bytes, the input cut with an ellipsis', async () => {
    const server = new RawServer(['--env', 'sandbox', 'mcp', '--max-result-bytes', '1024'], mcpEnv());
    await server.initialize();
    await server.write(call('bad', 'list_pets', { status: 's'.repeat(5_000_000) }));
    const a = await server.answerTo('bad');
    const line = server.lines[server.answers.indexOf(a)]!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(1024);
    const result = a.result as { isError: boolean; structuredContent: { error: { code: string; message: string } } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error.code).toBe('usage');
    expect(result.structuredContent.error.message).toMatch(/^invalid status "s+…s+": must be /);
    // A JSON-RPC error quoting a long method name is bounded too.
    await server.write(JSON.stringify({ jsonrpc: '2.0', id: 'm', method: 'm'.repeat(3_000_000) }));
    await server.answerTo('m');
    for (const l of server.lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(1024 + 4096);
    server.child.stdin.end();
    expect(await server.exit).toBe(0);
  });

  it('the end of stdin while the 2025 client is being asked: the call is answered, then exit 0', async () => {
    const srv = await pool.start(CREATED);
    const server = new RawServer(
      ['mcp', '--allow-writes'],
      mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY }),
    );
    await server.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    await server.answerTo('init');
    await server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await server.write(call('create', 'create_pet', { name: 'Rex', categoryId: '3' }));
    await server.until((all) => all.some((a) => a.method === 'elicitation/create'));
    server.child.stdin.end();
    const a = await server.answerTo('create');
    expect((a.result as { isError?: boolean }).isError).toBe(true);
    expect(srv.requests).toHaveLength(0);
    expect(await server.exit).toBe(0);
  });
});

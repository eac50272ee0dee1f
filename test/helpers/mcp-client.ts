/**
 * The official MCP client (`@modelcontextprotocol/client`) driving the built CLI's
 * `petstore mcp` over stdio (or the standalone executable, under PETSTORE_TEST_EXECUTABLE:
 * `CLI_ARGV`), through a transport that keeps every raw JSON-RPC line the server wrote, so
 * a test can read int64 ids as they were sent, before any `JSON.parse` rounded them, and
 * look for a key in every frame.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, type ClientOptions, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { afterAll } from 'vitest';
import { CLI_ARGV } from './run-cli.js';
import { removeTempDirs, tempDir } from './temp-config.js';
import { serverPool } from './test-server.js';

/** How a process ended. */
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A stdio transport over a spawned `petstore mcp` that records the raw lines of stdout. */
class RawStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Every line the server wrote on stdout, as written. */
  readonly frames: string[] = [];
  /** Every byte the server wrote on stdout, as written (a frame's line or not). */
  readonly stdoutBytes: Buffer[] = [];
  stderr = '';
  child!: ChildProcessWithoutNullStreams;
  /** Settles when the process ended. */
  exit!: Promise<Exit>;

  constructor(
    private readonly args: string[],
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    const [command, ...pre] = CLI_ARGV;
    this.child = spawn(command, [...pre, ...this.args], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exit = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.child.stdout.on('data', (d: Buffer) => this.stdoutBytes.push(d));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.frames.push(line);
      this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
    });
    this.child.on('exit', () => this.onclose?.());
    await Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child.stdin.writable) return;
    await new Promise<void>((resolve) => this.child.stdin.write(`${JSON.stringify(message)}\n`, () => resolve()));
  }

  /** Ends stdin: the server answers what is under way and exits. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await Promise.resolve();
  }
}

/** The environment of a server: nothing of the parent's but PATH, fresh config, state and cache folders. */
export function mcpEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = tempDir('petstore-mcp-home-');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_STATE_HOME: `${home}/.state`,
    PETSTORE_CONFIG_DIR: tempDir('petstore-mcp-config-'),
    ...extra,
  };
}

/** What a person answers to a question the server asks (elicitation); undefined: the client cannot ask. */
export type Answer = 'accept' | 'decline' | 'cancel';

/** A connected client and its server. */
export interface Served {
  client: Client;
  transport: RawStdioTransport;
  /** The questions the server asked (their messages). */
  asked: string[];
}

/** The client's options besides its capabilities: its protocol era (`versionNegotiation`), its multi-round-trip mode. */
export type ClientMode = Omit<ClientOptions, 'capabilities'>;

/**
 * Starts `petstore ARGS` (ending in `mcp ...`) with `env` and connects the official client
 * to it: a 2025-11-25 client unless `mode` says otherwise (`versionNegotiation`).
 */
export async function serveMcp(
  args: string[],
  env: Record<string, string>,
  answer?: Answer,
  mode: ClientMode = {},
): Promise<Served> {
  const transport = new RawStdioTransport(args, env);
  const client = new Client(
    { name: 'petstore-test', version: '1.0.0' },
    { ...mode, capabilities: answer === undefined ? {} : { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return Promise.resolve(answer === 'accept' ? { action: 'accept' as const, content: {} } : { action: answer });
    });
  }
  await client.connect(transport);
  return { client, transport, asked };
}

/**
 * A test file's MCP servers and test HTTP servers: `servers` (push each `serveMcp` result)
 * are killed, `pool`'s servers closed and the temp dirs removed once the file's tests are done.
 */
export function mcpTestServers(): { pool: ReturnType<typeof serverPool>; servers: Served[] } {
  const pool = serverPool();
  const servers: Served[] = [];
  afterAll(async () => {
    for (const s of servers) s.transport.child.kill('SIGKILL');
    await pool.closeAll();
    removeTempDirs();
  });
  return { pool, servers };
}

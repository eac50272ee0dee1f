/**
 * Runs Stoplight Prism (an OpenAPI mock and validating proxy written outside this project)
 * against `openapi.yaml`, so the client's requests and the sandbox's responses are judged
 * by an implementation of the contract that is not ours.
 *
 * Measured with @stoplight/prism-cli 5.14.2:
 * - Prism serves the document's `paths` at its root and ignores the base path of `servers`
 *   (`/v1/pets` answers 404 NO_PATH_MATCHED_ERROR; `/pets` is served). Our base URLs end in
 *   `/v1` (cli-contract.md "Environments"), so the CLI talks to a small recording front that
 *   serves `/v1/...`, strips the prefix and forwards to Prism. `prism proxy` keeps the path of
 *   its upstream URL, so the sandbox's own `.../v1` base URL is given to it as is.
 * - With `--errors`, a request that breaks the document is not served: the mock answers the
 *   operation's declared 400 (its example, plus an `sl-violations` header) or else 422
 *   problem+json with a `validation` list; the proxy answers 422 problem+json without
 *   forwarding. A request without a bearer credential gets 401 (the mock's example, the
 *   proxy's own problem+json); a wrong key is not Prism's to judge and reaches the upstream.
 *   In proxy mode an upstream response that breaks the document becomes a 500 problem+json
 *   (`#VIOLATIONS`) listing what is wrong.
 * - Prism does not flag query parameters the document does not declare (`?lim=3` is answered
 *   200), nor body fields beyond the schema (additionalProperties is left open). The front
 *   records every request so tests can check names against the document themselves.
 * - Its validator treats `format: int64` as a safe integer: values above 2^53-1 are flagged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';

/** Path of the API contract. */
const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const PRISM_BIN = fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));

/** The parsed OpenAPI document (plain objects, as in the file). */
export function loadOpenApi(): OpenApiDocument {
  return parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
}

/** The parts of an OpenAPI 3.0 document the tests read. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers: { url: string; description?: string; variables?: Record<string, { default: string }> }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, SchemaObject>;
    responses: Record<string, { description: string; content: Record<string, { schema: SchemaObject }> }>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
}

/** An operation object. */
export interface OpenApiOperation {
  operationId: string;
  deprecated?: boolean;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema: SchemaObject }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: SchemaObject }> };
  responses: Record<
    string,
    { $ref?: string; description?: string; content?: Record<string, { schema: SchemaObject }> }
  >;
}

/** A (loosely typed) schema object. */
export type SchemaObject = Record<string, unknown>;

/** Finds a free TCP port on 127.0.0.1 by listening on port 0 and closing. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A running Prism process. */
export interface RunningPrism {
  /** `http://127.0.0.1:PORT`, where Prism serves the document's paths. */
  origin: string;
  /** Process id of Prism, also the id of its process group. */
  pid: number;
  /** Prism's output so far (for failure messages). */
  output(): string;
  /** Stops Prism's process group and checks nothing of it is left. */
  stop(): Promise<void>;
}

/**
 * Starts `prism mock|proxy openapi.yaml [upstream] --errors` on a free loopback port, in
 * its own process group, and resolves once it says it listens there. A port found free may
 * be taken by another test's server before Prism binds it: then Prism is started again on
 * another (three tries).
 * @throws when Prism exits or does not listen within `timeoutMs`.
 */
async function startPrism(mode: 'mock' | 'proxy', upstream?: string, timeoutMs = 60_000): Promise<RunningPrism> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPrismOn(await freePort(), mode, upstream, timeoutMs);
    } catch (err) {
      if (attempt === 3 || !(err instanceof Error) || !err.message.includes('EADDRINUSE')) throw err;
    }
  }
}

async function startPrismOn(
  port: number,
  mode: 'mock' | 'proxy',
  upstream: string | undefined,
  timeoutMs: number,
): Promise<RunningPrism> {
  const args = [PRISM_BIN, mode, OPENAPI_FILE, ...(upstream === undefined ? [] : [upstream])];
  args.push('--errors', '--host', '127.0.0.1', '--port', String(port));
  const child: ChildProcess = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
  });
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pgid = child.pid as number;
  const origin = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 3_000);
    await exited;
    // The leader's exit does not wait for the rest of its group, nor for them to be reaped:
    // wait for the group to be gone (a loaded machine reaps late), up to a limit for a
    // process that really stays.
    const gone = Date.now() + 30_000;
    while (groupAlive(pgid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    clearTimeout(timer);
    if (groupAlive(pgid)) throw new Error(`Prism's process group ${pgid} is still running`);
  };

  const deadline = Date.now() + timeoutMs;
  // Its own line, not any HTTP answer on the port: that could come from another server.
  while (!log.includes(`Prism is listening on ${origin}`)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Prism exited before listening:\n${log}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Prism did not listen within ${timeoutMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { origin, pid: pgid, output: () => log, stop };
}

/** True while any process of group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One request that passed through the front, with Prism's verdict. */
export interface FrontRecord {
  method: string;
  /** Path without the `/v1` prefix, as matched against the document's `paths`. */
  path: string;
  query: URLSearchParams;
  body: string;
  /** The request's Content-Type header. */
  contentType?: string;
  /** Status Prism answered. */
  status: number;
  /** Prism's `sl-violations` header, when it sent one. */
  violations?: string;
  /** Prism's answer body when it is Prism's own problem+json (a violation report). */
  problem?: string;
  /** The answer body as the client received it. */
  responseBody: string;
}

/** The recording front of a Prism instance. */
export interface Front {
  /** `http://127.0.0.1:PORT/v1`, the base URL the CLI is given. */
  baseUrl: string;
  records: FrontRecord[];
  close(): Promise<void>;
}

/**
 * Starts the front: serves `/v1/...` on a free loopback port, forwards each request to
 * Prism with the prefix removed, and records the request and Prism's verdict. Anything
 * outside `/v1/` is answered 404 and recorded (a client that drops the base path fails).
 */
async function startFront(prismOrigin: string): Promise<Front> {
  const records: FrontRecord[] = [];
  const target = new URL(prismOrigin);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://front');
      const body = Buffer.concat(chunks);
      const record: FrontRecord = {
        method: req.method ?? '',
        path: url.pathname.replace(/^\/v1(?=\/)/, ''),
        query: url.searchParams,
        body: body.toString('utf8'),
        status: 0,
        responseBody: '',
      };
      if (req.headers['content-type'] !== undefined) record.contentType = req.headers['content-type'];
      records.push(record);
      if (!url.pathname.startsWith('/v1/')) {
        record.status = 404;
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: 'outside_base_path', message: `${url.pathname} is outside /v1`, status: 404 }));
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: record.path + url.search, headers },
        (up) => {
          record.status = up.statusCode ?? 0;
          const v = up.headers['sl-violations'];
          if (typeof v === 'string') record.violations = v;
          const out: Buffer[] = [];
          up.on('data', (c: Buffer) => out.push(c));
          up.on('end', () => {
            const text = Buffer.concat(out);
            record.responseBody = text.toString('utf8');
            if (/problem\+json/.test(up.headers['content-type'] ?? '')) record.problem = text.toString('utf8');
            const h = { ...up.headers };
            delete h['transfer-encoding'];
            h['content-length'] = String(text.length);
            res.writeHead(record.status, h);
            res.end(text);
          });
        },
      );
      upstream.on('error', (err) => {
        record.status = 502;
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`front: ${err.message}`);
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Finds the document's operation for a recorded request (`/pets/123` matches
 * `/pets/{petId}`). Undefined when the document has none.
 */
export function operationFor(doc: OpenApiDocument, method: string, path: string): OpenApiOperation | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(path)) return item[method.toLowerCase()];
  }
  return undefined;
}

/**
 * What Prism does not check itself: every query parameter and every top-level body field
 * of a recorded request is one the document declares for that operation. Returns the
 * problems found (empty when the request keeps to the document).
 */
export function undeclared(doc: OpenApiDocument, record: FrontRecord): string[] {
  const op = operationFor(doc, record.method, record.path);
  if (op === undefined) return [`${record.method} ${record.path} is not an operation of the document`];
  const problems: string[] = [];
  const declared = new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of record.query.keys()) {
    if (!declared.has(name)) problems.push(`query parameter "${name}" is not declared for ${op.operationId}`);
  }
  const ref = op.requestBody?.content['application/json']?.schema.$ref;
  if (typeof ref === 'string' && record.body !== '') {
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')] as { properties?: object };
    const fields = Object.keys(schema.properties ?? {});
    for (const key of Object.keys(JSON.parse(record.body) as object)) {
      if (!fields.includes(key)) problems.push(`body field "${key}" is not declared for ${op.operationId}`);
    }
  }
  return problems;
}

/**
 * Prism in `mode` (proxying to `upstream()` in proxy mode) behind a recording front, for the
 * calling file: started before its tests, stopped after them, and no Prism process may
 * outlive the file. `run` runs the CLI against the front with `key` and config folder
 * `configDir()`, and returns its result with the requests it made.
 */
export function prismForFile(mode: 'mock' | 'proxy', configDir: () => string, upstream?: () => string) {
  let prism: RunningPrism | undefined;
  let front: Front | undefined;
  beforeAll(async () => {
    prism = await startPrism(mode, upstream?.());
    front = await startFront(prism.origin);
  });
  afterAll(async () => {
    // beforeAll may have failed before assigning these.
    await front?.close();
    await prism?.stop();
    if (prism !== undefined) expect(groupAlive(prism.pid)).toBe(false);
  });
  const started = (): Front => {
    if (front === undefined) throw new Error('Prism and its front have not started');
    return front;
  };
  return {
    get front(): Front {
      return started();
    },
    async run(args: string[], key: string, secrets?: string[]) {
      const f = started();
      const before = f.records.length;
      const result = await runMain(args, {
        env: remoteEnv(f.baseUrl, key, { PETSTORE_CONFIG_DIR: configDir() }),
        ...(secrets === undefined ? {} : { secrets }),
      });
      return { ...result, requests: f.records.slice(before) };
    },
  };
}

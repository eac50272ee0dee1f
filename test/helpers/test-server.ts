/**
 * A small HTTP server on 127.0.0.1 for end-to-end tests: it records every request it
 * receives (method, URL, headers, body) and answers with whatever the test scripts,
 * including answers that break the API contract on purpose.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-config.js';

/** A request as the server saw it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An answer: status, headers and a body (a string is sent as is; anything else as JSON). */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON and exact int64 literals). */
  raw?: string;
}

/** Decides the answer to one request; may also write to `res` itself and return undefined. */
export type Handler = (req: RecordedRequest, res: ServerResponse) => Reply | undefined | Promise<Reply | undefined>;

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` (the `host` it listens on, IPv6 in brackets) */
  origin: string;
  /** `origin + '/v1'` */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replaces the handler. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** JSON Error body of the spec (§2). */
export function errorReply(status: number, code: string, message: string): Reply {
  return { status, body: { code, message, status } };
}

/** How a test server listens. */
export interface TestServerOptions {
  /** Speak HTTPS with this key and certificate (PEM); `origin` is then `https://127.0.0.1:PORT`. */
  tls?: { key: string; cert: string };
  /**
   * Close each kept-alive connection this many ms after answering, unless another request
   * came on it meanwhile — an idle timeout the server never announces (no `Connection:
   * close`, no `Keep-Alive: timeout`), so a client may write its next request to a
   * connection the server is closing.
   */
  closeIdleAfterMs?: number;
  /** The address to listen on instead of 127.0.0.1: another of 127.0.0.0/8, or `::1`. */
  host?: string;
}

/** Starts a server on 127.0.0.1 (or `opts.host`) and a free port. The default handler answers 200 `[]`. */
export async function startTestServer(initial?: Handler, opts: TestServerOptions = {}): Promise<TestServer> {
  let handler: Handler = initial ?? (() => ({ status: 200, body: [] }));
  const requests: RecordedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res))
        .then((reply) => {
          if (reply === undefined || res.headersSent || res.destroyed) return;
          const text = reply.raw ?? (typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null));
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(text);
        })
        .catch(() => res.destroy());
    });
    if (opts.closeIdleAfterMs !== undefined) closeWhenIdle(req, res, opts.closeIdleAfterMs);
  };
  const server: Server = opts.tls === undefined ? createServer(listener) : createTlsServer(opts.tls, listener);
  // No idle timeout of Node's own (nor its `Keep-Alive: timeout` header) beside closeIdleAfterMs.
  if (opts.closeIdleAfterMs !== undefined) server.keepAliveTimeout = 0;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${opts.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    handle: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Requests seen per connection (closeIdleAfterMs). */
const requestsOn = new WeakMap<object, number>();

/** Destroys the connection of `req` `ms` after `res` is sent, unless another request came on it. */
function closeWhenIdle(req: IncomingMessage, res: ServerResponse, ms: number): void {
  const socket = req.socket;
  const seen = (requestsOn.get(socket) ?? 0) + 1;
  requestsOn.set(socket, seen);
  res.on('finish', () => {
    setTimeout(() => {
      if (requestsOn.get(socket) === seen) socket.destroy();
    }, ms);
  });
}

/**
 * Test servers started on demand within one test file and closed together: `start` is
 * `startTestServer` that remembers the server, `closeAll` goes in the file's `afterAll`.
 */
export function serverPool(): {
  start: (handler?: Handler, opts?: TestServerOptions) => Promise<TestServer>;
  closeAll: () => Promise<void>;
} {
  const servers: TestServer[] = [];
  return {
    start: async (handler, opts) => {
      const s = await startTestServer(handler, opts);
      servers.push(s);
      return s;
    },
    closeAll: async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

/**
 * One test server for every test of the calling file (`const server = await
 * fileTestServer();` at its top level): closed after them, with the temp dirs they made.
 */
export async function fileTestServer(): Promise<TestServer> {
  const server = await startTestServer();
  afterAll(async () => {
    await server.close();
    removeTempDirs();
  });
  return server;
}

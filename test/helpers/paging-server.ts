/**
 * A test server that serves `GET /v1/pets` in pages linked by `Link: rel="next"` headers
 * (RFC 8288), generating `pages × perPage` pets on the fly, and counts the TCP connections
 * it accepted (to prove a kept-alive connection serves every page).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of the paging server. */
export interface PagingOptions {
  pages: number;
  /** Pets per page; ignores the client's `limit` when set. */
  perPage?: number;
  /** Length of each generated name (to make pages heavy). */
  nameLength?: number;
  /** Wait before each answer, in ms. */
  delayMs?: number;
  /** Builds the next link for page `n` (1-based) from the request; default: absolute same-origin URL with `page=n`. */
  nextLink?: (n: number, req: IncomingMessage, origin: string) => string;
  /** Extra headers on every answer. */
  headers?: Record<string, string>;
  /** Custom handler for one page; return true when it answered. */
  override?: (page: number, req: IncomingMessage, res: ServerResponse) => boolean;
}

/** A running paging server. */
export interface PagingServer {
  origin: string;
  baseUrl: string;
  /** Request URLs in order. */
  urls: string[];
  /** Authorization headers seen. */
  auth: (string | undefined)[];
  /** TCP connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 and a free port. */
export async function startPagingServer(opts: PagingOptions): Promise<PagingServer> {
  const urls: string[] = [];
  const auth: (string | undefined)[] = [];
  let connections = 0;
  let origin = '';
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    auth.push(req.headers.authorization);
    const url = new URL(req.url ?? '/', origin);
    const page = Number(url.searchParams.get('page') ?? '1');
    const limit = opts.perPage ?? Number(url.searchParams.get('limit') ?? '20');
    const answer = (): void => {
      if (opts.override?.(page, req, res) === true) return;
      const pets = [];
      for (let i = 0; i < limit; i++) {
        const id = (page - 1) * limit + i + 1;
        pets.push({ id, name: `pet-${id}-`.padEnd(opts.nameLength ?? 8, 'x'), categoryId: 1, status: 'available' });
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      if (page < opts.pages) {
        headers.link = (opts.nextLink ?? ((n, _r, o) => `<${o}/v1/pets?limit=${limit}&page=${n}>; rel="next"`))(
          page + 1,
          req,
          origin,
        );
      }
      res.writeHead(200, headers);
      res.end(JSON.stringify(pets));
    };
    if (opts.delayMs !== undefined) setTimeout(answer, opts.delayMs);
    else answer();
  });
  // Idle connections are kept for two minutes, not Node's 5 s (which undici reads from the
  // `Keep-Alive: timeout` header, less a margin): on a loaded machine a run may pause that
  // long between two pages, and `connections()` must count what the client does, not the
  // machine's load.
  server.keepAliveTimeout = 120_000;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    urls,
    auth,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The paging servers of one test file (as test-server.ts `serverPool`): `closeAll` after its tests. */
export function pagingServerPool(): {
  start: (opts: PagingOptions) => Promise<PagingServer>;
  closeAll: () => Promise<void>;
} {
  const servers: PagingServer[] = [];
  return {
    start: async (opts) => {
      const s = await startPagingServer(opts);
      servers.push(s);
      return s;
    },
    closeAll: async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

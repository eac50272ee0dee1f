/**
 * The sandbox: a Pet Store server that follows ../shared/spec/petstore-api.md to the letter,
 * on node:http, over a `SandboxStore`. Used in-process by `--env sandbox` (so requests still
 * cross real HTTP through the same client), by `petstore sandbox serve`, and by tests.
 *
 * Choices where the spec is silent (documented in docs/sandbox.md):
 * - `createPet` without `status` stores `available` (a new animal in a store is for sale);
 *   a `name` that is empty or only white space is refused with 400.
 * - Error `code` values: `unauthorized` (401), `invalid_request` (400), `not_found` (404),
 *   `method_not_allowed` (405), `idempotency_key_in_use` (409), `payload_too_large` (413),
 *   `idempotency_key_reused` (422), `internal_error` (500), `busy` (503, with
 *   `Retry-After: 1`: another process held the data's lock for the whole wait).
 *   Error messages are the sandbox's own: a 500 says what failed (e.g. which file could
 *   not be written), never a library's text.
 * - Pagination (spec §4.4 leaves it open): when more pets follow a page, the answer carries
 *   `Link: <…/pets?…&cursor=OPAQUE>; rel="next"` (RFC 8288); `cursor` is a sandbox extension.
 * - `getPet` answers carry `Deprecation: @1764892800` (RFC 9745; 2025-12-05, a date the
 *   sandbox picks) and `Sunset: Thu, 05 Dec 2030 00:00:00 GMT` (RFC 8594; spec §4.3).
 * - A method a path does not serve answers 405 `method_not_allowed` with `Allow` listing the
 *   path's methods (RFC 9110 §15.5.6), before the key check, and without any operation's
 *   deprecation headers: `DELETE /v1/pets/1` is not a call of getPet.
 * - With `withoutGetPet` it plays the API after the removal: `getPet` answers
 *   `410 Gone` with an Error body, code `gone` (after the key check, like every operation).
 * - `createPet` honours `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header,
 *   as Stripe's and Adyen's APIs do), checked after the key and the body: a key of 1 to
 *   255 visible ASCII characters, kept 24 hours with its pet. The same key
 *   and body again answer the first create's 201 (same body and `Location`) with
 *   `Idempotent-Replayed: true` (Stripe's header) and create nothing; another body answers
 *   422 `idempotency_key_reused`; a key whose first request is still being answered, 409
 *   `idempotency_key_in_use`. Failed requests keep no key (`idempotency.ts`, `store.ts`).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GET_PET_REMOVAL_DATE,
  INT64_MAX,
  INT64_MIN,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  PET_STATUSES,
} from '../client/constants.js';
import { NewPetSchema, type NewPet, type Pet } from '../client/schemas.js';
import { ConfigError } from '../base/errors.js';
import { LockBusyError } from '../fs/file-lock.js';
import { parseJson, stringifyJson } from '../base/json.js';
import { IdempotencyKeyReusedError, keyProblem, requestFingerprint } from './idempotency.js';
import { newSandboxKey } from './key-file.js';
import { deprecationHeaders, RouteTable, type RouteDescription } from './routes.js';
import type { SandboxStore } from './store.js';
import { formatCount } from '../text/count.js';

/** Largest request body accepted, in bytes. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** Options of a sandbox server. */
export interface SandboxOptions {
  store: SandboxStore;
  /** The bearer key the server accepts (`key-file.ts` `sandboxKey`); a random one when omitted. */
  apiKey?: string;
  /** Called once per answered request (for `sandbox serve`'s log). */
  onRequest?: (line: string) => void;
  /** Play the API after getPet's removal: `GET /pets/{petId}` answers 410 Gone (code `gone`). */
  withoutGetPet?: boolean;
  /**
   * Called with what made a request fail with 500: a ConfigError from the store (a file
   * that cannot be read or written, with its path) or an unexpected error (a bug).
   */
  onError?: (err: unknown) => void;
}

/** A running sandbox. */
export interface RunningSandbox {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:43117/v1`. */
  baseUrl: string;
  apiKey: string;
  server: Server;
  /** Stops the server, lets the requests under way finish, and closes the store. */
  close(): Promise<void>;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Starts a sandbox on `host:port` (default 127.0.0.1, a free port).
 * @throws the listen error (e.g. EADDRINUSE).
 */
export async function startSandbox(opts: SandboxOptions & { host?: string; port?: number }): Promise<RunningSandbox> {
  const apiKey = opts.apiKey ?? newSandboxKey();
  // Handlers still running, so close() can let a store write that began finish (and
  // release its lock) before the process exits, e.g. after Ctrl-C aborted the client.
  const inFlight = new Set<Promise<void>>();
  // The Idempotency-Keys whose first request this server is still answering (the 409).
  const keysInFlight = new Set<string>();
  const server = createServer((req, res) => {
    const started = Date.now();
    res.on('finish', () => opts.onRequest?.(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`));
    // Aborted when the client goes away, so a create still waiting for the lock gives up.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const done: Promise<void> = handle(req, res, { opts, apiKey, keysInFlight }, gone.signal)
      .catch((err: unknown) => {
        if (gone.signal.aborted) return;
        opts.onError?.(err);
        sendError(
          res,
          new HttpProblem(
            500,
            'internal_error',
            err instanceof ConfigError ? err.message : 'internal error in the sandbox server',
          ),
        );
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  });
  // Short keep-alive so `sandbox serve` clients do not hold sockets forever.
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${urlHost}:${port}/v1`,
    apiKey,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Bounded: a handler stuck on a dead socket must not keep the process alive.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000).unref())),
      ]);
      clearTimeout(timer);
      await opts.store.close();
    },
  };
}

/** What an operation's handler is given. */
interface OperationCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  opts: SandboxOptions;
  /** The path's parameters by template name (`petId`), percent-decoded. */
  params: Record<string, string>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The `Idempotency-Key`s whose first request this server is still answering. */
  keysInFlight: Set<string>;
}

/** What every request of one server shares. */
interface ServerShared {
  opts: SandboxOptions;
  apiKey: string;
  keysInFlight: Set<string>;
}

/** Runs one operation; throws HttpProblem (or LockBusyError) for an error answer. */
type OperationHandler = (call: OperationCall) => Promise<void>;

/**
 * The sandbox's operations (spec §4), by path and method: what `handle` serves, what a 405's
 * `Allow` lists, and which answers carry the deprecation headers. A new operation is one
 * entry here plus its handler.
 */
const ROUTES = new RouteTable<OperationHandler>('/v1', [
  {
    path: '/pets',
    methods: {
      GET: { operationId: 'listPets', handle: listPets },
      POST: { operationId: 'createPet', handle: createPet },
    },
  },
  {
    path: '/pets/{petId}',
    methods: {
      // The spec gives the removal date (§4.3, §9); the deprecation date is the sandbox's choice.
      GET: {
        operationId: 'getPet',
        handle: getPet,
        deprecated: { since: '2025-12-05', removal: GET_PET_REMOVAL_DATE },
      },
    },
  },
]);

/**
 * The operations the sandbox serves, in table order: operation id, method, path template
 * relative to the base URL (`/pets/{petId}`), and the `Deprecation`/`Sunset` values of a
 * deprecated one. A description: changing it changes nothing the server does.
 */
export function sandboxOperations(): RouteDescription[] {
  return ROUTES.describe();
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  { opts, apiKey, keysInFlight }: ServerShared,
  signal: AbortSignal,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  try {
    const route = ROUTES.match(req.method ?? 'GET', url.pathname);
    if (route === undefined) throw new HttpProblem(404, 'not_found', `no such path: ${url.pathname}`);
    // Decoded before the method is judged: a malformed path is a 400 whatever the method.
    const params = Object.fromEntries(Object.entries(route.params).map(([k, v]) => [k, decodePathSegment(v)]));
    if (route.operation === undefined) {
      // Not an answer of the path's operations, so none of their headers (no Deprecation on a 405).
      throw new HttpProblem(405, 'method_not_allowed', `${req.method} is not allowed on ${url.pathname}`, {
        Allow: route.allow,
      });
    }
    const { deprecated } = route.operation;
    if (deprecated !== undefined) {
      // Every answer of the operation carries them, a 401 or a 410 included.
      const headers = deprecationHeaders(deprecated);
      res.setHeader('Deprecation', headers.deprecation);
      res.setHeader('Sunset', headers.sunset);
    }
    checkAuth(req, apiKey);
    await route.operation.handle({ req, res, url, opts, params, signal, keysInFlight });
  } catch (err) {
    if (err instanceof LockBusyError) {
      sendError(res, busy(err));
      return;
    }
    if (!(err instanceof HttpProblem)) throw err;
    sendError(res, err);
  } finally {
    // Drain any unread body so keep-alive connections stay usable.
    req.resume();
  }
}

/**
 * A path segment's percent-decoding (RFC 3986 §2.1).
 * @throws HttpProblem 400 `invalid_request` when it is not valid percent-encoded UTF-8
 * (`%E0%A4%A`): a malformed request, not a failure of the server.
 */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpProblem(400, 'invalid_request', `the path segment ${segment} is not valid percent-encoded UTF-8`);
  }
}

function checkAuth(req: IncomingMessage, apiKey: string): void {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const given = Buffer.from(m?.[1] ?? '');
  const want = Buffer.from(apiKey);
  if (m === null || given.length !== want.length || !timingSafeEqual(given, want)) {
    throw new HttpProblem(
      401,
      'unauthorized',
      m === null ? 'missing API key: send Authorization: Bearer <key>' : 'invalid API key',
      { 'WWW-Authenticate': 'Bearer realm="petstore"' },
    );
  }
}

/** `listPets`: `GET /pets?limit&status&cursor` (spec §4.1; `cursor` is the sandbox's). */
async function listPets({ req, res, url, opts: { store } }: OperationCall): Promise<void> {
  const limitRaw = url.searchParams.get('limit');
  const statusRaw = url.searchParams.get('status');
  const cursorRaw = url.searchParams.get('cursor');
  let limit = LIMIT_DEFAULT;
  if (limitRaw !== null) {
    if (!/^[0-9]+$/.test(limitRaw) || Number(limitRaw) < LIMIT_MIN || Number(limitRaw) > LIMIT_MAX) {
      throw new HttpProblem(400, 'invalid_request', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`);
    }
    limit = Number(limitRaw);
  }
  if (statusRaw !== null && !(PET_STATUSES as readonly string[]).includes(statusRaw)) {
    throw new HttpProblem(400, 'invalid_request', `status must be one of ${PET_STATUSES.join(', ')}`);
  }
  let after: bigint | undefined;
  if (cursorRaw !== null) after = decodeCursor(cursorRaw);

  const data = await store.read();
  const matching = data.pets
    .filter((p) => statusRaw === null || p.status === statusRaw)
    .filter((p) => after === undefined || BigInt(p.id) > after)
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0));
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  if (matching.length > limit && last !== undefined) {
    const next = new URL(`http://${req.headers.host ?? 'localhost'}/v1/pets`);
    next.searchParams.set('limit', String(limit));
    if (statusRaw !== null) next.searchParams.set('status', statusRaw);
    next.searchParams.set('cursor', encodeCursor(BigInt(last.id)));
    res.setHeader('Link', `<${next.href}>; rel="next"`);
  }
  sendJson(res, 200, page.map(publicPet));
}

/** The 503 for a create that waited for the lock as long as it may. */
function busy(err: LockBusyError): HttpProblem {
  const holder = err.holder === undefined ? 'another process' : err.holder;
  return new HttpProblem(
    503,
    'busy',
    `the sandbox data is busy: ${holder} holds its lock (${err.lockPath}); the pet was not created, try again`,
    { 'Retry-After': '1' },
  );
}

/**
 * `createPet`: `POST /pets` with a NewPet (spec §4.2), and an optional `Idempotency-Key`
 * (IETF draft-ietf-httpapi-idempotency-key-header), judged after the body.
 * @throws HttpProblem 400 `invalid_request` for a key that is not 1 to 255 visible ASCII
 * characters; 409 `idempotency_key_in_use` while this server still answers the key's
 * first request (the draft; RFC 9110 §15.5.10); 422 `idempotency_key_reused` for a key used
 * with another body within 24 hours (the draft; RFC 9110 §15.5.21). Neither creates a pet.
 */
async function createPet({ req, res, opts: { store }, signal, keysInFlight }: OperationCall): Promise<void> {
  const received = await readNewPet(req);
  const pet: NewPet = { name: received.name, categoryId: received.categoryId, status: received.status ?? 'available' };
  const key = idempotencyKeyOf(req);
  if (key === undefined) {
    sendCreated(res, await store.create(pet, { signal }));
    return;
  }
  // Only this process's requests: another process's are settled by the store, under its lock.
  if (keysInFlight.has(key)) {
    throw new HttpProblem(
      409,
      'idempotency_key_in_use',
      'the first request with this Idempotency-Key is still being answered; the pet was not created',
    );
  }
  keysInFlight.add(key);
  try {
    // Fingerprinted as received: without the status filled in.
    const idempotency = { key, fingerprint: requestFingerprint(received) };
    sendCreated(res, await store.create(pet, { signal, idempotency }));
  } catch (err) {
    if (err instanceof IdempotencyKeyReusedError) throw new HttpProblem(422, 'idempotency_key_reused', err.message);
    throw err;
  } finally {
    keysInFlight.delete(key);
  }
}

/**
 * The request's `Idempotency-Key`, undefined when it has none. Several such headers arrive
 * joined by `, ` (node:http), which no key may hold.
 * @throws HttpProblem 400 `invalid_request` naming the rule (never the value) when it is
 * not 1 to 255 visible ASCII characters.
 */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(', ') : header;
  const problem = keyProblem(key);
  if (problem !== undefined) throw new HttpProblem(400, 'invalid_request', problem);
  return key;
}

/** The 201 of a create: `Location` and the pet; a replay says so (`Idempotent-Replayed`, Stripe's header). */
function sendCreated(res: ServerResponse, { pet, replayed }: { pet: Pet; replayed: boolean }): void {
  res.setHeader('Location', `/v1/pets/${pet.id}`);
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  sendJson(res, 201, publicPet(pet));
}

/**
 * The NewPet of a request body (spec §2): JSON of that schema, with a name that is not blank.
 * @throws HttpProblem 400 `invalid_request` naming what is wrong; 413 for a body over 1 MiB.
 */
async function readNewPet(req: IncomingMessage): Promise<NewPet> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpProblem(400, 'invalid_request', 'the body must be application/json');
  }
  const text = await readBody(req);
  let body: unknown;
  try {
    body = parseJson(text);
  } catch {
    throw new HttpProblem(400, 'invalid_request', 'the body is not valid JSON');
  }
  const parsed = NewPetSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw new HttpProblem(
      400,
      'invalid_request',
      field === '' ? 'the body must be a NewPet object' : `invalid ${field}: ${issue?.message ?? 'invalid value'}`,
    );
  }
  if (parsed.data.name.trim() === '') throw new HttpProblem(400, 'invalid_request', 'invalid name: must not be empty');
  return parsed.data;
}

/** The int64 of a `{petId}` path parameter (spec §2), or undefined when it is none (no such pet: 404). */
function petIdOf(params: Record<string, string>): bigint | undefined {
  const petId = params.petId ?? '';
  const valid = /^-?[0-9]+$/.test(petId) && BigInt(petId) >= INT64_MIN && BigInt(petId) <= INT64_MAX;
  return valid ? BigInt(petId) : undefined;
}

/** `getPet`: `GET /pets/{petId}` (spec §4.3); 410 Gone with `withoutGetPet`. */
async function getPet({ res, opts, params }: OperationCall): Promise<void> {
  if (opts.withoutGetPet === true) {
    throw new HttpProblem(
      410,
      'gone',
      `getPet (GET /pets/{petId}) was removed on ${GET_PET_REMOVAL_DATE}; use GET /pets with the status filter`,
    );
  }
  const petId = petIdOf(params);
  const data = petId === undefined ? undefined : await opts.store.read();
  const pet = data?.pets.find((p) => BigInt(p.id) === petId);
  if (pet === undefined) throw new HttpProblem(404, 'not_found', `pet ${params.petId ?? ''} not found`);
  sendJson(res, 200, publicPet(pet));
}

/** Only the fields the spec defines, in its order. */
function publicPet(p: Pet): Pet {
  return p.status === undefined
    ? { id: p.id, name: p.name, categoryId: p.categoryId }
    : { id: p.id, name: p.name, categoryId: p.categoryId, status: p.status };
}

function encodeCursor(afterId: bigint): string {
  return Buffer.from(`after:${afterId}`).toString('base64url');
}

function decodeCursor(cursor: string): bigint {
  const m = /^after:(-?[0-9]{1,20})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (m === null) throw new HttpProblem(400, 'invalid_request', 'cursor is not one this server issued');
  return BigInt(m[1] ?? '0');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES)
      throw new HttpProblem(
        413,
        'payload_too_large',
        `the body is larger than ${formatCount(MAX_REQUEST_BYTES)} bytes`,
      );
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringifyJson(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, problem: HttpProblem): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [k, v] of Object.entries(problem.headers)) res.setHeader(k, v);
  sendJson(res, problem.status, { code: problem.code, message: problem.message, status: problem.status });
}

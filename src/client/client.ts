/**
 * The Pet Store API client: `listPets`, `createPet`, `getPet` (spec §4), each returning
 * data validated against the spec's schemas. It never prints.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, InvalidResponseError, type CliError } from '../base/errors.js';
import type { HttpRequest, HttpTransport, JsonResponse, OutgoingRequest, RawResponse } from '../http/transport.js';
import { requestIdOf } from '../http/transport.js';
import { parseJson, stringifyJson } from '../base/json.js';
import { operationOf, type OperationId, type PetStatus } from './constants.js';
import { baseScope, resolveApiPath, type BaseScope } from './paths.js';
import { ErrorSchema, PetSchema, PetsSchema, describeIssue, type NewPet, type Pet } from './schemas.js';
import type { z } from 'zod';

/** A validated result plus the response headers (for `Link`, `Deprecation`, `Sunset`). */
export interface ApiResult<T> {
  data: T;
  headers: IncomingHttpHeaders;
  url: URL;
}

/** Query of `listPets` (spec §4.1). `limit` 1..100; omitted means the server's default (20). */
export interface ListPetsQuery {
  limit?: number;
  status?: PetStatus;
}

/**
 * Hints shown under API errors (cli-contract.md "Errors and exit codes"). The defaults
 * know nothing of the run; `ctx.connect()` passes ones that name the environment and where
 * the key and base URL came from, so a suggested command is right when pasted.
 */
export interface ClientHints {
  /** Under a 401: how to log in (again). */
  unauthorized: string;
  /** Under getPet's 404: the pet is missing; how to list the ones that exist. */
  notFoundPet: string;
  /** Under a 404 of /pets itself: the base URL is likely wrong. */
  notFoundPath: string;
}

const DEFAULT_HINTS: ClientHints = {
  unauthorized: 'The API key was refused. Log in again with `petstore auth login`, or set PETSTORE_API_KEY.',
  notFoundPet: 'List the pets that exist with `petstore pets list`.',
  notFoundPath: 'The base URL has no /pets: check that it ends with the version segment /v1 (`petstore config list`).',
};

/**
 * Joins a base URL ending in the version segment (e.g. `https://host/v1`) and a path,
 * without double slashes (cli-contract.md "Environments").
 */
export function joinUrl(baseUrl: string, path: string): URL {
  return new URL(baseUrl.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, ''));
}

/**
 * `createPet`'s request (spec §4.2): `POST /pets` with the NewPet as JSON (int64 exact) and
 * its `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header; cli-contract.md "Bulk
 * create": every create carries one). A server that does not know the header ignores it.
 */
function createPetRequest(baseUrl: string, pet: NewPet, idempotencyKey: string): HttpRequest {
  return {
    method: 'POST',
    url: joinUrl(baseUrl, 'pets'),
    body: stringifyJson(pet),
    headers: { 'idempotency-key': idempotencyKey },
  };
}

/** Client of one base URL over one transport. */
export class PetstoreClient {
  private readonly hints: ClientHints;
  /** The base URL's bounds, which every request's redirects keep to (cli-contract.md "Network behaviour"). */
  private readonly scope: BaseScope;

  /**
   * @param transport sends the requests (key, deadline, retries, proxies).
   * @param baseUrl ends with the version segment, e.g. `https://api.example.com/v1` (spec
   * §9); paths are joined after it.
   * @param hints the lines shown under a 401 or a 404, with the commands of this run.
   */
  constructor(
    private readonly transport: HttpTransport,
    readonly baseUrl: string,
    hints: Partial<ClientHints> = {},
  ) {
    this.hints = { ...DEFAULT_HINTS, ...hints };
    this.scope = baseScope(baseUrl);
  }

  /**
   * `listPets`: `GET /pets?limit&status` (spec §4.1). With `url`, fetches that exact URL
   * instead (a `Link: rel="next"` target, already checked to lie within the base URL).
   * `timeoutMs` shortens the request's deadline on a transport whose deadline bounds each
   * request (`pets watch`: what is left of one walk's `--timeout`).
   * @throws ApiError (401 → exit 4), InvalidResponseError, NetworkError, TimeoutError.
   */
  async listPets(query: ListPetsQuery, url?: URL, timeoutMs?: number): Promise<ApiResult<Pet[]>> {
    let target = url;
    if (target === undefined) {
      target = joinUrl(this.baseUrl, 'pets');
      if (query.limit !== undefined) target.searchParams.set('limit', String(query.limit));
      if (query.status !== undefined) target.searchParams.set('status', query.status);
    }
    const res = await this.transport.send({ method: 'GET', url: target, scope: this.scope, timeoutMs });
    return validate(res, 200, PetsSchema, 'Pets', this.hints);
  }

  /**
   * `createPet`: `POST /pets` with a NewPet body (spec §4.2) and the `Idempotency-Key`
   * `opts.idempotencyKey` (a server that honours it creates one pet per key). Sent once;
   * never retried once it may have reached the server (a 429 is sent again by the transport,
   * with the same key). `opts.timeoutMs`: a deadline shorter than the transport's for this
   * request (with a per-request deadline).
   * @throws ApiError (400 → exit 6, 401 → exit 4, a 429 with its headers when the caller
   * handles refusals), InvalidResponseError, NetworkError, TimeoutError.
   */
  async createPet(pet: NewPet, opts: { idempotencyKey: string; timeoutMs?: number }): Promise<ApiResult<Pet>> {
    const res = await this.transport.send({
      ...createPetRequest(this.baseUrl, pet, opts.idempotencyKey),
      timeoutMs: opts.timeoutMs,
      scope: this.scope,
    });
    return validate(res, 201, PetSchema, 'Pet', this.hints);
  }

  /**
   * What `createPet(pet, { idempotencyKey })` would send, as the server would receive it
   * (a dry run): see `outgoing`.
   */
  createPetOutgoing(pet: NewPet, idempotencyKey: string, keyAs: string): OutgoingRequest {
    return this.outgoing(createPetRequest(this.baseUrl, pet, idempotencyKey), keyAs);
  }

  /**
   * What `raw(req)` would send, as the server would receive it (a dry run): method, URL,
   * every header with the key written as `keyAs`, and the body; nothing is sent.
   */
  outgoing(req: HttpRequest, keyAs: string): OutgoingRequest {
    return this.transport.outgoing({ ...req, scope: this.scope }, keyAs);
  }

  /**
   * The URL of a raw request's `path` (`petstore api`): joined to the base URL's path.
   * @throws UsageError (exit 2) for an absolute URL, `//host`, or `..` above the base path.
   */
  urlOf(path: string): URL {
    return resolveApiPath(this.baseUrl, path);
  }

  /**
   * A raw request (`petstore api`): any method, to a URL from `urlOf` or a `Link` within
   * the base URL, with the run's key, deadline, retry policy and redirect rules; the answer is
   * returned as it is, whatever its status. Check its status with `answerError`.
   * @throws NetworkError, TimeoutError, TlsError, InterruptedError, InvalidResponseError
   * (a body over the cap, a refused redirect: to another origin or outside the base path).
   */
  async raw(req: HttpRequest): Promise<RawResponse> {
    return this.transport.sendRaw({ ...req, scope: this.scope });
  }

  /**
   * The error a raw answer of 400 or more stands for (an ApiError for an API Error body,
   * else an InvalidResponseError; the exit code follows the status), with this run's hints.
   */
  answerError(res: RawResponse): CliError | undefined {
    return rawAnswerError(res, {
      unauthorized: this.hints.unauthorized,
      notFound: `Paths are relative to ${this.baseUrl.replace(/\/+$/, '')}/: \`petstore api pets\` requests ${this.baseUrl.replace(/\/+$/, '')}/pets.`,
    });
  }

  /**
   * A declared operation that answers one Pet (operations/pets.ts `request`), sent as spec
   * §4 gives it (`operationOf`): its path template filled with `params` (percent-encoded),
   * `body` as JSON (int64 exact), and, for a write, its `Idempotency-Key`. A 404 of a path
   * naming a pet is a missing pet.
   * @throws ApiError (400 → exit 6, 401 → exit 4, 404 → exit 5), InvalidResponseError,
   * NetworkError, TimeoutError.
   */
  async sendOperation(
    id: OperationId,
    req: { params: Record<string, string>; body?: unknown; idempotencyKey?: string },
  ): Promise<ApiResult<Pet>> {
    const { method, path, success } = operationOf(id);
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(req.params[name] ?? ''));
    const res = await this.transport.send({
      method,
      url: joinUrl(this.baseUrl, filled),
      scope: this.scope,
      ...(req.body === undefined ? {} : { body: stringifyJson(req.body) }),
      ...(req.idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': req.idempotencyKey } }),
    });
    const notFound = path.includes('{petId}') ? { notFoundPath: this.hints.notFoundPet } : {};
    return validate(res, success, PetSchema, 'Pet', { ...this.hints, ...notFound });
  }

  /**
   * `getPet` (deprecated, removed 2030-12-05): `GET /pets/{petId}` (spec §4.3).
   * @throws ApiError (401 → exit 4, 404 → exit 5), InvalidResponseError, NetworkError, TimeoutError.
   */
  async getPet(petId: bigint): Promise<ApiResult<Pet>> {
    const res = await this.transport.send({
      method: 'GET',
      url: joinUrl(this.baseUrl, `pets/${petId}`),
      scope: this.scope,
    });
    return validate(res, 200, PetSchema, 'Pet', { ...this.hints, notFoundPath: this.hints.notFoundPet });
  }
}

/**
 * Checks a response against the spec: the expected success status with a body of
 * `schema`, or an error status with an Error body (spec §7). `hints.notFoundPath` is the
 * line shown under a 404 (getPet passes its missing-pet hint there: a 404 means a missing
 * pet for getPet but a wrong base URL elsewhere), `hints.unauthorized` under a 401.
 * @throws ApiError for an Error body, InvalidResponseError for anything off-contract.
 */
function validate<T>(
  res: JsonResponse,
  expected: number,
  schema: z.ZodType<T>,
  what: string,
  hints: Partial<ClientHints> = DEFAULT_HINTS,
): ApiResult<T> {
  if (res.status >= 400) {
    const parsed = ErrorSchema.safeParse(res.json);
    if (!parsed.success) {
      throw new InvalidResponseError(
        `server answered ${res.status} with a body that is not an API Error (${describeIssue(parsed.error)})`,
        res.status,
        undefined,
        requestIdOf(res.headers),
      );
    }
    // The HTTP status decides the exit code even if the body's `status` disagrees with it.
    const { code, message, status } = parsed.data;
    throw new ApiError(
      { code, message, status },
      res.status,
      res.status === 404 ? hints.notFoundPath : res.status === 401 ? hints.unauthorized : undefined,
      res.headers,
      { requestId: requestIdOf(res.headers), refusedWait: res.refusedWait },
    );
  }
  if (res.status !== expected) {
    throw new InvalidResponseError(`server answered ${res.status}; the API defines ${expected} here`, res.status);
  }
  const parsed = schema.safeParse(res.json);
  if (!parsed.success) {
    throw new InvalidResponseError(
      `server sent a ${what} that does not match the API: ${describeIssue(parsed.error)}`,
      res.status,
    );
  }
  return { data: parsed.data, headers: res.headers, url: res.url };
}

/** Lines shown under an API error, with the commands of this run (see `ClientHints`). */
interface RawHints {
  /** Under a 401: how to log in (again). */
  unauthorized: string;
  /** Under a 404 whose body is not an API Error: where paths start. */
  notFound: string;
}

/**
 * The error an answer of 400 or more stands for (cli-contract.md "Errors and exit codes":
 * 4 for 401, 5 for 404, 6 for 400, 1 otherwise): an ApiError with the server's Error
 * `code` and `message` when the body is an API Error (spec §7), else an
 * InvalidResponseError naming the status. Undefined below 400.
 */
function rawAnswerError(res: RawResponse, hints: RawHints): CliError | undefined {
  if (res.status < 400) return undefined;
  const hint = res.status === 401 ? hints.unauthorized : undefined;
  let body: unknown;
  try {
    body = parseJson(res.body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    body = undefined;
  }
  const parsed = ErrorSchema.safeParse(body);
  if (parsed.success) {
    const { code, message, status } = parsed.data;
    return new ApiError({ code, message, status }, res.status, hint, res.headers, {
      requestId: requestIdOf(res.headers),
      refusedWait: res.refusedWait,
    });
  }
  // A 404 the API did not word (a gateway's page): most likely a path outside the API.
  return new InvalidResponseError(
    `server answered ${res.status} to ${res.url.pathname}${res.body.length === 0 ? ' with no body' : ', with a body that is not an API Error'}`,
    res.status,
    res.status === 404 ? hints.notFound : hint,
    requestIdOf(res.headers),
  );
}

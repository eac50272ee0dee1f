/**
 * The sandbox's routing, over real HTTP against the real server: a method a path does not
 * serve answers 405 with `Allow` and none of getPet's deprecation headers (RFC 9110
 * §15.5.6; RFC 9745 and RFC 8594 headers belong to getPet's answers only); the route table
 * serves exactly the spec's operations (test/fixtures/api-spec.ts); and through the CLI,
 * `petstore --env sandbox api DELETE pets/1` fails on its 405 without a deprecation warning.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxOperations, startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { API_SPEC, specOperation, specPaths, type SpecMethod } from '../fixtures/api-spec.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const API_KEY = 'sbx_0123456789abcdef0123456789abcdef';
/** getPet's deprecation, as the spec fixture states it. */
const GET_PET_DEPRECATED = specOperation('getPet').deprecated;
const DEPRECATION = GET_PET_DEPRECATED?.deprecation ?? 'getPet is not deprecated';
const SUNSET = GET_PET_DEPRECATED?.sunset ?? 'getPet is not deprecated';
/** Every method a route can declare: what is not the spec's on a path must answer 405. */
const METHODS: readonly SpecMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

let sandbox: RunningSandbox;
/** The same data played after getPet's removal (`withoutGetPet`). */
let removed: RunningSandbox;

beforeAll(async () => {
  const dir = tempDir();
  sandbox = await startSandbox({ store: new SandboxStore(join(dir, 'sandbox.json')), apiKey: API_KEY });
  removed = await startSandbox({
    store: new SandboxStore(join(tempDir(), 'sandbox.json')),
    apiKey: API_KEY,
    withoutGetPet: true,
  });
});

afterAll(async () => {
  // beforeAll may have failed before assigning both.
  /* eslint-disable @typescript-eslint/no-unnecessary-condition */
  await sandbox?.close();
  await removed?.close();
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  removeTempDirs();
});

interface Answer {
  status: number;
  allow: string | null;
  deprecation: string | null;
  sunset: string | null;
  body: string;
}

/** Sends `method path` (path from the origin, e.g. `/v1/pets/1`) with the key unless `key` is false. */
async function call(server: RunningSandbox, method: string, path: string, key = true): Promise<Answer> {
  const res = await fetch(new URL(path, server.baseUrl), {
    method,
    headers: key ? { authorization: `Bearer ${API_KEY}` } : {},
  });
  return {
    status: res.status,
    allow: res.headers.get('allow'),
    deprecation: res.headers.get('deprecation'),
    sunset: res.headers.get('sunset'),
    body: await res.text(),
  };
}

const notAllowed = (method: string, path: string) =>
  JSON.stringify({ code: 'method_not_allowed', message: `${method} is not allowed on ${path}`, status: 405 });

/** The spec's methods on a path template (`/pets/{petId}`), as `Allow` lists them. */
const allowOf = (path: string): string => specPaths().get(path)?.join(', ') ?? 'no such path in the spec';
/** Each path of the spec with a method it does not serve, and the path with `1` for its parameters. */
const UNSERVED = [...specPaths()].flatMap(([path, methods]) =>
  METHODS.filter((m) => !methods.includes(m)).map(
    (method) => [method, `${API_SPEC.basePath}${path.replace(/\{\w+\}/g, '1')}`, path] as const,
  ),
);

describe.concurrent('a method a path does not serve', () => {
  it('is found for both paths (DELETE on each, today)', () => {
    expect(UNSERVED.map(([method, url]) => `${method} ${url}`)).toEqual(
      expect.arrayContaining(['DELETE /v1/pets/1', 'DELETE /v1/pets']),
    );
  });

  it.each(UNSERVED)(
    '%s %s: 405, Allow naming the spec’s methods, no Deprecation or Sunset',
    async (method, url, path) => {
      const a = await call(sandbox, method, url);
      expect(a).toEqual({
        status: 405,
        allow: allowOf(path),
        deprecation: null,
        sunset: null,
        body: notAllowed(method, url),
      });
    },
  );

  it('is judged before the key, and the same after getPet is removed', async () => {
    const [method, url, path] = UNSERVED.find(([, , p]) => p === '/pets/{petId}') ?? ['?', '?', '?'];
    expect(await call(sandbox, method, url, false)).toMatchObject({
      status: 405,
      allow: allowOf(path),
      deprecation: null,
    });
    expect(await call(removed, method, url)).toEqual({
      status: 405,
      allow: allowOf(path),
      deprecation: null,
      sunset: null,
      body: notAllowed(method, url),
    });
  });
});

describe.concurrent("getPet's answers, and only they, carry Deprecation and Sunset", () => {
  it('GET /v1/pets/1: 200 with both', async () => {
    const a = await call(sandbox, 'GET', '/v1/pets/1');
    expect(a).toMatchObject({ status: 200, deprecation: DEPRECATION, sunset: SUNSET });
    expect(JSON.parse(a.body)).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('HEAD follows GET: /v1/pets/1 with both, /v1/pets with neither', async () => {
    expect(await call(sandbox, 'HEAD', '/v1/pets/1')).toEqual({
      status: 200,
      allow: null,
      deprecation: DEPRECATION,
      sunset: SUNSET,
      body: '',
    });
    expect(await call(sandbox, 'HEAD', '/v1/pets')).toEqual({
      status: 200,
      allow: null,
      deprecation: null,
      sunset: null,
      body: '',
    });
  });

  it("also getPet's error answers: 401 without the key, 404, and 410 once removed", async () => {
    expect(await call(sandbox, 'GET', '/v1/pets/1', false)).toMatchObject({
      status: 401,
      deprecation: DEPRECATION,
      sunset: SUNSET,
    });
    expect(await call(sandbox, 'GET', '/v1/pets/424242')).toMatchObject({
      status: 404,
      deprecation: DEPRECATION,
      sunset: SUNSET,
    });
    const gone = await call(removed, 'GET', '/v1/pets/1');
    expect(gone).toMatchObject({ status: 410, deprecation: DEPRECATION, sunset: SUNSET });
    expect(JSON.parse(gone.body)).toMatchObject({ code: 'gone', status: 410 });
  });

  it('not listPets nor createPet', async () => {
    expect(await call(sandbox, 'GET', '/v1/pets?limit=1')).toMatchObject({
      status: 200,
      deprecation: null,
      sunset: null,
    });
    expect(await call(sandbox, 'POST', '/v1/pets', false)).toMatchObject({
      status: 401,
      deprecation: null,
      sunset: null,
    });
  });
});

describe.concurrent('paths', () => {
  it('/v1/pets/ lists; /v1/pets/1/ and /v1/pets/1/x are no path', async () => {
    expect(await call(sandbox, 'GET', '/v1/pets/?limit=1')).toMatchObject({ status: 200 });
    for (const path of ['/v1/pets/1/', '/v1/pets/1/x', '/v1/Pets', '/pets']) {
      const a = await call(sandbox, 'DELETE', path);
      expect(a, path).toEqual({
        status: 404,
        allow: null,
        deprecation: null,
        sunset: null,
        body: JSON.stringify({ code: 'not_found', message: `no such path: ${path}`, status: 404 }),
      });
    }
  });

  it('a path segment that is not valid percent-encoded UTF-8 is a 400 whatever the method', async () => {
    for (const method of ['GET', 'DELETE']) {
      const a = await call(sandbox, method, '/v1/pets/%E0%A4%A');
      expect(a, method).toMatchObject({ status: 400, allow: null, deprecation: null });
      expect(JSON.parse(a.body)).toMatchObject({ code: 'invalid_request', status: 400 });
    }
  });
});

describe("the route table serves exactly the spec's operations", () => {
  it('its description: operation, method, path and deprecation headers of each', () => {
    const served = sandboxOperations().map((op) => ({ ...op, deprecated: op.deprecated ?? null }));
    const spec = API_SPEC.operations.map((op) => ({
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      deprecated:
        op.deprecated === undefined ? null : { deprecation: op.deprecated.deprecation, sunset: op.deprecated.sunset },
    }));
    expect(served).toEqual(spec);
  });

  it.each(API_SPEC.operations.map((op) => [op.operationId, op] as const))(
    '%s is served: without a key it answers 401, with its deprecation headers if deprecated',
    async (_id, op) => {
      // A 401 (spec §5.3, documented by every operation) is answered only once the route
      // matched, so it tells that the operation is there without creating anything.
      expect(op.errors).toContain(401);
      const a = await call(sandbox, op.method, `${API_SPEC.basePath}${op.path.replace(/\{\w+\}/g, '1')}`, false);
      expect(a).toMatchObject({
        status: 401,
        deprecation: op.deprecated?.deprecation ?? null,
        sunset: op.deprecated?.sunset ?? null,
      });
    },
  );

  it.each([...specPaths()])(
    'every other method on %s answers 405 with Allow naming the spec’s',
    async (path, methods) => {
      const others = METHODS.filter((m) => !methods.includes(m));
      expect(others.length).toBeGreaterThan(0);
      for (const method of others) {
        const a = await call(sandbox, method, `${API_SPEC.basePath}${path.replace(/\{\w+\}/g, '1')}`);
        expect(a, method).toMatchObject({ status: 405, allow: methods.join(', '), deprecation: null, sunset: null });
      }
    },
  );
});

describe.concurrent('petstore --env sandbox api', () => {
  const env = () => ({ env: { PETSTORE_CONFIG_DIR: tempDir() } });

  it('DELETE pets/1: the 405 Error body, exit 1, and no deprecation warning', async () => {
    const r = await runMain(['--env', 'sandbox', 'api', 'DELETE', 'pets/1'], env());
    // Contract "Errors and exit codes": a 405 is "any other failure".
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      code: 'method_not_allowed',
      message: 'DELETE is not allowed on /v1/pets/1',
      status: 405,
    });
    expect(r.stderr).toBe('error: DELETE is not allowed on /v1/pets/1 (method_not_allowed, HTTP 405)\n');
  });

  it('GET pets/1 still warns that getPet is deprecated', async () => {
    const r = await runMain(['--env', 'sandbox', 'api', 'pets/1'], env());
    expect(r.code).toBe(0);
    expect(r.stderr.replace(/\n\s*/g, ' ')).toContain(
      `GET /v1/pets/1 is deprecated (since ${new Date(Number(DEPRECATION.slice(1)) * 1000).toISOString().slice(0, 10)}) and will be removed on ${GET_PET_DEPRECATED?.removal ?? ''}`,
    );
  });
});

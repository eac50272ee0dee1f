/**
 * What the CLI sends (spec §4, §5): method, path, query, bearer key, content type and the
 * exact createPet body, recorded by the test server; base URL joining and precedence
 * (cli-contract.md "Environments").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { API_SPEC, specOperation, specUrl } from '../fixtures/api-spec.js';
import { fileServers } from '../helpers/harness.js';
import { CLI_OPERATIONS, longFlag, neededFlags, operationStore } from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { type Handler } from '../helpers/test-server.js';

const KEY = 'pk_test_requests_abcdef0123';
const LIST_PETS = specOperation('listPets');
const CREATE_PET = specOperation('createPet');
const GET_PET = specOperation('getPet');
const { start: server } = fileServers();
let dir: string;

beforeAll(() => {
  dir = tempDir();
});

function run(args: string[], env: Record<string, string | undefined>) {
  return runMain(args, { env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_API_KEY: KEY, ...env } });
}

/** Answers createPet like a server would: 201 with the body plus an id, as raw text. */
const echoCreate: Handler = (req) =>
  req.method === CREATE_PET.method
    ? { status: 201, raw: req.body.replace(/^\{/, '{"id":9007199254740993,') }
    : { status: 200, body: [] };

describe.concurrent('requests as sent', () => {
  it('listPets: GET /v1/pets with limit, status and the bearer key', async () => {
    const srv = await server();
    const r = await run(['pets', 'list', '--limit', '007', '--status', 'pending'], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code).toBe(0);
    expect(srv.requests).toHaveLength(1);
    const req = srv.requests[0];
    expect(req?.method).toBe(LIST_PETS.method);
    const url = new URL(req?.url ?? '', srv.origin);
    expect(url.pathname).toBe(specUrl('listPets'));
    expect(Object.fromEntries(url.searchParams)).toEqual({ limit: '7', status: 'pending' });
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.body).toBe('');
  });

  it('listPets without flags sends no query (the server default applies)', async () => {
    const srv = await server();
    const r = await run(['pets', 'list'], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([specUrl('listPets')]);
  });

  it('createPet: POST /v1/pets, application/json, the exact body with an int64 above 2^53', async () => {
    const srv = await server(echoCreate);
    const r = await run(
      [
        'pets',
        'create',
        '--name',
        'Zoë "Z" \\ Tab\t',
        '--category-id',
        '9223372036854775807',
        '--status',
        'pending',
        '--json',
      ],
      { PETSTORE_BASE_URL: srv.baseUrl },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(srv.requests).toHaveLength(1);
    const req = srv.requests[0];
    expect(req?.method).toBe(CREATE_PET.method);
    expect(req?.url).toBe(specUrl('createPet'));
    expect(req?.headers['content-type']).toMatch(/^application\/json\b/);
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.body).toBe('{"name":"Zoë \\"Z\\" \\\\ Tab\\t","categoryId":9223372036854775807,"status":"pending"}');
    expect(r.stdout).toContain('"id": 9007199254740993');
    expect(r.stdout).toContain('"categoryId": 9223372036854775807');
  });

  it.each([
    ['9007199254740993', '9007199254740993'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['0042', '42'],
  ])('createPet sends --category-id %s as the JSON number %s, no status when none given', async (given, sent) => {
    const srv = await server(echoCreate);
    const r = await run(['pets', 'create', '--name', 'Rex', `--category-id=${given}`], {
      PETSTORE_BASE_URL: srv.baseUrl,
    });
    expect(r.code).toBe(0);
    expect(srv.requests[0]?.body).toBe(`{"name":"Rex","categoryId":${sent}}`);
  });

  it('getPet: GET /v1/pets/{id} with the id exactly', async () => {
    const srv = await server(() => ({ status: 200, raw: '{"id":9223372036854775807,"name":"Max","categoryId":1}' }));
    const r = await run(['pets', 'get', '9223372036854775807'], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('9223372036854775807\tMax\t1\t\n');
    expect(srv.requests.map((q) => `${q.method} ${q.url}`)).toEqual([
      `${GET_PET.method} ${specUrl('getPet', { petId: '9223372036854775807' })}`,
    ]);
  });

  it.each([
    ['007', specUrl('getPet', { petId: 7 })],
    ['-0', specUrl('getPet', { petId: 0 })],
    ['-9223372036854775808', specUrl('getPet', { petId: '-9223372036854775808' })],
  ])('getPet sends the id %s in canonical form', async (given, path) => {
    const srv = await server(() => ({ status: 200, body: { id: 7, name: 'Goldie', categoryId: 3 } }));
    const r = await run(['pets', 'get', '--', given], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([path]);
  });

  it('a trailing slash in PETSTORE_BASE_URL gives no double slash', async () => {
    const srv = await server();
    const r = await run(['pets', 'list', '--limit', '5'], { PETSTORE_BASE_URL: `${srv.baseUrl}/` });
    expect(r.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([`${specUrl('listPets')}?limit=5`]);
  });

  it('a base URL with a path prefix keeps it', async () => {
    const srv = await server();
    const r = await run(['pets', 'list'], { PETSTORE_BASE_URL: `${srv.origin}/api${API_SPEC.basePath}/` });
    expect(r.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([`/api${specUrl('listPets')}`]);
  });

  it('a base URL without the /v1 segment is used as given, with a warning naming it', async () => {
    const srv = await server();
    const r = await run(['pets', 'list'], { PETSTORE_BASE_URL: `${srv.origin}/api` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toBe(
      `warning: base URL ${srv.origin}/api (from PETSTORE_BASE_URL) does not end with the version segment ${API_SPEC.basePath}\n`,
    );
    expect(srv.requests.map((q) => q.url)).toEqual([`/api${LIST_PETS.path}`]);
  });

  it('--base-url beats PETSTORE_BASE_URL', async () => {
    const [flag, env] = await Promise.all([server(), server()]);
    const r = await run(['--base-url', flag.baseUrl, 'pets', 'list'], { PETSTORE_BASE_URL: env.baseUrl });
    expect(r.code).toBe(0);
    expect(flag.requests).toHaveLength(1);
    expect(env.requests).toHaveLength(0);
  });

  it('global flags are accepted after the command words too', async () => {
    const srv = await server(() => ({ status: 200, body: [{ id: 1, name: 'A', categoryId: 2 }] }));
    const r = await run(['pets', 'list', '--base-url', srv.baseUrl, '--output', 'ndjson'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"id":1,"name":"A","categoryId":2}\n');
    expect(srv.requests).toHaveLength(1);
  });
});

/**
 * `--status` given twice (cli-contract.md "Input rules"): with different values, exit 2
 * naming both, nothing sent; the same value twice is one status. Other repeated flags keep
 * the last value (git's and gh's rule, so an alias can be overridden).
 */
describe.concurrent('--status given twice', () => {
  // Every operation with a --status input, with the flags it needs (`pets get --via-list`).
  const commands = CLI_OPERATIONS.flatMap((op) =>
    Object.entries(op.declaration.inputs).flatMap(([key, input]) => {
      if (typeof input.flag !== 'string' || longFlag(input) !== '--status') return [];
      const needed = neededFlags(op, key);
      return [[[op.name, ...needed].join(' '), [...op.argv, ...needed]] as const];
    }),
  );

  it('covers every command of the declarations that takes --status', () => {
    expect(commands.map(([name]) => name)).toContain('pets get --via-list');
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });

  it.each(commands)('%s -s sold -s pending: exit 2 naming both, nothing sent', async (_, args) => {
    const srv = await server(echoCreate);
    for (const flags of [
      ['-s', 'sold', '-s', 'pending'],
      ['--status', 'sold', '--status=pending'],
      ['-ssold', '--status', 'pending'],
    ]) {
      const r = await run([...args, ...flags], { PETSTORE_BASE_URL: srv.baseUrl });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toContain(
        'error: --status given twice with different values, "sold" and "pending": the API filters by one status',
      );
    }
    expect(srv.requests).toHaveLength(0);
  });

  it.each(commands)('%s -s sold -s sold: one status, sent once', async (_, args) => {
    // Pet 7, sold, whatever is asked: `pets get 7 --via-list` finds it in the list.
    const srv = await server(operationStore(() => ({ id: 7, name: 'Rex', categoryId: 1, status: 'sold' })));
    const r = await run([...args, '-s', 'sold', '-s', 'sold'], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests).toHaveLength(1);
    const req = srv.requests[0];
    // In the body of a request that has one, else in the query.
    if (req?.body !== '') expect(JSON.parse(req?.body ?? '')).toMatchObject({ status: 'sold' });
    else expect(new URL(req.url, srv.origin).searchParams.get('status')).toBe('sold');
  });

  it('other repeated flags keep the last value: -L 5 -L 7 sends limit=7', async () => {
    const srv = await server();
    const r = await run(['pets', 'list', '-L', '5', '-L', '7'], { PETSTORE_BASE_URL: srv.baseUrl });
    expect(r.code, r.stderr).toBe(0);
    expect(new URL(srv.requests[0]?.url ?? '', srv.origin).searchParams.get('limit')).toBe('7');
  });
});

/**
 * The client's requests against the API contract: every CLI command runs against
 * `prism mock openapi.yaml --errors`, which answers a request that breaks the document
 * with an error status (422, or the operation's 400/401), so the command fails. The front
 * records each request so the test can also check what Prism does not: undeclared query
 * parameters and body fields.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { unwrapped } from '../helpers/run-cli.js';
import { specOperation } from '../fixtures/api-spec.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { loadOpenApi, prismForFile, undeclared, type FrontRecord } from './prism.js';

const API_KEY = 'contract_test_key_0123456789';
const doc = loadOpenApi();
const examplePets = doc.components.schemas.Pets?.example as unknown[];
const examplePet = doc.components.schemas.Pet?.example;

const configDir = tempDir();
const mock = prismForFile('mock', () => configDir);
afterAll(removeTempDirs);

/** Runs the CLI against the mock and returns the result plus the requests it made. */
function run(args: string[]) {
  return mock.run(args, API_KEY);
}

/** Prism accepted every request and the document declares every name used. */
function expectConforming(requests: FrontRecord[]): void {
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) {
    expect(r.problem, `Prism's report for ${r.method} ${r.path}`).toBeUndefined();
    expect(r.violations, `sl-violations for ${r.method} ${r.path}`).toBeUndefined();
    expect(r.status, `${r.method} ${r.path}`).toBeLessThan(300);
    expect(undeclared(doc, r)).toEqual([]);
  }
}

describe('client requests judged by prism mock', () => {
  test('pets list sends GET /pets without parameters', async () => {
    const r = await run(['pets', 'list']);
    expectConforming(r.requests);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}?${q.query.toString()}`)).toEqual(['GET /pets?']);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n3\tBubbles\t3\tpending\n');
  });

  test.each([
    ['--limit sends limit', ['--limit', '5'], { limit: '5' }],
    ['--status sends status', ['--status', 'pending'], { status: 'pending' }],
  ])('pets list %s', async (_what, args, query) => {
    const r = await run(['pets', 'list', ...args]);
    expectConforming(r.requests);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Object.fromEntries(r.requests[0]!.query)).toEqual(query);
  });

  test('pets list --limit --status sends both, bounds included', async () => {
    for (const limit of ['1', '100']) {
      const r = await run(['pets', 'list', '--limit', limit, '--status', 'sold']);
      expectConforming(r.requests);
      // Prism's mock serves its 2-pet example whatever the limit, so a small limit gets the full-page note.
      expect(withoutFullPageWarning(r.stderr)).toBe('');
      expect(r.code).toBe(0);
      expect(Object.fromEntries(r.requests[0]!.query)).toEqual({ limit, status: 'sold' });
    }
  });

  test('pets list --json and --output ndjson print the records Prism served', async () => {
    const json = await run(['pets', 'list', '--json', '--limit', '2']);
    expectConforming(json.requests);
    expect(withoutFullPageWarning(json.stderr)).toBe('');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(examplePets);

    const nd = await run(['pets', 'list', '--output', 'ndjson', '--status', 'available']);
    expectConforming(nd.requests);
    expect(nd.stderr).toBe('');
    expect(nd.code).toBe(0);
    expect(
      nd.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(examplePets);
  });

  test('pets create without --status sends a NewPet of name and categoryId', async () => {
    const r = await run(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json']);
    expectConforming(r.requests);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /pets']);
    expect(r.requests[0]!.contentType).toMatch(/^application\/json\b/);
    expect(JSON.parse(r.requests[0]!.body)).toEqual({ name: 'Rex', categoryId: 1 });
    expect(JSON.parse(r.stdout)).toEqual(examplePet);
  });

  test('pets create --status sends status; a category id beyond int32 stays an integer', async () => {
    const r = await run(['pets', 'create', '--name', 'Kiwi', '--category-id', '4294967296', '--status', 'pending']);
    expectConforming(r.requests);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.requests[0]!.body).toBe('{"name":"Kiwi","categoryId":4294967296,"status":"pending"}');
  });

  test('pets get sends GET /pets/{petId} and warns of the deprecation', async () => {
    const r = await run(['pets', 'get', '1', '--json']);
    expectConforming(r.requests);
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}?${q.query.toString()}`)).toEqual(['GET /pets/1?']);
    expect(JSON.parse(r.stdout)).toEqual(examplePet);
    expect(r.stderr).toContain(specOperation('getPet').deprecated?.removal ?? 'getPet is not deprecated');
  });
});

describe('the judge itself', () => {
  // Guards the guard: with --errors this Prism refuses requests that break the document,
  // so the checks above can fail. Raw requests, not the CLI (which refuses these values).
  test('Prism answers a request violation with an error and a validation report', async () => {
    const auth = { Authorization: `Bearer ${API_KEY}` };
    const badLimit = await fetch(`${mock.front.baseUrl}/pets?limit=0`, { headers: auth });
    expect(badLimit.status).toBe(422);
    expect(JSON.stringify(await badLimit.json())).toContain('limit');

    const badBody = await fetch(`${mock.front.baseUrl}/pets`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex' }),
    });
    expect(badBody.status).toBe(400);
    expect(badBody.headers.get('sl-violations')).toContain('categoryId');

    const noKey = await fetch(`${mock.front.baseUrl}/pets`);
    expect(noKey.status).toBe(401);

    const lim = mock.front.records.length;
    await (await fetch(`${mock.front.baseUrl}/pets?lim=3`, { headers: auth })).text();
    expect(undeclared(doc, mock.front.records[lim]!)).toEqual(['query parameter "lim" is not declared for listPets']);
  });
});

/** stderr without the note that a full page came without a `Link: rel="next"` header. */
function withoutFullPageWarning(stderr: string): string {
  return unwrapped(stderr)
    .replace(/^warning: the page is full \([\d,]+ pets\), so more may exist.*\n/m, '')
    .replace(/^\{"level":"warning","message":"the page is full \([\d,]+ pets\), so more may exist.*\n/m, '');
}

/**
 * The sandbox's responses against the API contract: every CLI command runs through
 * `prism proxy openapi.yaml <sandbox> --errors`, which checks each sandbox response
 * (200, 201, and the Error bodies of 400, 401 and 404) against the document and answers
 * 500 problem+json instead when one breaks it, so the command's exit code changes.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { seedData } from '../../src/sandbox/data-files.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { API_SPEC, specOperation } from '../fixtures/api-spec.js';
import { commandTree, exampleRunOf } from '../helpers/command-tree.js';
import { remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { loadOpenApi, operationFor, prismForFile, undeclared, type FrontRecord } from './prism.js';

const API_KEY = 'sbx_0123456789abcdef0123456789abcdef';
const WRONG_KEY = 'sbx_ffffffffffffffffffffffffffffffff';
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const doc = loadOpenApi();

let sandbox: RunningSandbox;
const configDir = tempDir();

beforeAll(async () => {
  const store = new SandboxStore(join(configDir, 'sandbox.json'));
  // Prism's validator flags int64 values above 2^53-1 (see prism.ts), so the proxied
  // sandbox holds the seed pets without the one whose ids lie beyond it; those values are
  // checked directly against the sandbox below, without Prism.
  await store.update(() => {
    const seed = seedData();
    return { ...seed, pets: seed.pets.filter((p) => BigInt(p.id) <= SAFE && BigInt(p.categoryId) <= SAFE) };
  });
  sandbox = await startSandbox({ store, apiKey: API_KEY });
});
afterAll(async () => {
  // beforeAll may have failed before assigning it.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  await sandbox?.close();
  removeTempDirs();
});
// Registered after the sandbox's hooks: Prism starts after it, and stops before it.
const proxy = prismForFile(
  'proxy',
  () => configDir,
  () => sandbox.baseUrl,
);

function run(args: string[], key = API_KEY) {
  return proxy.run(args, key, [API_KEY]);
}

/** Prism found nothing wrong with the requests nor with the sandbox's answers. */
function expectConforming(requests: FrontRecord[], status: number): void {
  expect(requests.length).toBe(1);
  for (const r of requests) {
    expect(r.problem, `Prism's report for ${r.method} ${r.path}`).toBeUndefined();
    expect(r.violations, `sl-violations for ${r.method} ${r.path}`).toBeUndefined();
    expect(r.status, `${r.method} ${r.path}`).toBe(status);
    expect(undeclared(doc, r)).toEqual([]);
    // Spec §7: an Error's `status` repeats the HTTP status (a rule no schema can state).
    if (status >= 400) expect((JSON.parse(r.responseBody) as { status: unknown }).status).toBe(status);
  }
}

/** The spec's success status of an operation (test/fixtures/api-spec.ts). */
const success = (operationId: string) => specOperation(operationId).success.status;
/** Spec §4.3: the removal date a `pets get` warning names. */
const GET_PET_REMOVAL = specOperation('getPet').deprecated?.removal ?? 'getPet is not deprecated';

/** The command that calls each operation of the spec, as cheaply as it can. */
const ids = (stdout: string) => (JSON.parse(stdout) as { id: number }[]).map((p) => p.id);

describe('sandbox responses judged by prism proxy', () => {
  test('pets list: 200 Pets', async () => {
    const r = await run(['pets', 'list', '--json']);
    expectConforming(r.requests, success('listPets'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('pets list --limit', async () => {
    const r = await run(['pets', 'list', '--limit', '2']);
    expectConforming(r.requests, success('listPets'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n2\tWhiskers\t2\tavailable\n');
  });

  test('pets list --status, and both flags', async () => {
    const status = await run(['pets', 'list', '--status', 'pending', '--json']);
    expectConforming(status.requests, success('listPets'));
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(ids(status.stdout)).toEqual([3, 6]);

    const both = await run(['pets', 'list', '--status', 'sold', '--limit', '1', '--output', 'ndjson']);
    expectConforming(both.requests, success('listPets'));
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
    expect(both.stdout).toBe('{"id":4,"name":"Polly","categoryId":4,"status":"sold"}\n');
  });

  test('pets create without and with --status: 201 Pet', async () => {
    const plain = await run(['pets', 'create', '--name', 'Luna', '--category-id', '2', '--json']);
    expectConforming(plain.requests, success('createPet'));
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ id: 10, name: 'Luna', categoryId: 2, status: 'available' });

    const sold = await run(['pets', 'create', '--name', 'Milo', '--category-id', '3', '--status', 'sold', '--json']);
    expectConforming(sold.requests, success('createPet'));
    expect(sold.stderr).toBe('');
    expect(sold.code).toBe(0);
    expect(JSON.parse(sold.stdout)).toEqual({ id: 11, name: 'Milo', categoryId: 3, status: 'sold' });
  });

  test('pets get: 200 Pet', async () => {
    const r = await run(['pets', 'get', '3', '--json']);
    expectConforming(r.requests, success('getPet'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 3, name: 'Bubbles', categoryId: 3, status: 'pending' });
    expect(r.stderr).toContain(GET_PET_REMOVAL);
  });

  test('pets create with a blank name: 400 Error', async () => {
    const r = await run(['pets', 'create', '--name', ' ', '--category-id', '1']);
    expect(specOperation('createPet').errors).toContain(400);
    expectConforming(r.requests, 400);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('invalid name: must not be empty');
  });

  test('a wrong key: 401 Error on every operation', async () => {
    // Spec §5.3, §7: every operation documents 401.
    const operations = API_SPEC.operations.filter((op) => op.errors.includes(401)).map((op) => op.operationId);
    expect(operations).toEqual(API_SPEC.operations.map((op) => op.operationId));
    // Each operation through the command that calls it, run as its help's first example.
    const tree = await commandTree();
    // Prism answers a missing credential itself; a present but wrong one reaches the sandbox.
    for (const operationId of operations) {
      const args = await exampleRunOf(tree, operationId);
      const r = await run(args, WRONG_KEY);
      expectConforming(r.requests, 401);
      expect(operationFor(doc, r.requests[0]!.method, r.requests[0]!.path)?.operationId, args.join(' ')).toBe(
        operationId,
      );
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toContain('invalid API key');
    }
  });

  test('pets get of an unknown id: 404 Error', async () => {
    const r = await run(['pets', 'get', '424242']);
    expect(specOperation('getPet').errors).toContain(404);
    expectConforming(r.requests, 404);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('pet 424242 not found');
  });
});

describe('int64 beyond 2^53, straight to the sandbox (Prism cannot judge these)', () => {
  test('the seed pet with ids above 2^53 is listed and fetched exactly', async () => {
    const dir = tempDir();
    const direct = await startSandbox({ store: new SandboxStore(join(dir, 'sandbox.json')) });
    try {
      const env = remoteEnv(direct.baseUrl, direct.apiKey, { PETSTORE_CONFIG_DIR: dir });
      const list = await runMain(['pets', 'list', '--status', 'available', '--output', 'ndjson'], { env });
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(
        '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"available"}\n',
      );

      const get = await runMain(['pets', 'get', '9007199254740993', '--json'], { env });
      expect(get.code).toBe(0);
      expect(get.stdout).toContain('"id": 9007199254740993');
      expect(get.stdout).toContain('"categoryId": 9223372036854775807');
    } finally {
      await direct.close();
    }
  });
});

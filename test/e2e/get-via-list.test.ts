/**
 * `pets get ID --via-list [--status S] [--max-pages N]`: the pet found through listPets
 * (the replacement the spec names for getPet), paged like `pets list --all`, against a
 * paging server that counts the requests; and the exit codes when the pet is not found,
 * the walk is cut by --max-pages, or the one page is full without a next link.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { specOperation, specUrl } from '../fixtures/api-spec.js';
import { startPagingServer, type PagingServer } from '../helpers/paging-server.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const KEY = 'test-key-get-via-list-0123456789';
const LIST_PETS = specOperation('listPets');
/** How a warning names listPets: `listPets (GET /pets)`. */
const LIST_PETS_NAMED = `${LIST_PETS.operationId} (${LIST_PETS.method} ${LIST_PETS.path})`;
/** The first request of the list path: listPets's target, 100 pets a page (`/v1/pets?limit=100`). */
const LIST_URL = `${specUrl('listPets')}?limit=100`;
/** What every getPet request target starts with (`/v1/pets/`). */
const GET_PET_PREFIX = specUrl('getPet', { petId: '' });
let server: PagingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  removeTempDirs();
});

function env(s: PagingServer): Record<string, string> {
  return { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir() };
}

describe('pets get --via-list', () => {
  it('finds an id on page 3 with exactly three GET /pets requests of 100 and no getPet', async () => {
    server = await startPagingServer({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('250\tpet-250-\t1\tavailable\n');
    // Nothing about getPet: it was never used, so there is nothing to warn of.
    expect(r.stderr).toBe('');
    expect(server.urls).toEqual([LIST_URL, `${LIST_URL}&page=2`, `${LIST_URL}&page=3`]);
    expect(server.urls.some((u) => u.startsWith(GET_PET_PREFIX))).toBe(false);
  });

  it('stops at the first page that holds the id (page 1: one request)', async () => {
    server = await startPagingServer({ pages: 5 });
    const r = await runMain(['pets', 'get', '1', '--via-list', '--json'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 1, name: 'pet-1-xx', categoryId: 1, status: 'available' });
    expect(server.urls).toHaveLength(1);
  });

  it('an id on no page exits 5 with the count of pets searched', async () => {
    server = await startPagingServer({ pages: 3 });
    const r = await runMain(['pets', 'get', '9999', '--via-list'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('error: pet 9999 not found in the list: 300 pets searched on 3 pages');
    expect(server.urls).toHaveLength(3);
    const json = await runMain(['pets', 'get', '9999', '--via-list', '-o', 'ndjson'], { env: env(server) });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toEqual({
      code: 'not_in_list',
      message: 'pet 9999 not found in the list: 300 pets searched on 3 pages',
      status: 0,
    });
  });

  it('--max-pages 2 before the id exits 1 (max_pages): the search was incomplete', async () => {
    server = await startPagingServer({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list', '--max-pages', '2', '--json'], {
      env: env(server),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { code: string; message: string; status: number };
    expect(err.code).toBe('max_pages');
    expect(err.message).toBe(
      'stopped at --max-pages 2 (2 pages, 200 pets) without finding pet 250; the server links to more, so the search was incomplete',
    );
    expect(server.urls).toHaveLength(2);
  });

  it('--max-pages that reaches the id finds it', async () => {
    server = await startPagingServer({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list', '--max-pages', '3'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(server.urls).toHaveLength(3);
  });

  it('a full page without a Link exits 5 naming the first 100 pets as all that could be searched', async () => {
    server = await startPagingServer({ pages: 1 });
    const r = await runMain(['pets', 'get', '150', '--via-list'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(unwrapped(r.stderr)).toContain(
      'error: pet 150 is not among the first 100 pets, the only ones that could be searched',
    );
    expect(unwrapped(r.stderr)).toContain('no Link rel="next" header');
    expect(unwrapped(r.stderr)).toContain('Narrow the search with --status');
    expect(server.urls).toEqual([LIST_URL]);
    const json = await runMain(['pets', 'get', '150', '--via-list', '--json'], { env: env(server) });
    expect((JSON.parse(json.stderr) as { code: string }).code).toBe('not_in_first_page');
  });

  it('a page that is not full and has no Link is the whole list: an ordinary not found', async () => {
    server = await startPagingServer({ pages: 1, perPage: 40 });
    const r = await runMain(['pets', 'get', '41', '--via-list', '--json'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toEqual({
      code: 'not_in_list',
      message: 'pet 41 not found in the list: 40 pets searched on 1 page',
      status: 0,
    });
  });

  it('--status narrows the listing asked for and is named in the count', async () => {
    server = await startPagingServer({ pages: 2, perPage: 3 });
    const r = await runMain(['pets', 'get', '99', '--via-list', '--status', 'sold'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(server.urls[0]).toBe(`${LIST_URL}&status=sold`);
    expect(unwrapped(r.stderr)).toContain('6 pets with status sold searched on 2 pages');
    expect(unwrapped(r.stderr)).toContain('Without --status the search covers every status.');
  });

  it('does not follow a next link to another origin (exit 1), so the key stays home', async () => {
    server = await startPagingServer({
      pages: 3,
      nextLink: (n) => `<http://127.0.0.2:1/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: env(server) });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('Link rel="next" points to another origin, http://127.0.0.2:1; not followed');
    expect(server.urls).toHaveLength(1);
  });

  it('follows a relative next link, resolved against the request URL', async () => {
    server = await startPagingServer({ pages: 3, nextLink: (n) => `<pets?limit=100&page=${n}>; rel="next"` });
    const r = await runMain(['pets', 'get', '201', '--via-list', '-o', 'ndjson'], { env: env(server) });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }).id).toBe(201);
    expect(server.urls).toHaveLength(3);
  });

  it('warns once when the list pages carry deprecation headers', async () => {
    server = await startPagingServer({ pages: 3, headers: { deprecation: '@1767225600' } });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${LIST_PETS_NAMED} is deprecated (since 2026-01-01)\n`);
  });

  it.each([
    [['pets', 'get', '7', '--status', 'sold'], '--status needs --via-list'],
    [['pets', 'get', '7', '--max-pages', '5'], '--max-pages needs --via-list'],
    [['pets', 'get', '7', '--via-list', '--max-pages', '0'], 'invalid --max-pages "0"'],
    [['pets', 'get', '7', '--via-list', '--status', 'lost'], 'invalid'],
  ])('%j is a usage error (exit 2), nothing sent', async (args, message) => {
    server = await startPagingServer({ pages: 1 });
    const r = await runMain(args, { env: env(server) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(message);
    expect(server.urls).toHaveLength(0);
  });
});

/**
 * `pets get ID` and getPet's deprecation (RFC 9745 `Deprecation`, RFC 8594 `Sunset`): the
 * seed pets of the sandbox exactly in every form; the one merged deprecation warning (removal
 * date, days remaining, replacement, --via-list), two lines of at most 80 columns; the list
 * path through listPets, taken with `--via-list` (paged like `pets list --all`, with its exit
 * codes when the pet is not found, the walk is cut by --max-pages or the one page is full
 * without a next link), under --fail-on-deprecated, from the removal date on (an injected
 * clock), and on 410 Gone or a 404 past the Sunset date, saying so in one stderr line and
 * printing byte for byte what getPet's path prints; and the sandbox playing the API after
 * getPet's removal. In-process (`runMain`) against the sandbox, recording and paging servers.
 */
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import { specOperation, specUrl } from '../../fixtures/api-spec.js';
import { daysUntil, inSandbox, operationNamed, remoteEnv, seededSandbox } from '../../helpers/harness.js';
import { pagingServerPool } from '../../helpers/paging-server.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain, type MainOptions } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { errorReply, serverPool, type Handler } from '../../helpers/test-server.js';

const KEY = 'test-key-get-fallback-0123456789';
const PET = { id: 7, name: 'Goldie', categoryId: 3, status: 'available' };
const OTHERS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 4, name: 'Polly', categoryId: 4, status: 'sold' },
];
/** Pet 7 of the servers that answer one pet (and a list of it alone). */
const REX = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const at = (iso: string) => () => new Date(iso);
/** The seed pet with the largest id and category, as one ndjson line. */
const ATLAS_JSON = '{"id":9007199254740993,"name":"Atlas","categoryId":9223372036854775807,"status":"available"}';

const GET_PET = specOperation('getPet');
/** getPet's deprecation: its removal date, Sunset value and replacement. */
const GET_PET_DEPRECATION = GET_PET.deprecated!;
const LIST_PETS = specOperation('listPets');
/** How a warning names listPets, the operation of the list path: `listPets (GET /pets)`. */
const LIST_PETS_NAMED = operationNamed('listPets');
/** The list path's request target: listPets's, 100 pets a page (`/v1/pets?limit=100`). */
const LIST_URL = `${specUrl('listPets')}?limit=100`;
/** getPet's request target for pet 7 (`/v1/pets/7`). */
const GET_PET_7 = specUrl('getPet', { petId: 7 });
/** What every getPet request target starts with (`/v1/pets/`). */
const GET_PET_PREFIX = specUrl('getPet', { petId: '' });

const DAY_MS = 86_400_000;
/** getPet's removal: 00:00Z of its removal date, from which on the CLI no longer calls it. */
const REMOVAL_MS = Date.parse(`${GET_PET_DEPRECATION.removal}T00:00:00Z`);
/** A clock `ms` after getPet's removal (before it when negative). */
const afterRemoval = (ms: number) => () => new Date(REMOVAL_MS + ms);

/** The JSON error of a pet the list path did not find. */
const notInList = (message: string) => ({ code: 'not_in_list', message, status: 0 });

const pool = serverPool();
const { start: startServer } = pool;
const { start: startPaging, closeAll: closePaging } = pagingServerPool();
afterAll(async () => {
  await Promise.all([pool.closeAll(), closePaging()]);
  removeTempDirs();
});

/** A recording server: getPet answers `get`, listPets the list holding PET. */
function apiServer(get: Handler) {
  return pool.start((req, res) =>
    req.url.startsWith(GET_PET_PREFIX) ? get(req, res) : { status: 200, body: [...OTHERS, PET] },
  );
}

describe.concurrent('the seed pets (one shared, read-only sandbox)', () => {
  const seed = seededSandbox();

  it('prints the seed pet 9007199254740993 exactly in tsv, json and ndjson', async () => {
    const [tsv, json, ndjson, listNd] = await Promise.all([
      inSandbox(seed.dir, ['pets', 'get', '9007199254740993']),
      inSandbox(seed.dir, ['pets', 'get', '9007199254740993', '--output', 'json']),
      inSandbox(seed.dir, ['pets', 'get', '9007199254740993', '-o', 'ndjson']),
      inSandbox(seed.dir, ['pets', 'list', '--output', 'ndjson', '--status', 'available']),
    ]);
    expect(tsv.stdout).toBe('9007199254740993\tAtlas\t9223372036854775807\tavailable\n');
    expect(json.stdout).toBe(
      '{\n  "id": 9007199254740993,\n  "name": "Atlas",\n  "categoryId": 9223372036854775807,\n  "status": "available"\n}\n',
    );
    expect(ndjson.stdout).toBe(ATLAS_JSON + '\n');
    const lines = listNd.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe(ATLAS_JSON);
    expect(lines[0]).toBe('{"id":1,"name":"Rex","categoryId":1,"status":"available"}');
    for (const r of [tsv, json, ndjson, listNd]) expect(r.code).toBe(0);
  });

  it('get of the int64 extremes that do not exist answers 404 (exit 5)', async () => {
    const [max, min] = await Promise.all([
      inSandbox(seed.dir, ['pets', 'get', '9223372036854775807']),
      inSandbox(seed.dir, ['pets', 'get', '--', '-9223372036854775808']),
    ]);
    expect(max.code).toBe(5);
    expect(max.stderr).toContain('pet 9223372036854775807 not found');
    expect(min.code).toBe(5);
    expect(min.stderr).toContain('pet -9223372036854775808 not found');
    expect(max.stdout + min.stdout).toBe('');
  });
});

describe('deprecation signals', () => {
  it('pets get prints one merged warning: removal date, days remaining, replacement, --via-list', async () => {
    const r = await runMain(['--env', 'sandbox', 'pets', 'get', '1', '--output', 'ndjson'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }).id).toBe(1);
    const n = daysUntil(`${GET_PET_DEPRECATION.removal}T00:00:00Z`);
    // With --output ndjson, the warning is a JSON object on its own line too.
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `\`pets get\` is deprecated and will be removed on ${GET_PET_DEPRECATION.removal} (in ${n.toLocaleString('en-US')} days); replaced by \`pets list --status STATUS\`: add --via-list to use it now`,
    });
    expect(r.stderr.endsWith('}\n')).toBe(true);
  });

  it('pets get still warns (from its metadata) when the answer carries no headers', async () => {
    const server = await startServer(() => errorReply(404, 'not_found', 'pet 9 not found'));
    const r = await runMain(['pets', 'get', '9'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(5);
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
    // The warning wraps at 80 columns; where depends on the number of days left.
    expect(r.stderr.replace(/\n(?=.)/g, ' ')).toContain(`will be removed on ${GET_PET_DEPRECATION.removal} (in `);
    expect(r.stderr).toContain('error: pet 9 not found (not_found, HTTP 404)');
  });

  it.each([404, 410])(
    'pets get answered %i after the Sunset date finds the pet through listPets instead',
    async (status) => {
      const gone = {
        ...errorReply(status, 'gone', 'no such operation'),
        headers: { deprecation: '@1388534400', sunset: 'Thu, 01 Jan 2015 00:00:00 GMT' },
      };
      const server = await startServer((req) =>
        req.url.startsWith(GET_PET_PREFIX) ? gone : { status: 200, body: [REX] },
      );
      const r = await runMain(['pets', 'get', '7'], { env: remoteEnv(server.baseUrl, KEY) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('7\tRex\t1\tavailable\n');
      const reason = status === 410 ? '410 Gone' : '404 after its Sunset date, 2015-01-01';
      expect(unwrapped(r.stderr)).toBe(
        `warning: getPet answered ${reason}: finding pet 7 through ${LIST_PETS_NAMED}\n`,
      );
      expect(server.requests.map((q) => q.url)).toEqual([specUrl('getPet', { petId: 7 }), LIST_URL]);
      // Not in the list either: exit 5 with the count.
      const missing = await runMain(['pets', 'get', '8'], { env: remoteEnv(server.baseUrl, KEY) });
      expect(missing.code).toBe(5);
      expect(missing.stderr).toContain('error: pet 8 not found in the list: 1 pet searched on 1 page');
    },
  );

  it('a 404 before the Sunset date is an ordinary "not found"', async () => {
    const server = await startServer(() => ({
      ...errorReply(404, 'not_found', 'pet 7 not found'),
      headers: { sunset: GET_PET_DEPRECATION.sunset },
    }));
    const r = await runMain(['pets', 'get', '7'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: pet 7 not found (not_found, HTTP 404)');
    expect(r.stderr).not.toContain('was removed');
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
  });
});

describe('pets get --via-list', () => {
  it('finds an id on page 3 with exactly three GET /pets requests of 100 and no getPet', async () => {
    const server = await startPaging({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('250\tpet-250-\t1\tavailable\n');
    // Nothing about getPet: it was never used, so there is nothing to warn of.
    expect(r.stderr).toBe('');
    expect(server.urls).toEqual([LIST_URL, `${LIST_URL}&page=2`, `${LIST_URL}&page=3`]);
    expect(server.urls.some((u) => u.startsWith(GET_PET_PREFIX))).toBe(false);
  });

  it('stops at the first page that holds the id (page 1: one request)', async () => {
    const server = await startPaging({ pages: 5 });
    const r = await runMain(['pets', 'get', '1', '--via-list', '--json'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 1, name: 'pet-1-xx', categoryId: 1, status: 'available' });
    expect(server.urls).toHaveLength(1);
  });

  it('an id on no page exits 5 with the count of pets searched', async () => {
    const server = await startPaging({ pages: 3 });
    const r = await runMain(['pets', 'get', '9999', '--via-list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('error: pet 9999 not found in the list: 300 pets searched on 3 pages');
    expect(server.urls).toHaveLength(3);
    const json = await runMain(['pets', 'get', '9999', '--via-list', '-o', 'ndjson'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toEqual(notInList('pet 9999 not found in the list: 300 pets searched on 3 pages'));
  });

  it('--max-pages 2 before the id exits 1 (max_pages): the search was incomplete', async () => {
    const server = await startPaging({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list', '--max-pages', '2', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { code: string; message: string; status: number };
    expect(err.code).toBe('max_pages');
    expect(err.message).toBe(
      'stopped at --max-pages 2 (2 pages, 200 pets) without finding pet 250; the server links to more, so the search was incomplete',
    );
    expect(server.urls).toHaveLength(2);
    // The hint is said in the text form only (stderr a terminal).
    const said = await runMain(['pets', 'get', '250', '--via-list', '--max-pages', '2'], {
      env: remoteEnv(server.baseUrl, KEY),
      tty: { stderr: true },
      columns: 200,
    });
    expect(said.stderr).toContain('Raise --max-pages (at most 10000), or narrow the search with --status.');
  });

  it('--max-pages that reaches the id finds it', async () => {
    const server = await startPaging({ pages: 5 });
    const r = await runMain(['pets', 'get', '250', '--via-list', '--max-pages', '3'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect(server.urls).toHaveLength(3);
  });

  it('a full page without a Link exits 5 naming the first 100 pets as all that could be searched', async () => {
    const server = await startPaging({ pages: 1 });
    const r = await runMain(['pets', 'get', '150', '--via-list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(5);
    expect(unwrapped(r.stderr)).toContain(
      'error: pet 150 is not among the first 100 pets, the only ones that could be searched',
    );
    expect(unwrapped(r.stderr)).toContain('no Link rel="next" header');
    expect(unwrapped(r.stderr)).toContain('Narrow the search with --status');
    expect(server.urls).toEqual([LIST_URL]);
    const json = await runMain(['pets', 'get', '150', '--via-list', '--json'], { env: remoteEnv(server.baseUrl, KEY) });
    expect((JSON.parse(json.stderr) as { code: string }).code).toBe('not_in_first_page');
  });

  it('a page that is not full and has no Link is the whole list: an ordinary not found', async () => {
    const server = await startPaging({ pages: 1, perPage: 40 });
    const r = await runMain(['pets', 'get', '41', '--via-list', '--json'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toEqual(notInList('pet 41 not found in the list: 40 pets searched on 1 page'));
  });

  it('--status narrows the listing asked for and is named in the count', async () => {
    const server = await startPaging({ pages: 2, perPage: 3 });
    const r = await runMain(['pets', 'get', '99', '--via-list', '--status', 'sold'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(5);
    expect(server.urls[0]).toBe(`${LIST_URL}&status=sold`);
    expect(unwrapped(r.stderr)).toContain('6 pets with status sold searched on 2 pages');
    expect(unwrapped(r.stderr)).toContain('Without --status the search covers every status.');
  });

  it('does not follow a next link to another origin (exit 1), so the key stays home', async () => {
    const server = await startPaging({
      pages: 3,
      nextLink: (n) => `<http://127.0.0.2:1/v1/pets?page=${n}>; rel="next"`,
    });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('Link rel="next" points to another origin, http://127.0.0.2:1; not followed');
    expect(server.urls).toHaveLength(1);
  });

  it('follows a relative next link, resolved against the request URL', async () => {
    const server = await startPaging({ pages: 3, nextLink: (n) => `<pets?limit=100&page=${n}>; rel="next"` });
    const r = await runMain(['pets', 'get', '201', '--via-list', '-o', 'ndjson'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }).id).toBe(201);
    expect(server.urls).toHaveLength(3);
  });

  it('warns once when the list pages carry deprecation headers', async () => {
    const server = await startPaging({ pages: 3, headers: { deprecation: '@1767225600' } });
    const r = await runMain(['pets', 'get', '250', '--via-list'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${LIST_PETS_NAMED} is deprecated (since 2026-01-01)\n`);
  });

  it.each([
    [['pets', 'get', '7', '--status', 'sold'], '--status needs --via-list'],
    [['pets', 'get', '7', '--max-pages', '5'], '--max-pages needs --via-list'],
    [['pets', 'get', '7', '--via-list', '--max-pages', '0'], 'invalid --max-pages "0"'],
    [['pets', 'get', '7', '--via-list', '--status', 'lost'], 'invalid'],
  ])('%j is a usage error (exit 2), nothing sent', async (args, message) => {
    const server = await startPaging({ pages: 1 });
    const r = await runMain(args, { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(message);
    expect(server.urls).toHaveLength(0);
  });
});

describe('after the removal date (injected clock)', () => {
  it('pets get does not call getPet at all; one stderr line says the list was used', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '7'], {
      env: remoteEnv(srv.baseUrl, KEY),
      now: afterRemoval(86.5 * DAY_MS),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(unwrapped(r.stderr)).toBe(
      `warning: getPet was removed on ${GET_PET_DEPRECATION.removal}: finding pet 7 through ${LIST_PETS_NAMED}\n`,
    );
    expect(srv.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${LIST_PETS.method} ${LIST_URL}`]);
  });

  it('from 00:00Z of the removal date on, not a second before', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const on = await runMain(['pets', 'get', '7'], { env: remoteEnv(srv.baseUrl, KEY), now: afterRemoval(0) });
    expect(on.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([LIST_URL]);
    const before = await runMain(['pets', 'get', '7'], { env: remoteEnv(srv.baseUrl, KEY), now: afterRemoval(-1000) });
    expect(before.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([LIST_URL, GET_PET_7]);
    expect(before.stderr).toContain(`will be removed on ${GET_PET_DEPRECATION.removal} (in 1 day)`);
  });

  it('with --output json the line is a JSON warning object', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '7', '--json'], {
      env: remoteEnv(srv.baseUrl, KEY),
      now: afterRemoval(27 * DAY_MS),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(PET);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `getPet was removed on ${GET_PET_DEPRECATION.removal}: finding pet 7 through ${LIST_PETS_NAMED}`,
    });
  });

  it('a pet missing from the list then exits 5 with the count', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '8'], { env: remoteEnv(srv.baseUrl, KEY), now: afterRemoval(27 * DAY_MS) });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: pet 8 not found in the list: 3 pets searched on 1 page');
    expect(srv.requests.some((q) => q.url.startsWith(GET_PET_PREFIX))).toBe(false);
  });
});

describe('getPet answers that it is gone', () => {
  it.each([
    ['410 with an Error body', () => errorReply(410, 'gone', 'getPet was removed'), 'getPet answered 410 Gone'],
    [
      '410 with an HTML body',
      () => ({ status: 410, headers: { 'content-type': 'text/html' }, raw: '<h1>Gone</h1>' }),
      'getPet answered 410 Gone',
    ],
    [
      '404 after its Sunset date',
      () => ({
        ...errorReply(404, 'not_found', 'no such operation'),
        headers: { deprecation: '@1388534400', sunset: 'Thu, 01 Jan 2015 00:00:00 GMT' },
      }),
      'getPet answered 404 after its Sunset date, 2015-01-01',
    ],
  ])('%s: the pet is found through listPets, one stderr line, exit 0', async (_name, reply, reason) => {
    const srv = await apiServer(reply);
    const r = await runMain(['pets', 'get', '7'], { env: remoteEnv(srv.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(unwrapped(r.stderr)).toBe(`warning: ${reason}: finding pet 7 through ${LIST_PETS_NAMED}\n`);
    expect(srv.requests.map((q) => q.url)).toEqual([GET_PET_7, LIST_URL]);
  });

  it('a 404 before the Sunset date stays an ordinary "not found" (no list search)', async () => {
    const srv = await apiServer(() => ({
      ...errorReply(404, 'not_found', 'pet 7 not found'),
      headers: { sunset: GET_PET_DEPRECATION.sunset },
    }));
    const r = await runMain(['pets', 'get', '7'], {
      env: remoteEnv(srv.baseUrl, KEY),
      now: at('2026-11-22T00:00:00Z'),
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: pet 7 not found (not_found, HTTP 404)');
    expect(srv.requests).toHaveLength(1);
  });
});

describe('--fail-on-deprecated', () => {
  /** What the servers answer: getPet's pet 7, listPets's list, and the line pet 7 is printed as. */
  const ANSWERS: Record<string, { get: typeof PET; list: (typeof PET)[]; line: string }> = {
    'pet 7 alone': { get: REX, list: [REX], line: '7\tRex\t1\tavailable\n' },
    'pet 7 among others': { get: PET, list: [...OTHERS, PET], line: '7\tGoldie\t3\tavailable\n' },
  };
  it.each([
    [['--fail-on-deprecated', 'pets', 'get', '7'], {}, '--fail-on-deprecated', 'pet 7 alone'],
    [['pets', 'get', '7', '--fail-on-deprecated'], {}, '--fail-on-deprecated', 'pet 7 alone'],
    [['pets', 'get', '7'], { PETSTORE_FAIL_ON_DEPRECATED: '1' }, 'PETSTORE_FAIL_ON_DEPRECATED', 'pet 7 alone'],
    [['--fail-on-deprecated', 'pets', 'get', '7'], {}, '--fail-on-deprecated', 'pet 7 among others'],
    [['pets', 'get', '7'], { PETSTORE_FAIL_ON_DEPRECATED: '1' }, 'PETSTORE_FAIL_ON_DEPRECATED', 'pet 7 among others'],
  ])(
    '%j %j (%s) against %s: never calls getPet, finds the pet through listPets, saying why',
    async (args, extra, source, answers) => {
      const pets = ANSWERS[answers]!;
      const server = await startServer((req) => ({
        status: 200,
        body: req.url.startsWith(GET_PET_PREFIX) ? pets.get : pets.list,
      }));
      const r = await runMain(args, { env: remoteEnv(server.baseUrl, KEY, extra) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(pets.line);
      expect(unwrapped(r.stderr)).toBe(
        `warning: getPet is deprecated and ${source} is set: finding pet 7 through ${LIST_PETS_NAMED}\n`,
      );
      expect(server.requests.map((q) => q.url)).toEqual([LIST_URL]);
    },
  );

  it('PETSTORE_FAIL_ON_DEPRECATED=0 keeps getPet', async () => {
    const server = await startServer(() => ({ status: 200, body: REX }));
    const r = await runMain(['pets', 'get', '7'], {
      env: remoteEnv(server.baseUrl, KEY, { PETSTORE_FAIL_ON_DEPRECATED: '0' }),
    });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the sandbox without getPet', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  const log: string[] = [];
  beforeAll(async () => {
    dir = tempDir();
    sandbox = await startSandbox({
      store: new SandboxStore(join(dir, 'sandbox.json')),
      withoutGetPet: true,
      onRequest: (line) => log.push(line),
    });
  });
  afterAll(() => sandbox.close());
  afterEach(() => {
    log.length = 0;
  });
  /** The environment of a run against this sandbox, its data in `dir`. */
  const env = (): Record<string, string> => remoteEnv(sandbox.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: dir });

  it('answers getPet with 410 Gone and an Error body (code gone)', async () => {
    const { removal, replacement } = GET_PET_DEPRECATION;
    const res = await fetch(`${sandbox.baseUrl}/pets/7`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect(res.status).toBe(410);
    expect(await res.json()).toEqual({
      code: 'gone',
      message: `getPet (${GET_PET.method} ${GET_PET.path}) was removed on ${removal}; use ${replacement.method} ${replacement.path} with the ${replacement.filter} filter`,
      status: 410,
    });
  });

  it('pets get ID finds the pet, saying in one stderr line that the list was used', async () => {
    const r = await runMain(['pets', 'get', '7'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(r.stderr).toBe(`warning: getPet answered 410 Gone: finding pet 7 through ${LIST_PETS_NAMED}\n`);
    expect(log.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
      `${GET_PET.method} ${GET_PET_7} 410`,
      `${LIST_PETS.method} ${LIST_URL} 200`,
    ]);
  });

  it('--fail-on-deprecated pets get ID finds it without calling getPet (the request log)', async () => {
    const r = await runMain(['--fail-on-deprecated', 'pets', 'get', '7'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(log.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([`${LIST_PETS.method} ${LIST_URL} 200`]);
  });
});

describe('--env sandbox with PETSTORE_SANDBOX_WITHOUT_GET_PET=1', () => {
  it('getPet answers 410 (seen with --verbose) and pets get finds the pet through the list', async () => {
    const dir = tempDir();
    const r = await runMain(['--env', 'sandbox', 'pets', 'get', '4', '--verbose'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_SANDBOX_WITHOUT_GET_PET: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('4\tPolly\t4\tsold\n');
    expect(r.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\/4\n/);
    expect(r.stderr).toMatch(/< 410 /);
    expect(r.stderr).toContain(`warning: getPet answered 410 Gone: finding pet 4 through ${LIST_PETS_NAMED}`);
  });

  it.each(['', '0', 'false'])('PETSTORE_SANDBOX_WITHOUT_GET_PET=%j keeps getPet', async (value) => {
    const r = await runMain(['--env', 'sandbox', 'pets', 'get', '4', '--json'], {
      env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_SANDBOX_WITHOUT_GET_PET: value },
      now: at('2026-11-22T00:00:00Z'),
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stderr) as { message: string }).message).toContain('`pets get` is deprecated');
  });
});

describe('the list path prints exactly what getPet prints', () => {
  const dir = tempDir();
  const FORMATS: [string, string[], MainOptions['tty']][] = [
    ['tab-separated (piped)', [], false],
    ['table on a terminal', [], true],
    ['-o table piped', ['-o', 'table'], false],
    ['json', ['--json'], false],
    ['ndjson', ['-o', 'ndjson'], false],
  ];
  const cases = ['1', '4', '9007199254740993'].flatMap((id) =>
    FORMATS.map(([name, flags, tty]) => [id, name, flags, tty] as const),
  );
  it.each(cases)('pet %s, %s', async (id, _name, flags, tty) => {
    const opts = (extra: Record<string, string> = {}): MainOptions => ({
      env: { PETSTORE_CONFIG_DIR: dir, ...extra },
      tty,
      columns: 60,
    });
    const viaGet = await runMain(['--env', 'sandbox', 'pets', 'get', id, ...flags], opts());
    const viaList = await runMain(['--env', 'sandbox', 'pets', 'get', id, '--via-list', ...flags], opts());
    const fallback = await runMain(
      ['--env', 'sandbox', 'pets', 'get', id, ...flags],
      opts({ PETSTORE_SANDBOX_WITHOUT_GET_PET: '1' }),
    );
    expect(viaGet.code).toBe(0);
    expect(viaGet.stdout).toContain(id);
    expect(viaList.code).toBe(0);
    expect(viaList.stdout).toBe(viaGet.stdout);
    expect(fallback.code).toBe(0);
    expect(fallback.stdout).toBe(viaGet.stdout);
  });
});

describe('the deprecation warning of pets get', () => {
  it('is two lines of at most 80 columns naming the removal date, the replacement and --via-list', async () => {
    const now = '2026-11-22T00:00:00Z';
    const days = (REMOVAL_MS - Date.parse(now)) / DAY_MS;
    const r = await runMain(['--env', 'sandbox', 'pets', 'get', '1'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      now: at(now),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      // The second line is indented: no word of a wrapped message starts a line of its own.
      `warning: \`pets get\` is deprecated and will be removed on ${GET_PET_DEPRECATION.removal} (in ${days.toLocaleString('en-US')}\n` +
        '  days); replaced by `pets list --status STATUS`: add --via-list to use it now\n',
    );
  });

  it('stays within two lines of 80 columns on a terminal with colour', async () => {
    const r = await runMain(['--env', 'sandbox', 'pets', 'get', '1'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      tty: true,
      now: at('2026-11-22T00:00:00Z'),
    });
    expect(r.stderr).toContain('\u001b[33mwarning:');
    const lines = stripVTControlCharacters(r.stderr).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });
});

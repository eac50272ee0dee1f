/**
 * Deprecation signals end to end: RFC 9745 `Deprecation` and RFC 8594 `Sunset` headers give
 * one stderr warning per command with the days remaining; `pets get` merges them with its
 * own metadata; `--fail-on-deprecated` and a removed getPet send `pets get` through listPets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { specOperation, specUrl } from '../fixtures/api-spec.js';
import { startPagingServer, type PagingServer } from '../helpers/paging-server.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, TEST_NOW } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = 'test-key-deprecation-0123456789';
/** getPet's deprecation: its removal date and Sunset value. */
const GET_PET_DEPRECATION = specOperation('getPet').deprecated!;
/** listPets's request target (`/v1/pets`); a query follows it. */
const LIST_URL = specUrl('listPets');
/** What every getPet request target starts with (`/v1/pets/`). */
const GET_PET_PREFIX = specUrl('getPet', { petId: '' });

/** How a warning names the operation: `listPets (GET /pets)`. */
function named(operationId: string): string {
  const op = specOperation(operationId);
  return `${op.operationId} (${op.method} ${op.path})`;
}
const LIST_PETS_NAMED = named('listPets');
const CREATE_PET_NAMED = named('createPet');

let server: TestServer | PagingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  removeTempDirs();
});

function env(s: { baseUrl: string }, extra: Record<string, string> = {}): Record<string, string> {
  return { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir(), ...extra };
}

/** Whole UTC days from the runs' date (TEST_NOW) to `iso`, as the CLI counts them. */
function daysUntil(iso: string): number {
  return Math.floor(Date.parse(iso) / 86_400_000) - Math.floor(Date.parse(TEST_NOW) / 86_400_000);
}

const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };

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
      message: `\`pets get\` is deprecated and will be removed on ${GET_PET_DEPRECATION.removal} (in ${n} days); replaced by \`pets list --status STATUS\`: add --via-list to use it now`,
    });
    expect(r.stderr.endsWith('}\n')).toBe(true);
  });

  it('pets get still warns (from its metadata) when the answer carries no headers', async () => {
    server = await startTestServer(() => errorReply(404, 'not_found', 'pet 9 not found'));
    const r = await runMain(['pets', 'get', '9'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
    // The warning wraps at 80 columns; where depends on the number of days left.
    expect(r.stderr.replace(/\n(?=.)/g, ' ')).toContain(`will be removed on ${GET_PET_DEPRECATION.removal} (in `);
    expect(r.stderr).toContain('error: pet 9 not found (not_found, HTTP 404)');
  });

  it.each([
    [['--fail-on-deprecated', 'pets', 'get', '7'], {}, '--fail-on-deprecated'],
    [['pets', 'get', '7', '--fail-on-deprecated'], {}, '--fail-on-deprecated'],
    [['pets', 'get', '7'], { PETSTORE_FAIL_ON_DEPRECATED: '1' }, 'PETSTORE_FAIL_ON_DEPRECATED'],
  ])('%j %j never calls getPet: it finds the pet through listPets, saying why', async (args, extra, source) => {
    server = await startTestServer((req) => ({ status: 200, body: req.url.startsWith(GET_PET_PREFIX) ? PET : [PET] }));
    const r = await runMain(args, { env: env(server, extra) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tRex\t1\tavailable\n');
    expect(unwrapped(r.stderr)).toBe(
      `warning: getPet is deprecated and ${source} is set: finding pet 7 through ${LIST_PETS_NAMED}\n`,
    );
    expect(server.requests.map((q) => q.url)).toEqual([`${LIST_URL}?limit=100`]);
  });

  it('PETSTORE_FAIL_ON_DEPRECATED=0 keeps getPet', async () => {
    server = await startTestServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '7'], { env: env(server, { PETSTORE_FAIL_ON_DEPRECATED: '0' }) });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('warns once for a list whose every page is deprecated; stdout untouched', async () => {
    server = await startPagingServer({
      pages: 3,
      perPage: 2,
      headers: { deprecation: '@1767225600', sunset: 'Wed, 01 Jan 2031 00:00:00 GMT' },
    });
    const r = await runMain(['pets', 'list', '--all', '--output', 'ndjson'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `${LIST_PETS_NAMED} is deprecated (since 2026-01-01) and will be removed on 2031-01-01 (in ${daysUntil('2031-01-01T00:00:00Z')} days)`,
    });
  });

  it('tolerates the obsolete `Deprecation: true` as "deprecated, date unknown"', async () => {
    server = await startTestServer(() => ({ status: 200, body: [PET], headers: { deprecation: 'true' } }));
    const r = await runMain(['pets', 'list'], { env: env(server) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${LIST_PETS_NAMED} is deprecated\n`);
  });

  it('says when a deprecation lies in the future, and ignores malformed values', async () => {
    server = await startTestServer(() => ({ status: 200, body: [PET], headers: { deprecation: '@4102444800' } }));
    const r = await runMain(['pets', 'list'], { env: env(server) });
    expect(r.stderr).toBe(
      `warning: ${LIST_PETS_NAMED} will be deprecated on 2100-01-01 (in ${daysUntil('2100-01-01T00:00:00Z')} days)\n`,
    );
    server.handle(() => ({ status: 200, body: [PET], headers: { deprecation: 'soon', sunset: 'not a date' } }));
    const bad = await runMain(['pets', 'list'], { env: env(server) });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toBe('');
  });

  it('warns on create when the answer carries a Sunset header', async () => {
    server = await startTestServer(() => ({
      status: 201,
      body: PET,
      headers: { sunset: 'Sat, 01 Jan 2050 00:00:00 GMT' },
    }));
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json'], { env: env(server) });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }).id).toBe(7);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `${CREATE_PET_NAMED} is deprecated and will be removed on 2050-01-01 (in ${daysUntil('2050-01-01T00:00:00Z')} days)`,
    });
  });

  it.each([404, 410])(
    'pets get answered %i after the Sunset date finds the pet through listPets instead',
    async (status) => {
      const gone = {
        ...errorReply(status, 'gone', 'no such operation'),
        headers: { deprecation: '@1388534400', sunset: 'Thu, 01 Jan 2015 00:00:00 GMT' },
      };
      server = await startTestServer((req) =>
        req.url.startsWith(GET_PET_PREFIX) ? gone : { status: 200, body: [PET] },
      );
      const r = await runMain(['pets', 'get', '7'], { env: env(server) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('7\tRex\t1\tavailable\n');
      const reason = status === 410 ? '410 Gone' : '404 after its Sunset date, 2015-01-01';
      expect(unwrapped(r.stderr)).toBe(
        `warning: getPet answered ${reason}: finding pet 7 through ${LIST_PETS_NAMED}\n`,
      );
      expect(server.requests.map((q) => q.url)).toEqual([specUrl('getPet', { petId: 7 }), `${LIST_URL}?limit=100`]);
      // Not in the list either: exit 5 with the count.
      const missing = await runMain(['pets', 'get', '8'], { env: env(server) });
      expect(missing.code).toBe(5);
      expect(missing.stderr).toContain('error: pet 8 not found in the list: 1 pet searched on 1 page');
    },
  );

  it('a 404 before the Sunset date is an ordinary "not found"', async () => {
    server = await startTestServer(() => ({
      ...errorReply(404, 'not_found', 'pet 7 not found'),
      headers: { sunset: GET_PET_DEPRECATION.sunset },
    }));
    const r = await runMain(['pets', 'get', '7'], { env: env(server) });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: pet 7 not found (not_found, HTTP 404)');
    expect(r.stderr).not.toContain('was removed');
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
  });
});

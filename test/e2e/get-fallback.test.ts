/**
 * `pets get ID` where getPet cannot or must not be used: from the removal date on
 * (an injected clock), on 410 Gone or a 404 past the Sunset date, and under
 * --fail-on-deprecated, it finds the pet through listPets and says so in one stderr line.
 * Also: the list path prints byte for byte what getPet's path prints, the two-line
 * deprecation warning, and the sandbox playing the API after getPet's removal.
 */
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { specOperation, specUrl } from '../fixtures/api-spec.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, serverPool, type Handler } from '../helpers/test-server.js';

const KEY = 'test-key-get-fallback-0123456789';
const PET = { id: 7, name: 'Goldie', categoryId: 3, status: 'available' };
const OTHERS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 4, name: 'Polly', categoryId: 4, status: 'sold' },
];
const at = (iso: string) => () => new Date(iso);

const GET_PET = specOperation('getPet');
/** getPet's deprecation: its removal date, Sunset value and replacement. */
const GET_PET_DEPRECATION = GET_PET.deprecated!;
const LIST_PETS = specOperation('listPets');
/** How a warning names listPets, the operation of the list path: `listPets (GET /pets)`. */
const LIST_PETS_NAMED = `${LIST_PETS.operationId} (${LIST_PETS.method} ${LIST_PETS.path})`;
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

const pool = serverPool();
afterAll(async () => {
  await pool.closeAll();
  removeTempDirs();
});

/** A recording server: getPet answers `get`, listPets the list holding PET. */
function apiServer(get: Handler) {
  return pool.start((req, res) =>
    req.url.startsWith(GET_PET_PREFIX) ? get(req, res) : { status: 200, body: [...OTHERS, PET] },
  );
}

function envOf(s: { baseUrl: string }, extra: Record<string, string> = {}): Record<string, string> {
  return { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir(), ...extra };
}

describe('after the removal date (injected clock)', () => {
  it('pets get does not call getPet at all; one stderr line says the list was used', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '7'], { env: envOf(srv), now: afterRemoval(86.5 * DAY_MS) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(unwrapped(r.stderr)).toBe(
      `warning: getPet was removed on ${GET_PET_DEPRECATION.removal}: finding pet 7 through ${LIST_PETS_NAMED}\n`,
    );
    expect(srv.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${LIST_PETS.method} ${LIST_URL}`]);
  });

  it('from 00:00Z of the removal date on, not a second before', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const on = await runMain(['pets', 'get', '7'], { env: envOf(srv), now: afterRemoval(0) });
    expect(on.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([LIST_URL]);
    const before = await runMain(['pets', 'get', '7'], { env: envOf(srv), now: afterRemoval(-1000) });
    expect(before.code).toBe(0);
    expect(srv.requests.map((q) => q.url)).toEqual([LIST_URL, GET_PET_7]);
    expect(before.stderr).toContain(`will be removed on ${GET_PET_DEPRECATION.removal} (in 1 day)`);
  });

  it('with --output json the line is a JSON warning object', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '7', '--json'], { env: envOf(srv), now: afterRemoval(27 * DAY_MS) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(PET);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'warning',
      message: `getPet was removed on ${GET_PET_DEPRECATION.removal}: finding pet 7 through ${LIST_PETS_NAMED}`,
    });
  });

  it('a pet missing from the list then exits 5 with the count', async () => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(['pets', 'get', '8'], { env: envOf(srv), now: afterRemoval(27 * DAY_MS) });
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
    const r = await runMain(['pets', 'get', '7'], { env: envOf(srv) });
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
    const r = await runMain(['pets', 'get', '7'], { env: envOf(srv), now: at('2026-11-22T00:00:00Z') });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: pet 7 not found (not_found, HTTP 404)');
    expect(srv.requests).toHaveLength(1);
  });
});

describe('--fail-on-deprecated', () => {
  it.each([
    [['--fail-on-deprecated', 'pets', 'get', '7'], {}, '--fail-on-deprecated'],
    [['pets', 'get', '7'], { PETSTORE_FAIL_ON_DEPRECATED: '1' }, 'PETSTORE_FAIL_ON_DEPRECATED'],
  ])('%j %j goes straight to the list path, never touching getPet', async (args, extra, source) => {
    const srv = await apiServer(() => ({ status: 200, body: PET }));
    const r = await runMain(args, { env: envOf(srv, extra) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7\tGoldie\t3\tavailable\n');
    expect(unwrapped(r.stderr)).toBe(
      `warning: getPet is deprecated and ${source} is set: finding pet 7 through ${LIST_PETS_NAMED}\n`,
    );
    expect(srv.requests.map((q) => q.url)).toEqual([LIST_URL]);
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
  const env = (): Record<string, string> => ({
    PETSTORE_BASE_URL: sandbox.baseUrl,
    PETSTORE_API_KEY: sandbox.apiKey,
    PETSTORE_CONFIG_DIR: dir,
  });

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
      `warning: \`pets get\` is deprecated and will be removed on ${GET_PET_DEPRECATION.removal} (in ${days}\n` +
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

describe('sandbox serve --without-get-pet', () => {
  it('serves getPet as 410 Gone and says so when it starts', async () => {
    const controller = new AbortController();
    let out = '';
    let err = '';
    let ready: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const run = runMain(['sandbox', 'serve', '--without-get-pet'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      signal: controller.signal,
      onOutput: (stream, text) => {
        if (stream === 'stdout') out += text;
        else err += text;
        if (out.includes('PETSTORE_API_KEY=') && err.includes('Ctrl-C stops it')) ready();
      },
    });
    await started;
    expect(err).toContain('getPet removed: it answers 410 Gone');
    const baseUrl = /^PETSTORE_BASE_URL=(.*)$/m.exec(out)?.[1] ?? '';
    const apiKey = /^PETSTORE_API_KEY=(.*)$/m.exec(out)?.[1] ?? '';
    const auth = { authorization: `Bearer ${apiKey}` };
    const gone = await fetch(`${baseUrl}/pets/1`, { headers: auth });
    const list = await fetch(`${baseUrl}/pets?limit=1`, { headers: auth });
    controller.abort();
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { code: string }).code).toBe('gone');
    expect(list.status).toBe(200);
    // Stopped by its signal, as Ctrl-C stops it: 130.
    expect((await run).code).toBe(130);
  });
});

/**
 * Output rules of cli-contract.md "Output": data only on stdout, the empty list, the
 * deprecation warning of `pets get`, and colour when piped (FORCE_COLOR, NO_COLOR).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specOperation, specUrl } from '../fixtures/api-spec.js';
import { remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_output_abcdef0123';
const ESC = '\u001b';
/** getPet's deprecation: its removal date and the Deprecation and Sunset values its answers carry. */
const GET_PET_DEPRECATION = specOperation('getPet').deprecated!;
/** What every getPet request target starts with (`/v1/pets/`). */
const GET_PET_PREFIX = specUrl('getPet', { petId: '' });
let dir: string;
let empty: TestServer;
let pets: TestServer;

const PETS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 3, name: 'Bubbles', categoryId: 3, status: 'pending' },
];

beforeAll(async () => {
  dir = tempDir();
  empty = await startTestServer(() => ({ status: 200, body: [] }));
  pets = await startTestServer((req) =>
    req.url.startsWith(GET_PET_PREFIX)
      ? {
          status: 200,
          headers: { Deprecation: GET_PET_DEPRECATION.deprecation, Sunset: GET_PET_DEPRECATION.sunset },
          body: PETS[0],
        }
      : { status: 200, body: PETS },
  );
});
afterAll(async () => {
  await Promise.all([empty.close(), pets.close()]);
  removeTempDirs();
});

function run(srv: TestServer, args: string[], env: Record<string, string> = {}) {
  return runMain(args, {
    env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, ...env }),
  });
}

describe.concurrent('output', () => {
  it.each([
    [[], ''],
    [['--output', 'ndjson'], ''],
    [['--json'], '[]\n'],
    [['--output', 'json'], '[]\n'],
  ])('an empty list with %j is exit 0 and prints %j', async (flags, want) => {
    const r = await run(empty, ['pets', 'list', ...flags]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(want);
    // The "no pets" note is for people on a terminal only.
    expect(r.stderr).toBe('');
  });

  it('pets get warns on stderr naming the removal date and the replacement; stdout is the pet only', async () => {
    const r = await run(pets, ['pets', 'get', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n');
    expect(r.stderr).toMatch(/^warning: .*deprecated/);
    expect(r.stderr).toContain(GET_PET_DEPRECATION.removal);
    expect(r.stderr).toContain('pets list --status');
    // At most two lines of 80 columns (cli-contract.md "Commands").
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('pets get --json keeps stdout parseable, the warning on stderr', async () => {
    const r = await run(pets, ['pets', 'get', '1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(PETS[0]);
    expect(r.stderr).toContain(GET_PET_DEPRECATION.removal);
  });

  it('--fail-on-deprecated sends pets get through listPets, never calling getPet', async () => {
    const srv = await startTestServer((req) => ({
      status: 200,
      body: req.url.startsWith(GET_PET_PREFIX) ? PETS[0] : PETS,
    }));
    try {
      const r = await run(srv, ['--fail-on-deprecated', 'pets', 'get', '1']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('1\tRex\t1\tavailable\n');
      expect(r.stderr).toContain('--fail-on-deprecated is set');
      expect(srv.requests.map((q) => q.url)).toEqual([`${specUrl('listPets')}?limit=100`]);
    } finally {
      await srv.close();
    }
  });

  it('pets list prints no deprecation warning', async () => {
    const r = await run(pets, ['pets', 'list']);
    expect(r.stderr).toBe('');
  });

  it.each([
    ['FORCE_COLOR=1', { FORCE_COLOR: '1' }],
    ['CLICOLOR_FORCE=1', { CLICOLOR_FORCE: '1' }],
  ])('%s piped keeps the tab-separated form with no colour in the data', async (_name, env) => {
    const r = await run(pets, ['pets', 'list'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n3\tBubbles\t3\tpending\n');
    expect(r.stdout).not.toContain(ESC);
  });

  it('FORCE_COLOR=1 colours messages on a piped stderr; json and ndjson stay plain', async () => {
    const [get, json, ndjson] = await Promise.all([
      run(pets, ['pets', 'get', '1'], { FORCE_COLOR: '1' }),
      run(pets, ['pets', 'list', '--json'], { FORCE_COLOR: '1' }),
      run(pets, ['pets', 'list', '-o', 'ndjson'], { FORCE_COLOR: '1' }),
    ]);
    expect(get.stderr).toContain(`${ESC}[33mwarning:${ESC}[39m`);
    expect(get.stdout).toBe('1\tRex\t1\tavailable\n');
    expect(JSON.parse(json.stdout)).toEqual(PETS);
    expect(json.stdout + ndjson.stdout).not.toContain(ESC);
  });

  it.each([
    ['NO_COLOR=1', ['pets', 'get', '1'], { FORCE_COLOR: '1', NO_COLOR: '1' }],
    ['--no-color', ['--no-color', 'pets', 'get', '1'], { FORCE_COLOR: '1' }],
    ['--no-color after the command', ['pets', 'get', '1', '--no-color'], { FORCE_COLOR: '1' }],
    ['TERM=dumb', ['pets', 'get', '1'], { TERM: 'dumb' }],
  ])('%s keeps every stream free of colour', async (_name, args, env) => {
    const r = await run(pets, args, env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning:');
    expect(r.stdout + r.stderr).not.toContain(ESC);
  });

  it('--no-color after -- is an operand, not the flag: the refusal keeps its colour', async () => {
    const r = await run(pets, ['pets', 'get', '--', '--no-color'], { FORCE_COLOR: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(ESC);
    expect(r.stderr).toContain('--no-color');
  });

  it('an API error under FORCE_COLOR=1 is red on stderr, and plain with NO_COLOR', async () => {
    const srv = await startTestServer(() => errorReply(404, 'not_found', 'pet 2 not found'));
    try {
      const [forced, plain] = await Promise.all([
        run(srv, ['pets', 'list'], { FORCE_COLOR: '1' }),
        run(srv, ['pets', 'list'], { FORCE_COLOR: '1', NO_COLOR: '1' }),
      ]);
      expect(forced.code).toBe(5);
      expect(forced.stderr).toContain(`${ESC}[31merror:${ESC}[39m pet 2 not found`);
      expect(plain.code).toBe(5);
      expect(plain.stderr).toMatch(/^error: pet 2 not found \(not_found, HTTP 404\)\n/);
    } finally {
      await srv.close();
    }
  });
});

/**
 * What scripts and spreadsheets get (cli-contract.md "Output"): every allowed format ×
 * `--fields` × `--jq` combination against a server whose pets hold int64 extremes and
 * awkward names, each refused combination (exit 2, nothing sent), CSV (RFC 4180, OWASP's
 * formula guard), `--sort` (exact beyond 2^53, names by locale), `--jq` errors and the
 * `--all` cap. In-process (runMain); what needs a process is in jq-process.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JQ_MAX_INPUT_BYTES, JQ_MAX_INPUT_PETS } from '../../src/render/output.js';
import { pagingServerPool } from '../helpers/paging-server.js';
import { commandTree, petPrinters } from '../helpers/command-tree.js';
import { fileServers, lastError, remoteEnv } from '../helpers/harness.js';
import { untilTheFilterRuns } from '../helpers/jq-deadline.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { type Handler, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_output_select_0123';
/** The commands that print pets, reads before writes, as the refusal names them (from the tree). */
const PRINTERS = petPrinters(await commandTree()).map((c) => c.words.join(' '));
const { start: startServer } = fileServers();
const { start: pager, closeAll: closePagers } = pagingServerPool();
afterAll(closePagers);

type Field = 'id' | 'name' | 'categoryId' | 'status';
/** A pet as the server sends it; ids are decimal text, written into the JSON as bare digits. */
type RawPet = Partial<Record<Field, string>>;
const INTEGERS: readonly Field[] = ['id', 'categoryId'];

/** Ids 2^53, 2^53+1, 2^53+2 out of order; a negative id; names a CSV must guard or quote. */
const PETS: RawPet[] = [
  { id: '9007199254740994', name: 'Comma, "quoted"', categoryId: '9223372036854775807', status: 'available' },
  { id: '9007199254740992', name: '=HYPERLINK("http://x")', categoryId: '-9223372036854775808', status: 'sold' },
  { id: '-7', name: 'Zoë\nsecond line', categoryId: '1' },
  { id: '9007199254740993', name: '-2+3', categoryId: '4', status: 'pending' },
  { id: '1', name: '@sum', categoryId: '2', status: 'available' },
];

/** JSON text of one pet, keys in `fields` order (all by default), ints exact. */
function petJson(p: RawPet, fields: readonly Field[] = ['id', 'name', 'categoryId', 'status'], indent = ''): string {
  const inner = indent === '' ? '' : `\n${indent}  `;
  const parts = fields
    .filter((f) => p[f] !== undefined)
    .map(
      (f) => `${JSON.stringify(f)}:${indent === '' ? '' : ' '}${INTEGERS.includes(f) ? p[f] : JSON.stringify(p[f])}`,
    );
  return indent === '' ? `{${parts.join(',')}}` : `{${inner}${parts.join(`,${inner}`)}\n${indent}}`;
}

const listText = `[${PETS.map((p) => petJson(p)).join(',')}]`;

/** A server answering `GET /v1/pets` with PETS, `GET /v1/pets/N` with that pet, and `POST` with pet 2^53+1. */
const shop: Handler = (req) => {
  if (req.method === 'POST') return { status: 201, raw: petJson(PETS[3]!) };
  const one = /^\/v1\/pets\/(-?\d+)$/.exec(req.url)?.[1];
  if (one !== undefined) return { status: 200, raw: petJson(PETS.find((p) => p.id === one)!) };
  return { status: 200, raw: listText };
};

async function shopServer(): Promise<TestServer> {
  return startServer(shop);
}

/** What each format prints for `pets` with `fields` (the oracle the matrix compares with). */
function expected(format: string, pets: RawPet[], fields: readonly Field[] | undefined): string {
  const f = fields ?? ['id', 'name', 'categoryId', 'status'];
  const text = (p: RawPet, k: Field): string => p[k] ?? '';
  switch (format) {
    case 'tsv':
      return pets.map((p) => `${f.map((k) => text(p, k).replace(/\n/g, '\\n')).join('\t')}\n`).join('');
    case 'json':
      return pets.length === 0 ? '[]\n' : `[\n  ${pets.map((p) => petJson(p, f, '  ')).join(',\n  ')}\n]\n`;
    case 'ndjson':
      return pets.map((p) => `${petJson(p, f)}\n`).join('');
    case 'jq':
      // `..|scalars`: every value of every record, in key order; strings raw.
      return pets
        .map((p) =>
          f
            .filter((k) => p[k] !== undefined)
            .map((k) => `${text(p, k)}\n`)
            .join(''),
        )
        .join('');
    default:
      throw new Error(format);
  }
}

/** The CSV of PETS: RFC 4180 with OWASP's guard (the oracle, written out by hand). */
const PETS_CSV =
  'id,name,categoryId,status\r\n' +
  '9007199254740994,"Comma, ""quoted""",9223372036854775807,available\r\n' +
  '9007199254740992,"\'=HYPERLINK(""http://x"")",-9223372036854775808,sold\r\n' +
  '-7,"Zoë\nsecond line",1,\r\n' +
  '9007199254740993,"\'-2+3",4,pending\r\n' +
  '1,"\'@sum",2,available\r\n';

const FIELD_CASES: (Field[] | undefined)[] = [undefined, ['name', 'id'], ['status', 'categoryId']];

// Dozens of runs at once, each with jq's WebAssembly: a loaded machine took 10 s for one;
// only a hang takes two minutes.
describe.concurrent('every allowed format × --fields × --jq (pets list)', { timeout: 120_000 }, () => {
  const formats: [string, string[], string][] = [
    ['piped, no -o (tsv)', [], 'tsv'],
    ['-o tsv', ['-o', 'tsv'], 'tsv'],
    ['-o json', ['-o', 'json'], 'json'],
    ['--json', ['--json'], 'json'],
    ['-o ndjson', ['-o', 'ndjson'], 'ndjson'],
    ['--jq, no -o', ['--jq', '..|scalars'], 'jq'],
    ['--jq -o json', ['--jq', '..|scalars', '-o', 'json'], 'jq'],
    ['--jq --json', ['--json', '--jq', '..|scalars'], 'jq'],
    ['--jq -o ndjson (per record)', ['-o', 'ndjson', '--jq', '..|scalars'], 'jq'],
  ];
  const cases = formats.flatMap(([name, args, format]) =>
    FIELD_CASES.map((fields) => [name, fields === undefined ? '-' : fields.join(','), args, format, fields] as const),
  );

  it.each(cases)('%s, --fields %s', async (_name, _f, args, format, fields) => {
    const server = await shopServer();
    const r = await runMain(
      ['pets', 'list', ...args, ...(fields === undefined ? [] : ['--fields', fields.join(',')])],
      {
        env: remoteEnv(server.baseUrl, KEY),
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected(format, PETS, fields));
  });

  it.each(FIELD_CASES.flatMap((f) => (f === undefined ? [] : [[f]])))(
    '--json %j is --output json --fields, --jq included',
    async (fields) => {
      const server = await shopServer();
      const list = fields.join(',');
      const [plain, jq] = await Promise.all([
        runMain(['pets', 'list', '--json', list], { env: remoteEnv(server.baseUrl, KEY) }),
        runMain(['pets', 'list', '--json', list, '--jq', '..|scalars'], { env: remoteEnv(server.baseUrl, KEY) }),
      ]);
      expect(plain.stdout).toBe(expected('json', PETS, fields));
      expect(jq.stdout).toBe(expected('jq', PETS, fields));
    },
  );

  it.each([
    [undefined, PETS_CSV],
    [
      ['name', 'id'],
      'name,id\r\n"Comma, ""quoted""",9007199254740994\r\n"\'=HYPERLINK(""http://x"")",9007199254740992\r\n' +
        '"Zoë\nsecond line",-7\r\n"\'-2+3",9007199254740993\r\n"\'@sum",1\r\n',
    ],
    [
      ['status', 'categoryId'],
      'status,categoryId\r\navailable,9223372036854775807\r\nsold,-9223372036854775808\r\n,1\r\npending,4\r\navailable,2\r\n',
    ],
  ] as const)('-o csv with --fields %j: RFC 4180, CRLF, formulas guarded, ids exact', async (fields, want) => {
    const server = await shopServer();
    const r = await runMain(
      ['pets', 'list', '-o', 'csv', ...(fields === undefined ? [] : ['--fields', fields.join(',')])],
      {
        env: remoteEnv(server.baseUrl, KEY),
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(want);
  });

  it('-o csv on a terminal escapes control characters in names (piped, they are exact)', async () => {
    const server = await shopServer();
    const r = await runMain(['pets', 'list', '-o', 'csv', '--fields', 'name'], {
      env: remoteEnv(server.baseUrl, KEY),
      tty: true,
    });
    expect(r.stdout.split('\r\n')[3]).toBe('Zoë\\x0asecond line');
  });

  it('-o csv of an empty list is its header row', async () => {
    const server = await startServer(() => ({ status: 200, body: [] }));
    const r = await runMain(['pets', 'list', '-o', 'csv'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('id,name,categoryId,status\r\n');
  });

  it.each(FIELD_CASES.map((f) => [f] as const))(
    '-o table with --fields %j: those columns, in that order',
    async (fields) => {
      const server = await shopServer();
      const r = await runMain(
        ['pets', 'list', '-o', 'table', ...(fields === undefined ? [] : ['--fields', fields.join(',')])],
        {
          env: remoteEnv(server.baseUrl, KEY),
        },
      );
      expect(r.code).toBe(0);
      const headers = { id: 'ID', name: 'NAME', categoryId: 'CATEGORY', status: 'STATUS' };
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]?.split(/ {2,}/)).toEqual(
        (fields ?? ['id', 'name', 'categoryId', 'status']).map((f) => headers[f]),
      );
      expect(lines).toHaveLength(PETS.length + 1);
      for (const [i, p] of PETS.entries()) {
        for (const k of fields ?? [])
          expect(lines[i + 1]).toContain(k === 'name' ? (p.name ?? '').replace('\n', '\\x0a') : (p[k] ?? ''));
      }
    },
  );
});

describe.concurrent('one pet: pets get and pets create', () => {
  it.each([
    [['--json'], '{\n  "id": 9007199254740993,\n  "name": "-2+3",\n  "categoryId": 4,\n  "status": "pending"\n}\n'],
    [['--json', 'name,id'], '{\n  "name": "-2+3",\n  "id": 9007199254740993\n}\n'],
    [['--jq', '.id, .name, .categoryId'], '9007199254740993\n-2+3\n4\n'],
    [['--jq', '.'], '{"id":9007199254740993,"name":"-2+3","categoryId":4,"status":"pending"}\n'],
    [['--fields', 'id', '--jq', 'keys'], '["id"]\n'],
    [['-o', 'ndjson', '--jq', '.id'], '9007199254740993\n'],
    [['-o', 'csv'], 'id,name,categoryId,status\r\n9007199254740993,"\'-2+3",4,pending\r\n'],
    [['-o', 'tsv', '--fields', 'status,id'], 'pending\t9007199254740993\n'],
  ])('%j', async (args, want) => {
    const server = await shopServer();
    const [get, create] = await Promise.all([
      runMain(['pets', 'get', '9007199254740993', ...args], { env: remoteEnv(server.baseUrl, KEY) }),
      runMain(['pets', 'create', '--name', '-2+3', '--category-id', '4', ...args], {
        env: remoteEnv(server.baseUrl, KEY),
      }),
    ]);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe(want);
    expect(create.stderr).toBe('');
    expect(create.code).toBe(0);
    expect(create.stdout).toBe(want);
  });

  it('pets create --from-file runs --jq once per created pet, whatever the format', async () => {
    const server = await startServer((req) =>
      req.method === 'POST'
        ? { status: 201, raw: req.body.replace(/^\{/, `{"id":${9007199254740992n + BigInt(server.requests.length)},`) }
        : undefined,
    );
    const input = '{"name":"A","categoryId":1}\n{"name":"B","categoryId":9223372036854775807}\n';
    const r = await runMain(['pets', 'create', '--from-file', '-', '--jq', '[.name, .id, .categoryId]'], {
      env: remoteEnv(server.baseUrl, KEY),
      input,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('["A",9007199254740993,1]\n["B",9007199254740994,9223372036854775807]\n');
  });
});

describe.concurrent('refused combinations: exit 2, nothing sent', () => {
  it.each([
    [['pets', 'list', '--jq', '.', '-o', 'table'], '--output table is not JSON'],
    [['pets', 'list', '--jq', '.', '-o', 'tsv'], '--output tsv is not JSON'],
    [['pets', 'list', '--jq', '.', '-o', 'csv'], '--output csv is not JSON'],
    [['pets', 'get', '7', '-o', 'table', '--jq', '.'], '--output table is not JSON'],
    [['pets', 'list', '--json', 'id', '--fields', 'name'], '--json FIELDS and --fields'],
    [['pets', 'list', '--json', 'id', '-o', 'csv'], 'two different formats'],
    [['pets', 'list', '--jq', ''], 'give a jq expression'],
    [['pets', 'create', '--name', 'X', '--category-id', '1', '--jq', '.x |'], 'invalid --jq expression'],
    [['pets', 'list', '--sort', 'colour'], 'invalid --sort "colour"'],
    [['pets', 'list', '--fields', 'id,id'], 'id is named twice'],
    [
      ['pets', 'list', '--fields', 'id,colour'],
      'invalid --fields "id,colour": unknown field "colour"; the fields are id, name, categoryId, status',
    ],
    [['pets', 'list', '--fields', 'id,colour', '--json'], 'the fields are id, name, categoryId, status'],
    [['pets', 'get', '7', '--sort', 'id'], "unknown option '--sort'"],
  ])('%j', async (args, message) => {
    const server = await shopServer();
    const r = await runMain(args, { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const text = r.stderr.startsWith('{') ? (JSON.parse(r.stderr) as { message: string }).message : r.stderr;
    expect(unwrapped(text)).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['pets', 'list', '--jq', '.[] | .nam('], "syntax error, unexpected '('"],
    [['pets', 'list', '--jq', 'foo'], 'foo/0 is not defined'],
    [['pets', 'get', '1', '--jq', '.x |'], 'invalid --jq expression'],
    [['pets', 'get', '7', '--jq', '.x |'], 'invalid --jq expression', 404],
    [['pets', 'list', '--jq', '.x |'], 'invalid --jq expression', 401],
  ])(
    'a read, %j: exit 2, nothing printed (its request may have left: the answer is dropped)',
    async (args, message, status?: number) => {
      const refusing: Handler = () => ({
        status: status ?? 500,
        raw: `{"code":"refused","message":"no","status":${status ?? 500}}`,
      });
      const server = status === undefined ? await shopServer() : await startServer(refusing);
      const r = await runMain(args, { env: remoteEnv(server.baseUrl, KEY) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // The error is the last message (getPet's deprecation warning, of the request sent, may come first).
      const last = r.stderr.trimEnd().split('\n').at(-1) ?? '';
      const text = last.startsWith('{') ? (JSON.parse(last) as { message: string }).message : r.stderr;
      expect(unwrapped(text)).toContain(message);
      expect(server.requests.every((req) => req.method === 'GET')).toBe(true);
    },
  );

  it('a read whose answer gives the filter nothing to run on: still exit 2, nothing printed', async () => {
    const server = await startServer(() => ({ status: 200, raw: '[]' }));
    const r = await runMain(['pets', 'list', '-o', 'ndjson', '--jq', '.x |'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('invalid --jq expression');
  });

  it('pets create --from-file with a bad --jq sends nothing', async () => {
    const server = await shopServer();
    const r = await runMain(['pets', 'create', '--from-file', '-', '--jq', '{'], {
      env: remoteEnv(server.baseUrl, KEY),
      input: '{"name":"A","categoryId":1}\n',
    });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [
      ['config', 'list', '--jq', '.'],
      `--jq applies only to commands that print pets (${PRINTERS.join(', ')}) and to \`api\``,
    ],
    [['config', 'list', '--fields', 'id'], '--fields applies only'],
    [['config', 'list', '-o', 'csv'], '--output csv applies only'],
    [['auth', 'status', '--json', 'id'], '--json FIELDS applies only'],
    [['--jq', '.', 'version'], 'not to `version`'],
    [['sandbox', 'reset', '--fields', 'name'], 'not to `sandbox reset`'],
    // --sort belongs to `pets list` alone: elsewhere commander knows no such option.
    [['config', 'list', '--sort', 'id'], "unknown option '--sort'"],
    [['auth', 'status', '--sort', 'id'], "unknown option '--sort'"],
    [['version', '--sort', 'id'], "unknown option '--sort'"],
    [['--sort', 'id', 'config', 'list'], "unknown option '--sort'"],
  ])('%j: not a command that prints pets', async (args, message) => {
    expect(PRINTERS).toEqual(expect.arrayContaining(['pets list', 'pets get', 'pets create']));
    const dir = tempDir();
    const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const text = r.stderr.startsWith('{') ? (JSON.parse(r.stderr) as { message: string }).message : r.stderr;
    expect(unwrapped(text)).toContain(message);
  });

  it('-o json keeps working on config list', async () => {
    const r = await runMain(['config', 'list', '-o', 'json'], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expect.any(Array));
  });
});

describe.concurrent('--jq output and errors', () => {
  it.each([
    // Passed through, int64 values stay exact; computed ones are doubles, as in jq.
    ['.[0].id, .[0].categoryId, .[1].categoryId', '9007199254740994\n9223372036854775807\n-9223372036854775808\n'],
    ['.[0].id + 0', '9007199254740994\n'],
    ['.[3].id + 0', '9007199254740992\n'],
    ['[.[].id] | sort', '[-7,1,9007199254740992,9007199254740993,9007199254740994]\n'],
    ['.[2].name', 'Zoë\nsecond line\n'],
    ['.[0].name | @json', '"Comma, \\"quoted\\""\n'],
    ['map(select(.status == null)) | .[].name | ascii_downcase', 'zoë\nsecond line\n'],
    ['empty', ''],
    ['length, true, null, {a: 1}', '5\ntrue\nnull\n{"a":1}\n'],
  ])('%s', async (filter, want) => {
    const server = await shopServer();
    const r = await runMain(['pets', 'list', '--jq', filter], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(want);
  });

  it('a run-time error is exit 1 with jq message, after what was printed before it', async () => {
    const server = await shopServer();
    const r = await runMain(['pets', 'list', '--jq', '.[].id, .[0].name.x'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(['9007199254740994', '9007199254740992', '-7', '9007199254740993', '1', ''].join('\n'));
    expect(JSON.parse(r.stderr)).toEqual({
      code: 'jq',
      message: '--jq: Cannot index string with string ("x")',
      status: 0,
    });
  });

  it('per record, a run-time error stops at the record that failed', async () => {
    const server = await shopServer();
    const r = await runMain(
      ['pets', 'list', '-o', 'ndjson', '--jq', 'if .id == 1 then error("no \\(.name)") else .id end'],
      {
        env: remoteEnv(server.baseUrl, KEY),
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('9007199254740994\n9007199254740992\n-7\n9007199254740993\n');
    expect((JSON.parse(r.stderr) as { message: string }).message).toBe('--jq: no @sum');
  });

  it('on a terminal, raw strings are escaped (line feeds too: no forged line) but keep their tabs; piped they are exact', async () => {
    const server = await startServer(() => ({
      status: 200,
      raw: '[{"id":1,"name":"a\\u001b[2Jb\\u202ec","categoryId":1}]',
    }));
    const filter = '.[] | "\\(.id)\\t\\(.name)\\n"';
    const [tty, piped] = await Promise.all([
      runMain(['pets', 'list', '--jq', filter], { env: remoteEnv(server.baseUrl, KEY), tty: true }),
      runMain(['pets', 'list', '--jq', filter], { env: remoteEnv(server.baseUrl, KEY) }),
    ]);
    expect(tty.stdout).toBe('1\ta\\x1b[2Jb\\u{202e}c\\x0a\n');
    expect(piped.stdout).toBe('1\ta\u001b[2Jb\u202ec\n\n');
  });

  it("jq's debug lines go to stderr, as JSON objects under --output json", async () => {
    const server = await shopServer();
    const r = await runMain(['pets', 'list', '--jq', '.[0].id | debug | . + 1 | tostring'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('9007199254740996\n');
    expect(JSON.parse(r.stderr)).toEqual({ level: 'debug', message: '["DEBUG:",9007199254740994]' });
  });
});

// A filter that would run for hours is stopped when --timeout runs out (cli-contract.md
// "Network behaviour"), whatever the command: exit 1, code jq_timeout (not 3: the server
// answered). The test's own limit only catches a run that never ends. The runs go one at a
// time (a filter spinning in one run would take the CPU another run's request needs), each
// command run once beforehand with a quick filter, so that loading its modules (Vite's
// transform, seconds on a busy machine) is not what the deadline is spent on. Starting jq
// and the request share the deadline too: a run whose request timed out (a loaded machine)
// is repeated with more time (untilTheFilterRuns).
describe('--jq under --timeout', { timeout: 240_000 }, () => {
  const forever = 'last(range(1e12))';
  const cases: [string, string[], string][] = [
    ['pets list', ['pets', 'list'], forever],
    ['pets list -o ndjson (per record)', ['pets', 'list', '-o', 'ndjson'], `select(.id == 1) | ${forever}`],
    ['pets list --all', ['pets', 'list', '--all'], forever],
    ['pets get', ['pets', 'get', '1'], forever],
    ['pets create', ['pets', 'create', '--name', 'X', '--category-id', '1'], forever],
    ['api', ['api', 'pets'], forever],
    ['api --paginate', ['api', 'pets', '--paginate'], forever],
  ];

  beforeAll(async () => {
    const server = await shopServer();
    for (const [, args] of cases) {
      const r = await runMain([...args, '--jq', 'empty'], { env: remoteEnv(server.baseUrl, KEY) });
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it.each(cases)('%s: exit 1, code jq_timeout', async (_name, args, filter) => {
    const server = await shopServer();
    const { r, timeoutS } = await untilTheFilterRuns(3, (s) =>
      runMain([...args, '--jq', filter, '--timeout', String(s)], { env: remoteEnv(server.baseUrl, KEY) }),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(lastError(r)).toEqual({
      code: 'jq_timeout',
      message: `--jq: the filter did not finish within the --timeout of ${timeoutS} s (the whole command, requests included); it was stopped`,
      status: 0,
    });
    // jq prints only when a run ends: the stopped run printed nothing.
    expect(r.stdout).toBe('');
  });
});

describe.concurrent('--sort', () => {
  const sorted = (field: Field, order: string[]): string =>
    order
      .map((id) => PETS.find((p) => p.id === id)!)
      .map((p) => `${p[field] ?? ''}\n`)
      .join('');

  it.each([
    ['id', ['-7', '1', '9007199254740992', '9007199254740993', '9007199254740994']],
    ['-id', ['9007199254740994', '9007199254740993', '9007199254740992', '1', '-7']],
    ['categoryId', ['9007199254740992', '-7', '1', '9007199254740993', '9007199254740994']],
    ['-categoryId', ['9007199254740994', '9007199254740993', '1', '-7', '9007199254740992']],
    // A pet without a status comes last either way; equal ones keep the server's order.
    ['status', ['9007199254740994', '1', '9007199254740993', '9007199254740992', '-7']],
    ['-status', ['9007199254740992', '9007199254740993', '9007199254740994', '1', '-7']],
  ])('--sort %s orders ids exactly, beyond 2^53', async (sort, order) => {
    const server = await shopServer();
    const [tsv, jq, all] = await Promise.all([
      runMain(['pets', 'list', '--sort', sort, '--fields', 'id'], { env: remoteEnv(server.baseUrl, KEY) }),
      runMain(['pets', 'list', '--sort', sort, '--jq', '.[].id'], { env: remoteEnv(server.baseUrl, KEY) }),
      runMain(['pets', 'list', '--all', `--sort=${sort}`, '-o', 'csv', '--fields', 'id'], {
        env: remoteEnv(server.baseUrl, KEY),
      }),
    ]);
    expect(tsv.stdout).toBe(sorted('id', order));
    expect(jq.stdout).toBe(sorted('id', order));
    expect(all.stdout).toBe(`id\r\n${sorted('id', order).replace(/\n/g, '\r\n')}`);
  });

  it.each([
    ['en_US.UTF-8', 'apple\nBanana\ncherry\néclair\n'],
    ['C.UTF-8', 'Banana\napple\ncherry\néclair\n'],
    ['C', 'Banana\napple\ncherry\néclair\n'],
  ])('--sort name follows the collation of LANG=%s', async (lang, want) => {
    const names = ['cherry', 'éclair', 'Banana', 'apple'];
    const server = await startServer(() => ({
      status: 200,
      body: names.map((name, i) => ({ id: i + 1, name, categoryId: 1 })),
    }));
    const r = await runMain(['pets', 'list', '--sort', 'name', '--fields', 'name'], {
      env: remoteEnv(server.baseUrl, KEY, { LANG: lang }),
    });
    expect(r.stdout).toBe(want);
  });
});

describe.concurrent('--all with --jq', () => {
  it('the filter sees one array of every page', async () => {
    const p = await pager({ pages: 4 });
    const r = await runMain(['pets', 'list', '--all', '--jq', 'length, .[-1].id'], { env: remoteEnv(p.baseUrl, KEY) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('400\n400\n');
    expect(p.urls).toHaveLength(4);
  });

  it(`past ${JQ_MAX_INPUT_BYTES / 1024 / 1024} MiB it stops fetching: exit 1, nothing printed, a hint to -o ndjson`, async () => {
    // 100 pets of about 4 KB a page: the cap falls in page 83.
    const p = await pager({ pages: 120, perPage: 100, nameLength: 4000 });
    // The whole command's deadline is not the subject: a loaded machine may take longer than 30 s.
    const r = await runMain(['pets', 'list', '--all', '--jq', 'length', '--timeout', '600'], {
      env: remoteEnv(p.baseUrl, KEY),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { code: string; message: string };
    expect(err.code).toBe('jq_input_too_large');
    expect(err.message).toContain('more than 32 MiB of JSON');
    expect(p.urls.length).toBeLessThan(90);
    expect(p.urls.length).toBeGreaterThan(80);
    // 33 MiB through the process: a loaded machine may take a minute; only a hang takes 5.
  }, 300_000);

  it(`past ${JQ_MAX_INPUT_PETS} pets too; with -o ndjson the filter runs per pet and never stops`, async () => {
    const p = await pager({ pages: 42, perPage: 5000 });
    const [whole, each] = await Promise.all([
      runMain(['pets', 'list', '--all', '--jq', 'length', '--output', 'json', '--timeout', '600'], {
        env: remoteEnv(p.baseUrl, KEY),
      }),
      runMain(['pets', 'list', '--all', '-o', 'ndjson', '--jq', 'select(.id % 50000 == 0) | .id', '--timeout', '600'], {
        env: remoteEnv(p.baseUrl, KEY),
      }),
    ]);
    expect(whole.code).toBe(1);
    expect(whole.stdout).toBe('');
    expect((JSON.parse(whole.stderr) as { message: string }).message).toContain(
      `more than ${JQ_MAX_INPUT_PETS.toLocaleString('en-US')} pets`,
    );
    expect(each.code).toBe(0);
    expect(each.stdout).toBe('50000\n100000\n150000\n200000\n');
    // 210,000 pets, each through jq: a loaded machine may take a minute; only a hang takes 5.
  }, 300_000);
});

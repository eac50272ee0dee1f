/**
 * Property-based tests of the input rules (cli-contract.md "Input rules"): for random and
 * tricky strings as `--limit`, `--status`, a pet ID and `--category-id`, the CLI never
 * crashes, exits 0 exactly when the contract allows the value and 2 otherwise, names the
 * flag when it refuses, and sends nothing when it refuses. The CLI runs in-process
 * (runMain), which affords many runs; two spawned runs check the built CLI as a process.
 * The parse functions of src/base/flag-values.ts are also checked directly with more runs still.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../../src/client/constants.js';
import { UsageError } from '../../src/base/errors.js';
import { parseInt64, parseLimit, parseStatus } from '../../src/base/flag-values.js';
import { remoteEnv } from '../helpers/harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = 'pst_props_Zr7Vn3Qw9Lk2Hs';
/** Runs of each end-to-end property: in-process a run costs a few milliseconds (spawned, ~0.3 s). */
const CLI_RUNS = 100;
/** Fixed cases run on top of the random ones, so both outcomes are always exercised. */
const examples = (...values: string[]): { examples: [string][] } => ({ examples: values.map((v) => [v] as [string]) });

let server: TestServer;
let configDir: string;

beforeAll(async () => {
  configDir = tempDir();
  server = await startTestServer((req) => {
    const id = /^\/v1\/pets\/(-?\d+)$/.exec(req.url)?.[1];
    if (req.method === 'GET' && id !== undefined)
      return { status: 200, raw: `{"id":${id},"name":"Rex","categoryId":1}` };
    if (req.method === 'POST') return { status: 201, raw: `{"id":1,${req.body.slice(1)}` };
    return { status: 200, body: [] };
  });
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});

// ---- generators --------------------------------------------------------------------

const unicodeDigits = ['٣', '۷', '५', '১', '๓', '５', '𝟓', '²', '½', 'Ⅻ'];
const tricky = [
  '',
  ' ',
  '0',
  '00',
  '1',
  '01',
  '001',
  '100',
  '0100',
  '101',
  '99',
  '-1',
  '-0',
  '+5',
  '+0',
  ' 5',
  '5 ',
  '\t5',
  '5\n',
  '\n',
  '0x10',
  '0X1F',
  '0o7',
  '0b1',
  '1e2',
  '1E2',
  '1.5',
  '1.0',
  '.5',
  '5.',
  '1_000',
  '1,000',
  'NaN',
  'Infinity',
  '-Infinity',
  'null',
  'undefined',
  'true',
  '10abc',
  'abc',
  '5n',
  '٣',
  '１０',
  '1٠',
  '−5',
  '‐5',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '-9223372036854775809',
  '09223372036854775807',
  '000000000000000000000000009223372036854775807',
  '18446744073709551616',
  '99999999999999999999999999999999999999',
  '9007199254740993',
  '-9007199254740993',
  'available',
  'Available',
  'AVAILABLE',
  'pending',
  'sold',
  ' sold',
  'sold ',
  'sold\n',
  'so ld',
  'availabl',
  'available,sold',
];
const digitRun = fc.stringMatching(/^[0-9]{1,25}$/);
const nearBounds = fc
  .oneof(
    fc.bigInt({ min: INT64_MAX - 1000n, max: INT64_MAX + 1000n }),
    fc.bigInt({ min: INT64_MIN - 1000n, max: INT64_MIN + 1000n }),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    fc.integer({ min: -5, max: 120 }).map(BigInt),
  )
  .map(String);
const affixed = fc
  .tuple(
    fc.constantFrom('', '', '', '+', '-', ' ', '0x', '0', '00', '\t', '−', ...unicodeDigits),
    fc.oneof(digitRun, nearBounds),
    fc.constantFrom('', '', '', ' ', 'e2', '.0', '.', 'n', '\n', 'abc', '_1', ...unicodeDigits),
  )
  .map(([a, b, c]) => a + b + c);

/** Strings a flag may receive: random text, tricky literals, digit runs, numbers near the int64 bounds. */
const anyValue = fc
  .oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom(...tricky),
    affixed,
    nearBounds,
    fc.constantFrom(...PET_STATUSES),
  )
  // argv cannot carry NUL.
  .filter((s) => !s.includes('\0'));

// ---- the contract's rules, written independently of src/base/flag-values.ts --------------------

function limitOk(v: string): boolean {
  return /^[0-9]+$/.test(v) && BigInt(v) >= 1n && BigInt(v) <= 100n;
}
function int64Ok(v: string): boolean {
  return /^-?[0-9]+$/.test(v) && BigInt(v) >= INT64_MIN && BigInt(v) <= INT64_MAX;
}
function statusOk(v: string): boolean {
  return (PET_STATUSES as readonly string[]).includes(v);
}

// ---- end to end ---------------------------------------------------------------------

/** runMain or runCli. */
type Runner = (args: string[], opts: { env: Record<string, string> }) => Promise<CliResult>;

async function check(
  args: string[],
  valid: boolean,
  flag: string,
  expectSent: (url: string, body: string) => void,
  runner: Runner = runMain,
): Promise<void> {
  server.requests.length = 0;
  const r = await runner(args, {
    env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: configDir }),
  });
  expect(r.signal).toBeNull(); // a spawned CLI that crashed; in-process, main() would reject
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  if (valid) {
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    expectSent(server.requests[0]!.url, server.requests[0]!.body);
  } else {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(flag);
    expect(server.requests).toHaveLength(0);
  }
}

describe('the CLI on random input: exit 0 or 2, nothing sent on 2', () => {
  it('--limit', async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, async (v) => {
        await check(['pets', 'list', `--limit=${v}`], limitOk(v), '--limit', (url) => {
          expect(url).toBe(`/v1/pets?limit=${BigInt(v)}`);
        });
      }),
      { numRuns: CLI_RUNS, ...examples('007', '100', '0', '101', '+5', '١٠') },
    );
  });

  it('--status', async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, async (v) => {
        await check(['pets', 'list', `--status=${v}`], statusOk(v), '--status', (url) => {
          expect(url).toBe(`/v1/pets?status=${v}`);
        });
      }),
      { numRuns: CLI_RUNS, ...examples('sold', 'Sold', ' pending') },
    );
  });

  it('pet ID', async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, async (v) => {
        // `--` so a leading `-` is read as the ID, not as an option.
        await check(['pets', 'get', '--json', '--', v], int64Ok(v), 'ID', (url) => {
          expect(url).toBe(`/v1/pets/${BigInt(v)}`);
        });
      }),
      {
        numRuns: CLI_RUNS,
        ...examples('-9223372036854775808', '9223372036854775807', '9223372036854775808', '0x10', ''),
      },
    );
  });

  it('--category-id', async () => {
    await fc.assert(
      fc.asyncProperty(anyValue, async (v) => {
        await check(
          ['pets', 'create', '--name', 'Rex', `--category-id=${v}`, '--json'],
          int64Ok(v),
          '--category-id',
          (_url, body) => {
            // Exact: the body carries the integer literal itself, never a rounded double.
            expect(body).toBe(`{"name":"Rex","categoryId":${BigInt(v)}}`);
          },
        );
      }),
      { numRuns: CLI_RUNS, ...examples('9007199254740993', '-1', '1e3', '-9223372036854775809') },
    );
  });
});

describe('the built CLI as a process', () => {
  // What a process adds to the runs above: the values cross argv (encoded for the OS,
  // decoded again by Node) and reach the bundled parsers in dist/, and a crash would
  // show as a signal. Two runs: an int64 above 2^53 that must arrive exact, and
  // non-ASCII digits that must be refused.
  it('sends an int64 above 2^53 exactly and refuses non-ASCII digits', async () => {
    await check(
      ['pets', 'create', '--name', 'Rex', '--category-id=9007199254740993', '--json'],
      true,
      '--category-id',
      (_url, body) => {
        expect(body).toBe('{"name":"Rex","categoryId":9007199254740993}');
      },
      runCli,
    );
    await check(['pets', 'list', '--limit=١٠'], false, '--limit', () => undefined, runCli);
  });
});

// ---- the parsers alone --------------------------------------------------------------

function outcome<T>(fn: () => T): T | UsageError {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
}

describe('src/base/flag-values.ts parsers agree with the contract on many inputs', () => {
  const runs = { numRuns: 5000 };
  it('parseLimit', () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        const r = outcome(() => parseLimit(v));
        if (limitOk(v)) expect(r).toBe(Number(BigInt(v)));
        else expect((r as UsageError).message).toContain('--limit');
      }),
      runs,
    );
  });
  it('parseStatus', () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        const r = outcome(() => parseStatus(v));
        if (statusOk(v)) expect(r).toBe(v);
        else expect((r as UsageError).message).toContain('--status');
      }),
      runs,
    );
  });
  it('parseInt64', () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        const r = outcome(() => parseInt64(v, '--category-id'));
        if (int64Ok(v)) expect(r).toBe(BigInt(v));
        else expect((r as UsageError).message).toContain('--category-id');
      }),
      runs,
    );
  });
});

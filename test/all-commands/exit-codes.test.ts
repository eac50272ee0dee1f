/**
 * Every row of the contract's exit-code table (cli-contract.md "Errors and exit codes"),
 * against the recording test server, plus the JSON form of errors with `--output json`.
 * Each refused input also checks that the server received nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/fault-server.js';
import { commandTree, type TreeCommand } from '../helpers/command-tree.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import {
  CLI_OPERATIONS,
  argvWith,
  badValuesOf,
  documentedErrors,
  isIdempotent,
  longFlag,
  successOf,
  type CliOperation,
} from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { errorReply, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_exitcodes_0123456789';
const { start: server } = fileServers();
let dir: string;
/** The command tree, read before the tables are built (they name the verbs' arguments). */
const tree: TreeCommand[] = await commandTree();

beforeAll(() => {
  dir = tempDir();
});

/** Runs the CLI against `srv` with a key in the environment. */
function run(srv: TestServer, args: string[], env: Record<string, string | undefined> = {}) {
  return runMain(args, {
    env: { ...remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }), ...env },
  });
}

const PET = { id: 5, name: 'Rex', categoryId: 1, status: 'available' };

describe.concurrent('exit codes', () => {
  it('0: success', async () => {
    const srv = await server(() => ({ status: 200, body: [PET] }));
    const r = await run(srv, ['pets', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
    expect(r.stderr).toBe('');
  });

  it('1: a 500 with an Error body shows the server message', async () => {
    const srv = await server(() => errorReply(500, 'internal_error', 'database on fire'));
    const r = await run(srv, ['pets', 'list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('database on fire');
    expect(unwrapped(r.stderr)).toContain('internal_error');
    expect(unwrapped(r.stderr)).toContain('500');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  /**
   * Answers each operation's success status with a body that breaks its schema (spec §2):
   * a record missing `name`, an id that is not an integer, the other shape (a Pet for Pets,
   * Pets for a Pet), malformed JSON; and a 500 whose body is not an Error.
   */
  function offContract(op: CliOperation): [string, CliOperation, { status: number; raw: string }, string[]][] {
    const { status, schema } = successOf(op);
    const list = schema === 'Pets';
    const at = list ? '[0].' : '';
    const shaped = (pet: string): string => (list ? `[${pet}]` : pet);
    const record = '{"id":1,"name":"a","categoryId":1}';
    return [
      [
        'a Pet missing name',
        { status, raw: shaped('{"id":1,"categoryId":1}') },
        [`${at}name: required field is missing`],
      ],
      ['a float id', { status, raw: shaped('{"id":1.5,"name":"a","categoryId":1}') }, [`${at}id: expected an int64`]],
      [
        list ? 'an object, not an array' : 'an array, not an object',
        { status, raw: list ? record : `[${record}]` },
        [`a ${schema} that does not match the API`, list ? 'expected array' : 'expected object'],
      ],
      ['malformed JSON', { status, raw: shaped('{"id":1,') }, ['with malformed JSON']],
      ['500 without an Error body', { status: 500, raw: '{"oops":true}' }, ['not an API Error']],
    ].map(([what, reply, mentioned]) => [`${op.name}: ${what as string}`, op, reply, mentioned] as never);
  }

  it.each(CLI_OPERATIONS.flatMap(offContract))('1: off-contract answer (%s)', async (_what, op, reply, mentioned) => {
    const srv = await server(() => reply);
    const r = await run(srv, op.argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: /m);
    for (const m of mentioned) expect(unwrapped(r.stderr)).toContain(m);
    // A write that cannot be sent again safely (not idempotent), answered off-contract, may
    // have been done: the message says so.
    if (op.writes && !isIdempotent(op) && reply.status !== 500) {
      expect(unwrapped(r.stderr)).toContain('may have been');
    }
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['a line break', 'pk_line_abcdef\nghijkl'],
    ['a non-ASCII character', 'pk_ключ_abcdefgh'],
    ['a space', 'pk_space abcdefgh'],
  ])('2: a PETSTORE_API_KEY with %s is refused before sending, without showing any of it', async (_what, key) => {
    const srv = await server();
    for (const extra of [[], ['--verbose']]) {
      const r = await run(srv, ['pets', 'list', ...extra], { PETSTORE_API_KEY: key });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toContain(
        'the API key from PETSTORE_API_KEY contains characters an HTTP header cannot carry',
      );
      for (const part of key.split(/[\s]/)) expect(r.stderr).not.toContain(part.slice(-6));
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    expect(srv.requests).toHaveLength(0);
  });

  it('2: auth login refuses a key with a non-ASCII character and stores nothing', async () => {
    const srv = await server();
    const configDir = tempDir();
    const r = await runMain(['auth', 'login', '--with-token', '--no-verify'], {
      env: { PETSTORE_CONFIG_DIR: configDir, PETSTORE_BASE_URL: srv.baseUrl },
      input: 'pk_ключ_abcdefgh\n',
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('contains characters an HTTP header cannot carry');
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
    expect(srv.requests).toHaveLength(0);
  });

  // Every status the spec documents for every operation, answered by a gateway's page; a
  // 401 with a JSON body that is not an Error too.
  it.each(
    CLI_OPERATIONS.flatMap((op) =>
      documentedErrors(op).flatMap(({ status, exit }) => [
        [status, 'a gateway page', exit, op.name, op.argv, { 'content-type': 'text/html' }, `<h1>HTTP ${status}</h1>`],
        ...(status === 401
          ? [[status, 'JSON', exit, op.name, op.argv, { 'content-type': 'application/json' }, '{"error":"no key"}']]
          : []),
      ]),
    ) as [number, string, number, string, string[], Record<string, string>, string][],
  )(
    '%i with a body that is not an Error (%s) still exits %i: %s',
    async (status, _form, exit, _name, args, headers, raw) => {
      const srv = await server(() => ({ status, headers, raw }));
      const r = await run(srv, args);
      expect(r.code).toBe(exit);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^error: server answered ${status} `, 'm'));
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const j = await run(srv, [...args, '--json']);
      expect(j.code).toBe(exit);
      expect(lastJson(j.stderr)).toMatchObject({ code: 'invalid_response', status });
    },
  );

  /**
   * Every input of every operation given each value its type refuses (with the flags it
   * needs), and every required input left out: exit 2 naming it, nothing sent. A flag is
   * named by its long name; an argument by its label when invalid, by commander's name
   * when missing.
   */
  function refusedInputs(op: CliOperation): [string, string[], string[]][] {
    const command = (): TreeCommand | undefined => tree.find((c) => c.words.join(' ') === op.name);
    return Object.entries(op.declaration.inputs).flatMap(([key, input]) => {
      // An input of the tool alone is no part of the verb.
      if (input.flag === null) return [];
      // A flag by its long name, an argument by its label (`pet ID`).
      const name = input.flag === undefined ? input.label : longFlag(input);
      const bad = badValuesOf(input).map(({ value, mentioned }): [string, string[], string[]] => [
        `${op.name} ${name ?? key} ${JSON.stringify(value)}`,
        argvWith(op, { key, value }),
        [...(name === undefined ? [] : [name]), ...mentioned],
      ]);
      if (input.required !== true) return bad;
      const position = Object.values(op.declaration.inputs)
        .filter((i) => i.flag === undefined)
        .indexOf(input);
      const missing: [string, string[], string[]] = [
        `${op.name} missing ${name ?? key}`,
        argvWith(op, { omit: key }),
        input.flag !== undefined
          ? [`missing ${longFlag(input)}`]
          : [`missing required argument '${command()?.arguments[position]}'`],
      ];
      return [...bad, missing];
    });
  }

  it.each([
    ...CLI_OPERATIONS.flatMap(refusedInputs),
    ...CLI_OPERATIONS.map((op): [string, string[], string[]] => [
      `${op.name}: unknown flag`,
      [...op.argv, '--bogus'],
      ["unknown option '--bogus'"],
    ]),
    ['unknown command', ['pets', 'lsit'], ["unknown command 'lsit'", 'list']],
    ['unknown top-level command', ['bogus'], ["unknown command 'bogus'"]],
    ['--output yaml', ['pets', 'list', '--output', 'yaml'], ['--output', '"yaml"', 'table, tsv, csv, json, ndjson']],
    ['--env bogus', ['--env', 'bogus', 'pets', 'list'], ['--env', '"bogus"']],
  ] as [string, string[], string[]][])('2: %s, nothing sent', async (_what, args, mentioned) => {
    const srv = await server();
    const r = await run(srv, args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    for (const m of mentioned) expect(unwrapped(r.stderr)).toContain(m);
    expect(srv.requests).toHaveLength(0);
  });

  it('0: a missing command word shows the help on stdout (gh and kubectl do), with --json too', async () => {
    const srv = await server();
    const [plain, json] = await Promise.all([run(srv, ['pets']), run(srv, ['--json', 'pets'])]);
    for (const r of [plain, json]) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('Usage: petstore pets');
    }
    expect(srv.requests).toHaveLength(0);
  });

  // Each setting missing in turn: its own exit code, what is missing and how to set it; nothing sent.
  it.each([
    [
      '2: missing base URL names the environment and how to set one',
      'PETSTORE_BASE_URL',
      2,
      ['no base URL for production', 'petstore config set production.baseUrl'],
    ],
    [
      '4: no API key, with the login hint; nothing sent',
      'PETSTORE_API_KEY',
      4,
      ['no API key for production', 'petstore auth login'],
    ],
  ])('%s', async (_name, unset, code, said) => {
    const srv = await server();
    const r = await run(srv, ['pets', 'list'], { [unset]: undefined });
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(said[0]);
    expect(unwrapped(r.stderr)).toContain(said[1]);
    expect(srv.requests).toHaveLength(0);
  });

  it.each([
    ['--base-url', ['--base-url', 'http://192.0.2.10/v1', 'pets', 'list'], {}],
    ['PETSTORE_BASE_URL', ['pets', 'list'], { PETSTORE_BASE_URL: 'http://api.example.com/v1' }],
  ])('2: plain http to a non-loopback host from %s', async (from, args, env) => {
    const srv = await server();
    const r = await run(srv, args, env);
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(from);
    expect(unwrapped(r.stderr)).toContain('plain http://');
    expect(r.stdout).toBe('');
  });

  it('3: a closed port fails fast', async () => {
    const port = await closedPort();
    const r = await runMain(['pets', 'list'], {
      env: remoteEnv(`http://127.0.0.1:${port}/v1`, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(`127.0.0.1:${port}`);
    expect(unwrapped(r.stderr)).toContain('connection refused');
    // Fast: two short backoffs (under 1 s together), not the 30 s default deadline; the rest
    // of the bound is room for a loaded machine.
    expect(r.ms).toBeLessThan(20_000);
  });

  it('4: a 401 shows the server message and the login hint', async () => {
    const srv = await server(() => ({
      ...errorReply(401, 'unauthorized', 'key revoked yesterday'),
      headers: { 'www-authenticate': 'Bearer' },
    }));
    const r = await run(srv, ['pets', 'list']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('key revoked yesterday');
    expect(unwrapped(r.stderr)).toContain('petstore auth login');
    expect(srv.requests).toHaveLength(1);
  });

  it('5: a 404 shows the server message and how to list', async () => {
    const srv = await server(() => errorReply(404, 'not_found', 'pet 77 not found'));
    const r = await run(srv, ['pets', 'get', '77']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('pet 77 not found');
    expect(unwrapped(r.stderr)).toContain('petstore pets list');
  });

  it('5: a 404 for /pets itself points at the base URL, not at `pets list` (every operation at /pets)', async () => {
    const srv = await server(() => errorReply(404, 'not_found', 'no such path: /pets'));
    const atPets = CLI_OPERATIONS.filter((op) => op.request.path === '/pets');
    expect(atPets.length).toBeGreaterThan(0);
    for (const { argv: args } of atPets) {
      const r = await run(srv, args);
      expect(r.code).toBe(5);
      expect(unwrapped(r.stderr)).toContain('no such path: /pets');
      expect(unwrapped(r.stderr)).toContain(
        `check that ${srv.baseUrl} ends with the version segment /v1; it comes from PETSTORE_BASE_URL.`,
      );
      expect(r.stderr).not.toContain('List the pets that exist');
    }
  });

  it('6: a 400 shows the server message', async () => {
    const srv = await server(() => errorReply(400, 'invalid_request', 'name is too long for this store'));
    const r = await run(srv, ['pets', 'create', '--name', 'X'.repeat(50), '--category-id', '1']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('name is too long for this store');
    expect(unwrapped(r.stderr)).toContain('invalid_request');
    expect(srv.requests).toHaveLength(1);
  });

  it.each(
    CLI_OPERATIONS.flatMap((op) =>
      documentedErrors(op).map(({ status, exit }) => [op.name, status, exit, op] as const),
    ),
  )('%s: a %i with an Error body exits %i, showing the server message and code', async (_name, status, exit, op) => {
    const srv = await server(() => errorReply(status, `code_${status}`, `the store refused with ${status}`));
    const r = await run(srv, op.argv);
    expect(r.code).toBe(exit);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain(`the store refused with ${status}`);
    expect(unwrapped(r.stderr)).toContain(`code_${status}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Sent once: a refusal is not retried.
    expect(srv.requests).toHaveLength(1);
  });
});

describe.concurrent('errors as JSON with --output json / ndjson', () => {
  /** The stderr line holding the error object; any other lines must be warnings. */
  function errorObject(stderr: string): unknown {
    const lines = stderr.trimEnd().split('\n');
    // Every line is a JSON object: warnings first, the error last.
    for (const l of lines.slice(0, -1)) expect(JSON.parse(l)).toMatchObject({ level: 'warning' });
    return JSON.parse(lines[lines.length - 1] ?? '');
  }

  it.each(
    CLI_OPERATIONS.flatMap((op) =>
      documentedErrors(op).map(({ status, exit }) => [op.name, status, exit, op] as const),
    ),
  )('%s: a %i → the server code, the status, stdout empty (exit %i)', async (_name, status, exit, op) => {
    const srv = await server(() => errorReply(status, `code_${status}`, `refused with ${status}`));
    for (const format of [['--json'], ['--output', 'ndjson']]) {
      const r = await run(srv, [...format, ...op.argv]);
      expect(r.code).toBe(exit);
      expect(r.stdout).toBe('');
      expect(errorObject(r.stderr)).toEqual({ code: `code_${status}`, message: `refused with ${status}`, status });
      // Only a deprecated operation warns: any other's stderr is the error alone.
      if (!op.deprecated) expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('usage → code usage, status 0, one line', async () => {
    const srv = await server();
    const r = await run(srv, ['pets', 'list', '--limit', '0', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const obj = JSON.parse(r.stderr) as Record<string, unknown>;
    expect(obj).toMatchObject({ code: 'usage', status: 0 });
    expect(obj.message).toContain('--limit');
    expect(srv.requests).toHaveLength(0);
  });

  it('unknown command → code usage', async () => {
    const srv = await server();
    const r = await run(srv, ['--json', 'pets', 'lsit']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'usage', status: 0 });
  });

  it('off-contract answer → code invalid_response with the HTTP status', async () => {
    const srv = await server(() => ({ status: 200, body: [{ id: 1 }] }));
    const r = await run(srv, ['pets', 'list', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('no key → code auth, status 0', async () => {
    const srv = await server();
    const r = await run(srv, ['pets', 'list', '--json'], { PETSTORE_API_KEY: undefined });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'auth', status: 0 });
  });

  it('closed port → code network, status 0', async () => {
    const port = await closedPort();
    const r = await runMain(['pets', 'list', '-o', 'json'], {
      env: remoteEnv(`http://127.0.0.1:${port}/v1`, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'network', status: 0 });
  });
});

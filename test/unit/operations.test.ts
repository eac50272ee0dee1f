/**
 * The operations' declarations (`src/operations/pets.ts`) against what they declare: every
 * operation of the spec is declared; each declared verb is a command of the CLI that calls
 * the operation as its own, writes as declared and takes the declared flags with their
 * help; each declared tool is what a real `petstore mcp` lists (the built CLI, driven by
 * the official MCP client), in declaration order with annotations drawn from `writes`, the
 * writes only with `--allow-writes`; and the argv and MCP arguments test/helpers/operations.ts
 * draws from the declarations run each operation validly, sending the declared request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationOf } from '../../src/client/constants.js';
import { PET_OPERATIONS } from '../../src/operations/pets.js';
import { API_SPEC } from '../fixtures/api-spec.js';
import { commandTree, type TreeCommand } from '../helpers/command-tree.js';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { mcpEnv, serveMcp, type Served } from '../helpers/mcp-client.js';
import { CLI_OPERATIONS, OPERATIONS, expectedTools, longFlag, operationStore } from '../helpers/operations.js';
import { runMain } from '../helpers/run-main.js';

const KEY = 'pk_test_operations_0123456789';

/**
 * The operations declared without a front door, by choice: an operation added without a
 * verb or a tool is listed here, so the choice is seen in review.
 */
const WITHOUT_VERB: string[] = [];
const WITHOUT_TOOL: string[] = [];

const { start } = fileServers();
const servers: Served[] = [];
let tree: TreeCommand[];

beforeAll(async () => {
  tree = await commandTree();
});

afterAll(() => {
  for (const s of servers) s.transport.child.kill('SIGKILL');
});

describe('the declarations cover the spec', () => {
  it('every operation of the spec is declared once, with the spec’s method and path in client/constants.ts', () => {
    const ids = PET_OPERATIONS.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(API_SPEC.operations.map((op) => op.operationId).sort());
    for (const spec of API_SPEC.operations) {
      const op = PET_OPERATIONS.find((o) => o.id === spec.operationId)!;
      expect(operationOf(op.id), op.id).toMatchObject({
        method: spec.method,
        path: spec.path,
        success: spec.success.status,
        removal: spec.deprecated?.removal,
      });
      // A write changes the store: no GET among them, and every other method of the spec writes.
      expect(op.writes, op.id).toBe(spec.method !== 'GET');
    }
  });

  it('the operations without a verb or a tool are the declared choices', () => {
    expect(OPERATIONS.filter((op) => op.verb === null).map((op) => op.id)).toEqual(WITHOUT_VERB);
    expect(OPERATIONS.filter((op) => op.tool === null).map((op) => op.id)).toEqual(WITHOUT_TOOL);
  });

  it('tool names are unique, every required input declares an example, every argument a label', () => {
    const names = OPERATIONS.flatMap((op) => (op.tool === null ? [] : [op.tool.name]));
    expect(new Set(names).size).toBe(names.length);
    for (const op of OPERATIONS) {
      for (const [key, input] of Object.entries(op.declaration.inputs)) {
        if (input.required === true || input.flag === undefined) expect(input.example, `${op.id}.${key}`).toBeDefined();
        // An argument is named in refusals by its label.
        if (input.flag === undefined) expect(input.label, `${op.id}.${key}`).toBeDefined();
      }
    }
  });
});

describe('each declared verb is a command of the CLI', () => {
  it.each(CLI_OPERATIONS.map((op) => [op.name, op] as const))(
    '%s: calls the operation as its own, writes as declared, takes the declared flags and arguments',
    (_, op) => {
      const cmd = tree.find((c) => c.words.join(' ') === op.verb.join(' '));
      expect(cmd, `no command ${op.name}`).toBeDefined();
      expect(cmd!.subcommands).toEqual([]);
      expect(cmd!.traits.operations[0]).toBe(op.id);
      expect(cmd!.traits.writes).toBe(op.writes);
      expect(cmd!.traits.environment).toBe('request');
      const inputs = Object.values(op.declaration.inputs);
      for (const input of inputs.filter((i) => typeof i.flag === 'string')) {
        expect(cmd!.options, longFlag(input)).toContainEqual({ flags: input.flag, description: input.help.cli });
      }
      // The inputs without a flag are its positional arguments, in order.
      expect(cmd!.arguments).toHaveLength(inputs.filter((i) => i.flag === undefined).length);
      // The required flags go together (help --json's requiredTogether), when there are several.
      const required = inputs.filter((i) => i.required === true && typeof i.flag === 'string').map(longFlag);
      if (required.length > 1) expect(cmd!.traits.together).toContainEqual(required);
    },
  );

  it.each(CLI_OPERATIONS.map((op) => [op.argv.join(' '), op] as const))(
    '%s (drawn from the declaration) sends the declared request once, and succeeds',
    async (_, op) => {
      const srv = await start(operationStore());
      const r = await runMain(op.argv, { env: remoteEnv(srv.baseUrl, KEY) });
      expect(r.code, r.stderr).toBe(0);
      expect(srv.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${op.request.method} ${op.request.url}`]);
      expect(srv.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(srv.requests[0]?.body).toBe(op.request.body ?? '');
    },
  );
});

describe('each declared tool is what petstore mcp lists (the built CLI, the official client)', () => {
  it.each([
    ['without --allow-writes: the reads', [] as string[], false],
    ['with --allow-writes: every tool', ['--allow-writes'], true],
  ] as const)('%s, in declaration order, annotations drawn from writes', async (_, flags, allowWrites) => {
    const served = await serveMcp(['--env', 'sandbox', 'mcp', ...flags], mcpEnv());
    servers.push(served);
    const { tools } = await served.client.listTools();
    const expected = expectedTools(allowWrites);
    expect(expected.length).toBeGreaterThan(0);
    expect(tools.map((t) => ({ name: t.name, title: t.title, annotations: t.annotations }))).toEqual(
      expected.map(({ name, title, annotations }) => ({ name, title, annotations })),
    );
    for (const tool of tools) {
      const op = OPERATIONS.find((o) => o.tool?.name === tool.name)!;
      const taken = Object.values(op.declaration.inputs).filter((i) => i.argument !== undefined);
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toEqual(taken.map((i) => i.argument));
      expect([...(tool.inputSchema.required ?? [])].sort(), tool.name).toEqual(
        taken
          .filter((i) => i.required === true)
          .map((i) => i.argument!)
          .sort(),
      );
    }
    await served.transport.close();
    expect(await served.transport.exit).toEqual({ code: 0, signal: null });
  });

  it.each(OPERATIONS.filter((op) => op.tool !== null).map((op) => [op.tool!.name, op] as const))(
    '%s with the declared example arguments sends the declared request once',
    async (_, op) => {
      const srv = await start(operationStore());
      const served = await serveMcp(
        ['--yes', 'mcp', '--allow-writes'],
        mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: KEY }),
      );
      servers.push(served);
      const r = await served.client.callTool({ name: op.tool!.name, arguments: op.arguments! });
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(srv.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${op.request.method} ${op.request.url}`]);
      if (op.request.body !== undefined) expect(srv.requests[0]?.body).toBe(op.request.body);
      await served.transport.close();
      expect(await served.transport.exit).toEqual({ code: 0, signal: null });
    },
  );
});

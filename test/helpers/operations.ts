/**
 * The pet operations as the every-operation tests run them, drawn from their declarations
 * (`src/operations/pets.ts`, `PET_OPERATIONS`) and the spec's constants
 * (`src/client/constants.ts`): for each, the argv that runs it validly, the MCP arguments
 * that call it validly, the request it sends, what a conforming server answers, and the
 * tool `tools/list` offers for it. A declaration added to `PET_OPERATIONS` is covered by
 * every table built from `OPERATIONS` without a test being edited.
 */
import { operationOf, type OperationId } from '../../src/client/constants.js';
import { requiredFlags } from '../../src/commands/options.js';
import type { Input } from '../../src/operations/inputs.js';
import { PET_OPERATIONS, type OperationDeclaration } from '../../src/operations/pets.js';
import { API_SPEC, specOperation } from '../fixtures/api-spec.js';
import type { Handler, Reply } from './test-server.js';

/** What `tools/list` says of an operation's tool besides its schemas and description. */
export interface ToolEntry {
  name: string;
  title: string;
  /** Reads: read-only and idempotent; writes: neither, nor destructive; both open-world. */
  annotations: Record<string, boolean>;
  /** Whether it is offered only with `--allow-writes` (a write). */
  gated: boolean;
}

/** The request an operation's valid run sends. */
interface ExpectedRequest {
  method: string;
  /** The path template with its parameters filled with their inputs' examples (`/pets/7`). */
  path: string;
  /** The request target a test server records: the base path, then `path` (`/v1/pets/7`). */
  url: string;
  /**
   * The JSON body of a method that carries one (POST, PUT, PATCH): the required inputs that
   * are not path parameters, by key, in declaration order, int64 and integer as numbers.
   */
  body: string | undefined;
}

/** One declared operation, as the tests run it. */
export interface OperationCase {
  id: OperationId;
  declaration: OperationDeclaration;
  writes: boolean;
  /** Whether the spec deprecates it (a removal date): its runs warn on stderr. */
  deprecated: boolean;
  /** Its name in test titles: the CLI verb (`pets get`), else the tool's name, else the id. */
  name: string;
  /** The CLI verb's words (`['pets', 'get']`), or null: the CLI does not offer it. */
  verb: string[] | null;
  /**
   * The argv that runs it validly, or null without a verb: the verb's words, each
   * positional input's example, each required flag with its example.
   */
  argv: string[] | null;
  /** The MCP arguments that call it validly (each required argument's example), or null without a tool. */
  arguments: Record<string, string> | null;
  request: ExpectedRequest;
  tool: ToolEntry | null;
}

/** The annotations of a tool that reads, and of one that writes (src/commands/mcp/tools.ts). */
const READ_ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: true };
const WRITE_ANNOTATIONS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** Methods whose request carries a body. */
const WITH_BODY = ['POST', 'PUT', 'PATCH'];

/** Methods sent again after a failure the server may have seen (RFC 9110 §9.2.2). */
const IDEMPOTENT = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'];

/**
 * The example of `op`'s input `key`.
 * @throws Error when it declares none (a required or positional input must).
 */
function exampleOf(op: OperationDeclaration, key: string): string {
  const example = op.inputs[key]?.example;
  if (example === undefined) throw new Error(`${op.id}: input ${key} declares no example`);
  return example;
}

/** `op`'s inputs by key, those the CLI takes as positional arguments (no flag) first. */
function positionalKeys(op: OperationDeclaration): string[] {
  return Object.entries(op.inputs).flatMap(([key, input]) => (input.flag === undefined ? [key] : []));
}

/** The required inputs of `op` that have a flag, in declaration order (those `requiredFlags` names). */
function requiredFlagKeys(op: OperationDeclaration): string[] {
  return Object.entries(op.inputs).flatMap(([key, input]) =>
    input.required === true && typeof input.flag === 'string' ? [key] : [],
  );
}

/** The long name of an input's flag (`--category-id`). */
export function longFlag(input: Input): string {
  if (typeof input.flag !== 'string') throw new Error('an input without a flag has no long name');
  return /--[\w-]+/.exec(input.flag)?.[0] ?? input.flag;
}

function argvOf(op: OperationDeclaration): string[] | null {
  if (op.verb === null) return null;
  const flags = requiredFlags(op);
  const keys = requiredFlagKeys(op);
  if (flags.length !== keys.length) throw new Error(`${op.id}: requiredFlags disagrees with the inputs`);
  return [
    ...op.verb.split(' '),
    ...positionalKeys(op).map((key) => exampleOf(op, key)),
    ...keys.flatMap((key, i) => (op.inputs[key]?.type === 'boolean' ? [flags[i]!] : [flags[i]!, exampleOf(op, key)])),
  ];
}

function argumentsOf(op: OperationDeclaration): Record<string, string> | null {
  if (op.tool === null) return null;
  return Object.fromEntries(
    Object.entries(op.inputs).flatMap(([key, input]) =>
      input.argument !== undefined && input.required === true ? [[input.argument, exampleOf(op, key)]] : [],
    ),
  );
}

function requestOf(op: OperationDeclaration): ExpectedRequest {
  const { method, path: template } = operationOf(op.id);
  const params: string[] = [];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return exampleOf(op, name);
  });
  let body: string | undefined;
  if (WITH_BODY.includes(method)) {
    const fields = Object.entries(op.inputs).flatMap(([key, input]) =>
      input.required === true && !params.includes(key)
        ? [
            `${JSON.stringify(key)}:${
              input.type === 'int64' || input.type === 'integer'
                ? BigInt(exampleOf(op, key)).toString()
                : JSON.stringify(exampleOf(op, key))
            }`,
          ]
        : [],
    );
    body = `{${fields.join(',')}}`;
  }
  return { method, path, url: `${API_SPEC.basePath}${path}`, body };
}

function caseOf(op: OperationDeclaration): OperationCase {
  return {
    id: op.id,
    declaration: op,
    writes: op.writes,
    deprecated: operationOf(op.id).removal !== undefined,
    name: op.verb ?? op.tool?.name ?? op.id,
    verb: op.verb?.split(' ') ?? null,
    argv: argvOf(op),
    arguments: argumentsOf(op),
    request: requestOf(op),
    tool:
      op.tool === null
        ? null
        : {
            name: op.tool.name,
            title: op.tool.title,
            annotations: op.writes ? WRITE_ANNOTATIONS : READ_ANNOTATIONS,
            gated: op.writes,
          },
  };
}

/** Every declared operation, in declaration order. */
export const OPERATIONS: readonly OperationCase[] = PET_OPERATIONS.map(caseOf);

/** An operation the CLI offers: its verb and argv are there. */
export type CliOperation = OperationCase & { verb: string[]; argv: string[] };

/** The operations the CLI offers (a verb), in declaration order. */
export const CLI_OPERATIONS: readonly CliOperation[] = OPERATIONS.filter(
  (op): op is CliOperation => op.verb !== null && op.argv !== null,
);

/** The operations the CLI offers that write. */
export const CLI_WRITES = CLI_OPERATIONS.filter((op) => op.writes);

/** The operations the CLI offers that only read. */
export const CLI_READS = CLI_OPERATIONS.filter((op) => !op.writes);

/** Whether `op`'s method only reads (GET, HEAD: RFC 9110 §9.2.1): a redirect of it is followed. */
export function isSafe(op: OperationCase): boolean {
  return ['GET', 'HEAD'].includes(op.request.method);
}

/** Whether `op`'s method is sent again after a failure the server may have seen (idempotent). */
export function isIdempotent(op: OperationCase): boolean {
  return IDEMPOTENT.includes(op.request.method);
}

/** The tools `tools/list` offers, in declaration order: the reads, and the writes too with `--allow-writes`. */
export function expectedTools(allowWrites: boolean): ToolEntry[] {
  return OPERATIONS.flatMap((op) => (op.tool !== null && (allowWrites || !op.tool.gated) ? [op.tool] : []));
}

/** A Pet record (spec §2). */
export interface PetRecord {
  id: number;
  name: string;
  categoryId: number;
  status?: string;
}

/** A pet made of `op`'s examples: its id the example of a `petId` input, its name and category those of the inputs so named. */
export function examplePet(op: OperationCase, id = 21118): PetRecord {
  const inputs = op.declaration.inputs;
  return {
    id: inputs.petId?.example === undefined ? id : Number(inputs.petId.example),
    name: inputs.name?.example ?? 'Rex',
    categoryId: Number(inputs.categoryId?.example ?? '1'),
    status: 'available',
  };
}

/** What the spec says `op` answers on success (§4): its status, and the schema of its body. */
export function successOf(op: OperationCase): { status: number; schema: string } {
  return specOperation(op.id).success;
}

/** A conforming success answer of `op` holding `pet` (one Pet, or a list of it). */
export function successReply(op: OperationCase, pet: PetRecord = examplePet(op)): Reply {
  const { status, schema } = successOf(op);
  return { status, body: schema === 'Pets' ? [pet] : pet };
}

/** The declared operation a recorded request is (by method and path template), or undefined. */
export function operationAt(method: string, url: string): OperationCase | undefined {
  const path = new URL(url, 'http://x').pathname;
  return OPERATIONS.find((op) => {
    const { method: m, path: template } = operationOf(op.id);
    const pattern = new RegExp(`^${API_SPEC.basePath}${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    return m === method && pattern.test(path);
  });
}

/**
 * A store that answers every declared operation as the spec says it succeeds, with `pet`
 * (by default the operation's example pet); anything else is a 404 Error.
 */
export function operationStore(pet?: (op: OperationCase) => PetRecord): Handler {
  return (req) => {
    const op = operationAt(req.method, req.url);
    if (op === undefined) return { status: 404, body: { code: 'not_found', message: 'no such route', status: 404 } };
    return successReply(op, pet?.(op) ?? examplePet(op));
  };
}

/**
 * The flags input `key` of `op` is taken only with: its declared `needs`, or the boolean
 * flag its CLI help opens with (`with --via-list: …`), the CLI's own rule for the inputs of
 * `pets get --via-list`, which declare no `needs`.
 */
export function neededFlags(op: OperationCase, key: string): string[] {
  const inputs = op.declaration.inputs;
  const needs = inputs[key]?.needs?.input;
  const needed = needs === undefined ? undefined : inputs[needs];
  if (needed !== undefined) {
    return needed.type === 'boolean' ? [longFlag(needed)] : [longFlag(needed), exampleOf(op.declaration, needs!)];
  }
  const opening = /^with (--[\w-]+):/.exec(inputs[key]?.help.cli ?? '')?.[1];
  return opening === undefined ? [] : [opening];
}

/**
 * A run of `op` built from its declaration with one change: input `omit` left out, or input
 * `key` given `value` (with the flags it needs). Flags are written `--flag=value`, and the
 * positional arguments follow `--`, so a value starting with `-` is taken as a value.
 */
export function argvWith(op: CliOperation, change: { omit: string } | { key: string; value: string }): string[] {
  const inputs = op.declaration.inputs;
  const given = (key: string): string | undefined =>
    'omit' in change
      ? change.omit === key
        ? undefined
        : exampleOf(op.declaration, key)
      : change.key === key
        ? change.value
        : exampleOf(op.declaration, key);
  const flags = requiredFlagKeys(op.declaration).flatMap((key) => {
    const value = given(key);
    return value === undefined ? [] : [`${longFlag(inputs[key]!)}=${value}`];
  });
  if ('key' in change && inputs[change.key]?.flag !== undefined && inputs[change.key]?.required !== true) {
    flags.push(...neededFlags(op, change.key), `${longFlag(inputs[change.key]!)}=${change.value}`);
  }
  const positionals = positionalKeys(op.declaration).flatMap((key) => {
    const value = given(key);
    return value === undefined ? [] : [value];
  });
  return [...op.verb, ...flags, ...(positionals.length > 0 ? ['--', ...positionals] : [])];
}

/** A value `input` refuses, and what the refusal names besides the input (the value quoted, what is allowed). */
export interface BadValue {
  value: string;
  mentioned: string[];
}

/** Values each input refuses by its type, and what the refusal says of each. */
export function badValuesOf(input: Input): BadValue[] {
  switch (input.type) {
    case 'integer': {
      const { min, max } = input.range ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
      const allowed = `from ${min} to ${max}`;
      return [
        { value: String(min - 1), mentioned: [`"${min - 1}"`, allowed] },
        { value: String(max + 1), mentioned: [`"${max + 1}"`, allowed] },
        { value: '1e2', mentioned: ['"1e2"', allowed] },
      ];
    }
    case 'int64':
      return [
        { value: '1.5', mentioned: ['"1.5"', 'int64'] },
        { value: 'abc', mentioned: ['"abc"', 'int64'] },
        { value: '9223372036854775808', mentioned: ['"9223372036854775808"', '9223372036854775807'] },
        { value: '-9223372036854775809', mentioned: ['"-9223372036854775809"', '-9223372036854775808'] },
      ];
    case 'enum':
      return ['Sold', 'x'].map((value) => ({ value, mentioned: [`"${value}"`, (input.choices ?? []).join(', ')] }));
    default:
      // A string goes to the server as given (cli-contract.md: `--name`); it judges it.
      return [];
  }
}

/**
 * The exit code of an API Error answer by its HTTP status (docs/errors.md): 401 is 4, 404
 * is 5, 400 is 6, any other 1.
 */
function exitOfStatus(status: number): number {
  return ({ 400: 6, 401: 4, 404: 5 } as Record<number, number>)[status] ?? 1;
}

/** The error statuses the spec documents for `op` (§4, §7), each with the exit code it gives. */
export function documentedErrors(op: OperationCase): { status: number; exit: number }[] {
  return specOperation(op.id).errors.map((status) => ({ status, exit: exitOfStatus(status) }));
}

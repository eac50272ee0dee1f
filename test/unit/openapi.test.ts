/**
 * `openapi.yaml` states the API spec (../shared/spec/petstore-api.md), and the zod schemas
 * the client and the sandbox validate with (src/api/schemas.ts, src/api/constants.ts) state
 * the same thing: enum values, required fields, int64 formats, the `limit` bounds and default.
 * The zod side is turned into an OpenAPI 3.0 schema with `z.toJSONSchema`, and both sides are
 * reduced to the facts the spec fixes before they are compared.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  GET_PET_REMOVAL_DATE,
  INT64_MAX,
  INT64_MIN,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  PET_STATUSES,
} from '../../src/api/constants.js';
import {
  ErrorSchema,
  Int64Schema,
  NewPetSchema,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
} from '../../src/api/schemas.js';
import { loadOpenApi, type SchemaObject } from '../contract/prism.js';

const doc = loadOpenApi();

/** Follows a local `$ref` (`#/a/b`) in the document. */
function deref(node: unknown): unknown {
  let current = node;
  for (let hops = 0; hops < 10; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string') return current;
    expect(ref.startsWith('#/'), ref).toBe(true);
    let target: unknown = doc;
    for (const part of ref.slice(2).split('/')) target = (target as Record<string, unknown> | undefined)?.[part];
    expect(target, `${ref} resolves`).toBeDefined();
    current = target;
  }
  throw new Error('$ref chain too long');
}

/** Every `$ref` anywhere in `node`. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refs(n, out);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** The facts of a schema the spec fixes, with refs, allOf and the int64 union resolved. */
interface Shape {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Shape>;
  items?: Shape;
  /** Whether fields beyond `properties` are refused (the spec does not say; both sides must leave it open). */
  closed?: boolean;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

const SAFE = Number.MAX_SAFE_INTEGER;

function shape(node: unknown): Shape {
  const s = deref(node) as SchemaObject;
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map(shape);
    const merged: Shape = { type: 'object', properties: {}, required: [] };
    for (const p of parts) {
      expect(p.type).toBe('object');
      Object.assign(merged.properties!, p.properties);
      merged.required!.push(...(p.required ?? []));
      if (p.closed === true) merged.closed = true;
    }
    merged.required!.sort();
    return merged;
  }
  if (Array.isArray(s.anyOf)) {
    // zod's int64 is `int | bigint in int64 range`; as JSON both are one integer type.
    const parts = s.anyOf.map(shape);
    if (parts.every((p) => p.type === 'integer') && parts.some((p) => p.format === 'int64')) {
      return { type: 'integer', format: 'int64' };
    }
    throw new Error(`unexpected anyOf: ${JSON.stringify(s)}`);
  }
  const out: Shape = {};
  if (typeof s.type === 'string') out.type = s.type;
  if (typeof s.format === 'string') out.format = s.format;
  if (Array.isArray(s.enum)) out.enum = [...(s.enum as unknown[])];
  if (s.default !== undefined) out.default = s.default;
  // zod states a JS number's safe range on every integer; that is representation, not contract.
  if (typeof s.minimum === 'number' && s.minimum !== -SAFE) out.minimum = s.minimum;
  if (typeof s.maximum === 'number' && s.maximum !== SAFE) out.maximum = s.maximum;
  if (out.type === 'object' || s.properties !== undefined) {
    out.type = 'object';
    out.properties = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, shape(v)]));
    out.required = [...((s.required ?? []) as string[])].sort();
    if (s.additionalProperties === false) out.closed = true;
  }
  if (s.items !== undefined) out.items = shape(s.items);
  return out;
}

/** The zod schema as an OpenAPI 3.0 schema object; a bigint branch is an int64 integer. */
function fromZod(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    unrepresentable: (ctx) => {
      // The bigint branch (values beyond 2^53) is bounded to the int64 range; see the test of
      // Int64Schema's range below.
      if (ctx.zodSchema._zod.def.type !== 'bigint') return 'throw';
      return { type: 'integer', format: 'int64' };
    },
  });
}

const component = (name: string) => doc.components.schemas[name];
const operation = (path: string, method: string) => doc.paths[path]?.[method];

describe('openapi.yaml is a well-formed OpenAPI 3.0.3 document of the spec', () => {
  test('version, servers and the bearer scheme', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers.length).toBe(2);
    for (const server of doc.servers) {
      // Every `{variable}` has a default, and the base path ends in the version segment (spec §9).
      const url = server.url.replace(/\{(\w+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? 'MISSING');
      expect(new URL(url).pathname).toBe('/v1');
    }
    expect(doc.servers.map((s) => s.description)).toEqual(['Production', 'Staging']);
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }) as unknown,
    });
  });

  test('every $ref resolves', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(5);
    for (const ref of all) deref({ $ref: ref });
  });

  test('the three operations with their responses, and nothing else', () => {
    const ops: Record<string, string> = {};
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) ops[`${method.toUpperCase()} ${path}`] = op.operationId;
    }
    expect(ops).toEqual({ 'GET /pets': 'listPets', 'POST /pets': 'createPet', 'GET /pets/{petId}': 'getPet' });

    const responses = (path: string, method: string) => Object.keys(operation(path, method)!.responses).sort();
    expect(responses('/pets', 'get')).toEqual(['200', '401']);
    expect(responses('/pets', 'post')).toEqual(['201', '400', '401']);
    expect(responses('/pets/{petId}', 'get')).toEqual(['200', '401', '404']);

    const body = (path: string, method: string, status: string) => {
      const r = deref(operation(path, method)!.responses[status]) as { content: Record<string, { schema: unknown }> };
      expect(Object.keys(r.content)).toEqual(['application/json']);
      return r.content['application/json']!.schema;
    };
    expect(body('/pets', 'get', '200')).toEqual({ $ref: '#/components/schemas/Pets' });
    expect(body('/pets', 'post', '201')).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(body('/pets/{petId}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Pet' });
    for (const [path, method, status] of [
      ['/pets', 'get', '401'],
      ['/pets', 'post', '400'],
      ['/pets', 'post', '401'],
      ['/pets/{petId}', 'get', '401'],
      ['/pets/{petId}', 'get', '404'],
    ] as const) {
      expect(body(path, method, status), `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
    }

    const create = operation('/pets', 'post')!;
    expect(create.requestBody?.required).toBe(true);
    expect(Object.keys(create.requestBody!.content)).toEqual(['application/json']);
    expect(create.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/NewPet' });
  });

  test('getPet is deprecated, naming the removal date and the replacement', () => {
    const get = operation('/pets/{petId}', 'get')!;
    expect(get.deprecated).toBe(true);
    expect(get.description).toContain(GET_PET_REMOVAL_DATE);
    expect(get.description).toMatch(/GET \/pets` with the\s+`status` filter/);
    expect(operation('/pets', 'get')!.deprecated).toBeUndefined();
    expect(operation('/pets', 'post')!.deprecated).toBeUndefined();
  });

  test('the gaps of the spec stay open: no pagination parameter or header, no code values', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/cursor/i);
    expect(text).not.toMatch(/"headers"/);
    expect(text).not.toMatch(/"additionalProperties"/);
    expect((component('Error')!.properties as Record<string, SchemaObject>).code!.enum).toBeUndefined();
    expect((component('NewPet')!.properties as Record<string, SchemaObject>).status!.default).toBeUndefined();
  });

  test('every schema has an example, and the zod schemas accept each one', () => {
    const zodOf: Record<string, z.ZodType> = {
      PetStatus: PetStatusSchema,
      NewPet: NewPetSchema,
      Pet: PetSchema,
      Pets: PetsSchema,
      Error: ErrorSchema,
    };
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(zodOf).sort());
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(schema.example, name).toBeDefined();
      expect(zodOf[name]!.safeParse(schema.example).success, name).toBe(true);
    }
    const errorExamples = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => Object.values(op.responses))
      .map(
        (r) => (deref(r) as { content?: Record<string, { example?: unknown }> }).content?.['application/json']?.example,
      )
      .filter((e) => e !== undefined);
    expect(errorExamples.length).toBe(5);
    for (const e of errorExamples) expect(ErrorSchema.safeParse(e).success, JSON.stringify(e)).toBe(true);
  });
});

describe('the zod schemas and openapi.yaml agree', () => {
  test.each([
    ['PetStatus', PetStatusSchema],
    ['NewPet', NewPetSchema],
    ['Pet', PetSchema],
    ['Pets', PetsSchema],
    ['Error', ErrorSchema],
  ] as const)('%s', (name, schema) => {
    const fromDoc = shape({ $ref: `#/components/schemas/${name}` });
    expect(shape(fromZod(schema))).toEqual(fromDoc);
  });

  test('the facts the spec fixes are in the compared shapes', () => {
    expect(shape({ $ref: '#/components/schemas/PetStatus' }).enum).toEqual([...PET_STATUSES]);
    const pet = shape({ $ref: '#/components/schemas/Pet' });
    expect(pet.required).toEqual(['categoryId', 'id', 'name']);
    expect(pet.properties?.id).toEqual({ type: 'integer', format: 'int64' });
    expect(pet.properties?.categoryId).toEqual({ type: 'integer', format: 'int64' });
    expect(shape({ $ref: '#/components/schemas/NewPet' }).required).toEqual(['categoryId', 'name']);
    expect(shape({ $ref: '#/components/schemas/Error' }).required).toEqual(['code', 'message', 'status']);
  });

  test('listPets parameters: limit bounds and default, status is PetStatus', () => {
    const params = operation('/pets', 'get')!.parameters!;
    expect(params.map((p) => [p.name, p.in, p.required ?? false])).toEqual([
      ['limit', 'query', false],
      ['status', 'query', false],
    ]);
    const limit = shape(params[0]!.schema);
    expect(limit).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
      default: LIMIT_DEFAULT,
    });
    expect(LIMIT_MAX).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(shape(params[1]!.schema)).toEqual(shape(fromZod(PetStatusSchema)));
  });

  test('int64 in zod is the range `format: int64` names, exactly', () => {
    for (const ok of [INT64_MIN, INT64_MAX, -(2n ** 53n) - 1n, 2n ** 53n + 1n, 0]) {
      expect(Int64Schema.safeParse(ok).success, String(ok)).toBe(true);
    }
    for (const bad of [INT64_MIN - 1n, INT64_MAX + 1n, 1.5, '1']) {
      expect(Int64Schema.safeParse(bad).success, String(bad)).toBe(false);
    }
  });

  test('getPet petId is a required int64 path parameter', () => {
    const params = operation('/pets/{petId}', 'get')!.parameters!;
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual([['petId', 'path', true]]);
    expect(shape(params[0]!.schema)).toEqual({ type: 'integer', format: 'int64' });
  });
});

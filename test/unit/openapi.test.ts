/**
 * `openapi.yaml` states the API spec (../shared/spec/petstore-api.md), and the zod schemas
 * the client and the sandbox validate with (src/client/schemas.ts, src/client/constants.ts) state
 * the same thing: enum values, required fields, int64 formats, the `limit` bounds and default.
 * The zod side is turned into an OpenAPI 3.0 schema with `z.toJSONSchema`, and both sides are
 * reduced to the facts the spec fixes before they are compared. What the spec says is read
 * from one fixture (test/fixtures/api-spec.ts): the document has exactly its operations, with
 * their methods, paths, statuses, bodies and deprecation.
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
} from '../../src/client/constants.js';
import {
  ErrorSchema,
  Int64Schema,
  NewPetSchema,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
} from '../../src/client/schemas.js';
import { loadOpenApi, type OpenApiDocument, type SchemaObject } from '../contract/prism.js';
import { API_SPEC, specOperation, type SpecOperation } from '../fixtures/api-spec.js';

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
/** The document's operation of a fixture operation (methods are lower case in OpenAPI). */
const operationOf = (op: SpecOperation) => operation(op.path, op.method.toLowerCase());
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The facts of an operation that the spec fixes and the document must state, keyed `METHOD /path`. */
interface OperationFacts {
  operationId: string;
  summary: string | undefined;
  statuses: string[];
  requestBody: string | undefined;
  deprecated: boolean;
}

/** Every operation of `document`, reduced to its facts. */
function documentOperations(document: OpenApiDocument): Record<string, OperationFacts> {
  const out: Record<string, OperationFacts> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const ref = op.requestBody?.content['application/json']?.schema.$ref;
      out[`${method.toUpperCase()} ${path}`] = {
        operationId: op.operationId,
        summary: (op as { summary?: string }).summary,
        statuses: Object.keys(op.responses).sort(),
        requestBody: typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined,
        deprecated: op.deprecated === true,
      };
    }
  }
  return out;
}

/** Every operation of the fixture, reduced to the same facts. */
function specOperations(): Record<string, OperationFacts> {
  return Object.fromEntries(
    API_SPEC.operations.map((op) => [
      `${op.method} ${op.path}`,
      {
        operationId: op.operationId,
        summary: op.summary,
        statuses: [op.success.status, ...op.errors].map(String).sort(),
        requestBody: op.requestBody,
        deprecated: op.deprecated !== undefined,
      },
    ]),
  );
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

describe('openapi.yaml is a well-formed OpenAPI 3.0.3 document of the spec', () => {
  test('version, servers and the bearer scheme', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe(API_SPEC.version);
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers.length).toBe(API_SPEC.environments.length);
    for (const server of doc.servers) {
      // Every `{variable}` has a default, and the base path ends in the version segment (spec §9).
      const url = server.url.replace(/\{(\w+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? 'MISSING');
      expect(new URL(url).pathname).toBe(API_SPEC.basePath);
    }
    expect(doc.servers.map((s) => s.description)).toEqual(API_SPEC.environments.map(capitalized));
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: API_SPEC.auth.scheme }) as unknown,
    });
  });

  test('every $ref resolves', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(5);
    for (const ref of all) deref({ $ref: ref });
  });

  test("the fixture's operations, each with the same method, path, id, statuses, body and deprecation, and no other", () => {
    expect(documentOperations(doc)).toEqual(specOperations());
  });

  test('the comparison sees an operation on one side only', () => {
    // Guards the check above: an operation added to the document alone, or an operation
    // of the document that the fixture lost, makes the two sides differ.
    const more = structuredClone(doc);
    more.paths['/pets/{petId}']!.put = {
      ...structuredClone(operation('/pets/{petId}', 'get')!),
      operationId: 'updatePet',
    };
    expect(documentOperations(more)).not.toEqual(specOperations());
    const fewer = structuredClone(doc);
    delete fewer.paths['/pets']!.post;
    expect(documentOperations(fewer)).not.toEqual(specOperations());
  });

  test('the operations with their responses, and nothing else', () => {
    const ops: Record<string, string> = {};
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) ops[`${method.toUpperCase()} ${path}`] = op.operationId;
    }
    expect(ops).toEqual(
      Object.fromEntries(API_SPEC.operations.map((op) => [`${op.method} ${op.path}`, op.operationId])),
    );

    const responses = (op: SpecOperation) => Object.keys(operationOf(op)!.responses).sort();
    for (const op of API_SPEC.operations) {
      expect(responses(op), op.operationId).toEqual([op.success.status, ...op.errors].map(String).sort());
    }

    const body = (op: SpecOperation, status: number) => {
      const r = deref(operationOf(op)!.responses[String(status)]) as { content: Record<string, { schema: unknown }> };
      expect(Object.keys(r.content)).toEqual(['application/json']);
      return r.content['application/json']!.schema;
    };
    for (const op of API_SPEC.operations) {
      expect(body(op, op.success.status), `${op.operationId} ${op.success.status}`).toEqual(
        schemaRef(op.success.schema),
      );
      // Spec §7: every error answer carries the Error body.
      for (const status of op.errors) {
        expect(body(op, status), `${op.method} ${op.path} ${status}`).toEqual(schemaRef('Error'));
      }
    }

    for (const op of API_SPEC.operations) {
      const requestBody = operationOf(op)!.requestBody;
      if (op.requestBody === undefined) {
        expect(requestBody, op.operationId).toBeUndefined();
        continue;
      }
      expect(requestBody?.required).toBe(true);
      expect(Object.keys(requestBody!.content)).toEqual(['application/json']);
      expect(requestBody!.content['application/json']!.schema).toEqual(schemaRef(op.requestBody));
    }
  });

  test('a deprecated operation is marked, naming the removal date and the replacement; no other is', () => {
    const deprecated = API_SPEC.operations.filter((op) => op.deprecated !== undefined);
    expect(deprecated.map((op) => op.operationId)).toEqual(['getPet']);
    expect(GET_PET_REMOVAL_DATE).toBe(specOperation('getPet').deprecated?.removal);
    for (const op of API_SPEC.operations) {
      const inDoc = operationOf(op)!;
      if (op.deprecated === undefined) {
        expect(inDoc.deprecated, op.operationId).toBeUndefined();
        continue;
      }
      const { removal, replacement } = op.deprecated;
      expect(inDoc.deprecated).toBe(true);
      expect(inDoc.description).toContain(removal);
      // "Use `GET /pets` with the `status` filter", wrapped where the YAML folds it.
      const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const named = `${quoted(`${replacement.method} ${replacement.path}`)}\` with the\\s+\`${quoted(replacement.filter)}\` filter`;
      expect(inDoc.description).toMatch(new RegExp(named));
    }
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
    // One example per error answer the spec documents.
    expect(errorExamples.length).toBe(API_SPEC.operations.flatMap((op) => op.errors).length);
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
    expect(shape(schemaRef('PetStatus')).enum).toEqual([...PET_STATUSES]);
    expect([...PET_STATUSES]).toEqual(API_SPEC.petStatuses);
    const pet = shape(schemaRef('Pet'));
    expect(pet.required).toEqual(API_SPEC.required.Pet);
    for (const field of API_SPEC.int64Fields.Pet) {
      expect(pet.properties?.[field], field).toEqual({ type: 'integer', format: 'int64' });
    }
    const newPet = shape(schemaRef('NewPet'));
    expect(newPet.required).toEqual(API_SPEC.required.NewPet);
    for (const field of API_SPEC.int64Fields.NewPet) {
      expect(newPet.properties?.[field], field).toEqual({ type: 'integer', format: 'int64' });
    }
    const error = shape(schemaRef('Error'));
    expect(error.required).toEqual(API_SPEC.required.Error);
    expect(Object.keys(error.properties ?? {})).toEqual(API_SPEC.errorFields);
  });

  test('each operation has the parameters of the spec, with their schemas', () => {
    for (const op of API_SPEC.operations) {
      const params = operationOf(op)!.parameters ?? [];
      expect(
        params.map((p) => [p.name, p.in, p.required ?? false]),
        op.operationId,
      ).toEqual(op.parameters.map((p) => [p.name, p.in, p.required]));
      for (const [i, p] of op.parameters.entries()) {
        const inDoc = shape(params[i]!.schema);
        if ('schema' in p) {
          expect(inDoc, p.name).toEqual(shape(schemaRef(p.schema)));
          continue;
        }
        // The document may state more than the spec (`limit`'s int32 format); never less.
        expect(inDoc, p.name).toMatchObject({
          type: p.type,
          ...(p.format === undefined ? {} : { format: p.format }),
          ...(p.minimum === undefined ? {} : { minimum: p.minimum }),
          ...(p.maximum === undefined ? {} : { maximum: p.maximum }),
          ...(p.default === undefined ? {} : { default: p.default }),
        });
      }
    }
  });

  test('listPets parameters: limit bounds and default, status is PetStatus', () => {
    const spec = specOperation('listPets').parameters;
    const params = operation('/pets', 'get')!.parameters!;
    expect(params.map((p) => [p.name, p.in, p.required ?? false])).toEqual(spec.map((p) => [p.name, p.in, p.required]));
    const specLimit = spec.find((p) => p.name === 'limit');
    expect(specLimit).toMatchObject({ minimum: LIMIT_MIN, maximum: LIMIT_MAX, default: LIMIT_DEFAULT });
    const limit = shape(params[0]!.schema);
    expect(limit).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
      default: LIMIT_DEFAULT,
    });
    expect(LIMIT_MAX).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(spec[1]).toMatchObject({ schema: 'PetStatus' });
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
    const getPet = specOperation('getPet');
    const params = operationOf(getPet)!.parameters!;
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual(
      getPet.parameters.map((p) => [p.name, p.in, p.required]),
    );
    expect(getPet.parameters).toEqual([
      { name: 'petId', in: 'path', required: true, type: 'integer', format: 'int64' },
    ]);
    expect(shape(params[0]!.schema)).toEqual({ type: 'integer', format: 'int64' });
  });
});

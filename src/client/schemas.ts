/**
 * The API spec in code (../shared/spec/petstore-api.md §2): zod schemas of PetStatus,
 * NewPet, Pet, Pets and Error. int64 fields accept a safe-integer `number` or, above
 * 2^53, a `bigint` (see `src/base/json.ts`), so ids are exact end to end.
 *
 * Objects are loose: a field the spec does not name is kept, not refused, so a server
 * that adds a field does not break scripts (the required fields are still enforced).
 */
import { z } from 'zod';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from './constants.js';

/** An int64 value (spec §2 "integer, format int64"): number when safe, bigint otherwise. */
export const Int64Schema = z.union([z.int(), z.bigint().min(INT64_MIN).max(INT64_MAX)]);

/** PetStatus, spec §2. */
export const PetStatusSchema = z.enum(PET_STATUSES);

/** NewPet, the body of `createPet` (spec §2, §4.2). */
export const NewPetSchema = z.looseObject({
  name: z.string(),
  categoryId: Int64Schema,
  status: PetStatusSchema.optional(),
});
/** NewPet. */
export type NewPet = z.infer<typeof NewPetSchema>;

/** Pet, a record as returned (spec §2): NewPet plus `id`. */
export const PetSchema = z.looseObject({
  id: Int64Schema,
  name: z.string(),
  categoryId: Int64Schema,
  status: PetStatusSchema.optional(),
});
/** Pet. */
export type Pet = z.infer<typeof PetSchema>;

/** Pets, a JSON array of Pet (spec §2). */
export const PetsSchema = z.array(PetSchema);

/** Error, the body of every error response (spec §2, §7). */
export const ErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  status: z.int(),
});

/**
 * Describes the first problem of a failed parse in one line, naming the field path,
 * e.g. `[3].categoryId: expected int64, got string`.
 */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid value';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  let what = issue.message;
  if (issue.code === 'invalid_union' || (issue.code === 'invalid_type' && issue.expected === 'int')) {
    what = 'expected an int64 integer';
  } else if ((issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'bigint') {
    // A bigint only reaches the int64 bounds check when it is beyond 2^53; name the range.
    what = `expected an int64 integer (${INT64_MIN}..${INT64_MAX})`;
  } else if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    what = 'required field is missing';
  }
  return path === '' ? what : `${path}: ${what}`;
}

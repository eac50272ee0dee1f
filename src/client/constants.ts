/**
 * Constants of the API spec that the start-up path needs without loading zod
 * (../shared/spec/petstore-api.md).
 */

/** PetStatus values, spec §2 "PetStatus". */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

/** A PetStatus value. */
export type PetStatus = (typeof PET_STATUSES)[number];

/**
 * The fields of a Pet (spec §2), in the order petstore prints them: what `--fields`,
 * `--json FIELDS` and `--sort` name (cli-contract.md "Output").
 */
export const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;

/** A field of a Pet. */
export type PetField = (typeof PET_FIELDS)[number];

/** Smallest `limit` of `listPets` (spec §4.1, §8). */
export const LIMIT_MIN = 1;
/** Largest `limit` of `listPets`: the most pets one page holds (spec §4.1, §8). */
export const LIMIT_MAX = 100;
/** The server's `limit` when none is sent (spec §4.1). */
export const LIMIT_DEFAULT = 20;

/** Default `--max-pages` (`pets list --all`, `pets get --via-list`): 1000 pages of 100 = 100 000 pets. */
export const MAX_PAGES_DEFAULT = 1000;
/** Largest `--max-pages`. */
export const MAX_PAGES_LIMIT = 10_000;

/** Smallest int64 (spec §2, "integer, format int64"). */
export const INT64_MIN = -(2n ** 63n);
/** Largest int64 (spec §2, "integer, format int64"). */
export const INT64_MAX = 2n ** 63n - 1n;

/** Removal date of the deprecated `getPet`, spec §4.3 and §9. */
export const GET_PET_REMOVAL_DATE = '2030-12-05';
/**
 * The API's operations by operation id (spec §4): method, path under the base URL (an
 * RFC 6570 template), and for a deprecated one its removal date (spec §9). What commands
 * declare they call (`commands/traits.ts`) and what their help says.
 */
const OPERATIONS = {
  listPets: { method: 'GET', path: '/pets', success: 200 },
  createPet: { method: 'POST', path: '/pets', success: 201 },
  getPet: { method: 'GET', path: '/pets/{petId}', success: 200, removal: GET_PET_REMOVAL_DATE },
} as const;

/** An operation id of the spec (§4). */
export type OperationId = keyof typeof OPERATIONS;

/** An operation as help names it: `listPets: GET /pets`. */
export function operationLabel(id: OperationId): string {
  const { method, path } = OPERATIONS[id];
  return `${id}: ${method} ${path}`;
}

/**
 * An operation's method, path template, success status and, for a deprecated one, its
 * removal date (the `Sunset` of RFC 8594), as spec §4 and §9 give them.
 */
export function operationOf(id: OperationId): {
  method: string;
  path: string;
  success: number;
  removal: string | undefined;
} {
  const op: { method: string; path: string; success: number; removal?: string } = OPERATIONS[id];
  return { method: op.method, path: op.path, success: op.success, removal: op.removal };
}

/** The replacement the spec names for `getPet` (spec §4.3). */
export const GET_PET_REPLACEMENT = 'petstore pets list --status STATUS';

/**
 * An int64 as the JSON number type of the schemas (`Int64` in `schemas.ts`): a `number`
 * when it is a safe integer, a `bigint` beyond 2^53, so it prints exactly.
 */
export function toJsonInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/**
 * `petstore pets create --name NAME --category-id ID [--status S]`: `createPet`
 * (spec §4.2). Prints the created pet, including its `id`.
 */
import type { NewPet, Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseInt64, parseStatus } from '../../input.js';
import { printPets } from './list.js';

/** Typed options of `pets create`. */
export interface CreateOptions {
  pet: NewPet;
}

/** An int64 as the JSON number type of the schemas: number when safe, bigint beyond 2^53. */
export function toJsonInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/**
 * Turns commander's strings into a NewPet.
 * @throws UsageError when `--name` or `--category-id` is missing or a value is invalid.
 */
export function parseCreateOptions(opts: Record<string, unknown>): CreateOptions {
  if (typeof opts.name !== 'string') {
    throw new UsageError('missing --name: every pet needs a name', 'Example: petstore pets create --name Rex --category-id 1');
  }
  if (typeof opts.categoryId !== 'string') {
    throw new UsageError('missing --category-id: every pet belongs to a category (an int64 id)', 'Example: petstore pets create --name Rex --category-id 1');
  }
  const pet: NewPet = { name: opts.name, categoryId: toJsonInt(parseInt64(opts.categoryId, '--category-id')) };
  if (typeof opts.status === 'string') pet.status = parseStatus(opts.status);
  return { pet };
}

/** Prints one pet: an object in json, one line in ndjson/tsv, a one-row table on a TTY. */
export async function printPet(ctx: Context, pet: Pet): Promise<void> {
  if (ctx.renderMode() === 'json') {
    const { renderJson } = await import('../../render/pets.js');
    ctx.io.stdout.write(renderJson(pet));
    return;
  }
  await printPets(ctx, [pet]);
}

/**
 * Creates one pet. Sent once: a POST is never repeated (cli-contract.md "Network behaviour").
 * @throws UsageError (nothing sent), ApiError (400 → exit 6), NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runCreate(ctx: Context, options: CreateOptions): Promise<number> {
  const { client } = await ctx.connect();
  const { data } = await client.createPet(options.pet);
  await printPet(ctx, data);
  return 0;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, opts: Record<string, unknown>): Promise<number> {
  return runCreate(ctx, parseCreateOptions(opts));
}

/**
 * `petstore pets get ID`: `getPet` (spec §4.3), deprecated and removed on 2030-12-05. The
 * deprecation warning is printed from the command's metadata in `program.ts`.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseInt64 } from '../../input.js';
import { printPet } from './create.js';

/** Typed options of `pets get`. */
export interface GetOptions {
  petId: bigint;
}

/**
 * Parses the ID argument.
 * @throws UsageError when it is missing or not an int64.
 */
export function parseGetOptions(args: string[]): GetOptions {
  const raw = args[0];
  if (raw === undefined) throw new UsageError('missing pet ID');
  return { petId: parseInt64(raw, 'pet ID') };
}

/**
 * Fetches one pet.
 * @throws ApiError (404 → exit 5), NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runGet(ctx: Context, options: GetOptions): Promise<number> {
  const { client } = await ctx.connect();
  const { data } = await client.getPet(options.petId);
  await printPet(ctx, data);
  return 0;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, _opts: Record<string, unknown>, args: string[]): Promise<number> {
  return runGet(ctx, parseGetOptions(args));
}

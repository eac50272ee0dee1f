/**
 * `pets get ID`: one pet, found as `pet-lookup.ts` finds it (getPet while it exists, with
 * its one deprecation warning; the replacement the spec names, a walk of listPets, with
 * `--via-list`, after getPet's removal or Sunset, and under `--fail-on-deprecated`), printed
 * in every output format alike.
 */
import type { PetStatus } from '../../../client/constants.js';
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { findPet } from '../../../operations/pet-lookup.js';
import { writePet } from '../../../render/output.js';

export { describeGetDeprecation, WARNING_COLUMNS } from '../../../operations/pet-lookup.js';

/** Typed options of `pets get`. */
export interface GetOptions {
  petId: bigint;
  /** `--via-list`: find the pet through listPets, never calling getPet. */
  viaList: boolean;
  /** With the list path: search only pets of this status (`--status`). */
  status?: PetStatus;
  /** With the list path: the most pages fetched (`--max-pages`, 1..10000, default 1000). */
  maxPages: number;
}

/**
 * Prints one pet (`findPet`).
 * @throws what `findPet` throws: ApiError (404 → exit 5), AuthError, NetworkError,
 * TimeoutError, InvalidResponseError; CliError `not_in_list` or `not_in_first_page` (exit
 * 5) and `max_pages` (exit 1).
 */
export async function runGet(ctx: Context, options: GetOptions): Promise<number> {
  if (options.viaList) await ctx.connect();
  const output = options.viaList ? await ctx.recordOutput() : undefined;
  const pet = await findPet(ctx, options);
  await writePet(output ?? (await ctx.recordOutput()), pet);
  return ExitCode.ok;
}

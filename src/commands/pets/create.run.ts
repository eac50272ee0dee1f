/** `pets create --name NAME --category-id ID [--status S]`: one `createPet` (spec §4.2). */
import type { NewPet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import { ExitCode } from '../../errors.js';
import { writePet } from '../../render/output.js';

/**
 * Creates one pet and prints it, including its `id`. Sent once: a POST is never repeated
 * once it may have reached the server (cli-contract.md "Network behaviour").
 * @throws ApiError (400 → exit 6), AuthError, NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runCreate(ctx: Context, pet: NewPet): Promise<number> {
  const { client } = await ctx.connect();
  const { data, headers } = await client.createPet(pet);
  new DeprecationReporter((m) => ctx.warn(m), ctx.now).observeAndFlush(headers, 'createPet (POST /pets)');
  await writePet(ctx.io, ctx.output, data);
  return ExitCode.ok;
}

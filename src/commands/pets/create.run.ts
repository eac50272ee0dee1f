/** `pets create --name NAME --category-id ID [--status S]`: one `createPet` (spec §4.2). */
import type { NewPet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import { CliError, ExitCode, OutputError } from '../../errors.js';
import { writePet } from '../../render/output.js';

/**
 * Creates one pet and prints it, including its `id`. Sent once: a POST is never repeated
 * once it may have reached the server (cli-contract.md "Network behaviour").
 * @throws ApiError (400 → exit 6), AuthError, NetworkError, TimeoutError, InvalidResponseError;
 * CliError `output` (exit 1) naming the created pet when stdout cannot take it (a write
 * command accounts for what it did, even to a closed pipe).
 */
export async function runCreate(ctx: Context, pet: NewPet): Promise<number> {
  const { client } = await ctx.connect();
  const { data, headers } = await client.createPet(pet);
  new DeprecationReporter(
    (m) => ctx.warn(m),
    () => ctx.now(),
  ).observeAndFlush(headers, 'createPet (POST /pets)');
  try {
    await writePet(ctx.io, ctx.output, data);
  } catch (err) {
    if (!(err instanceof OutputError)) throw err;
    throw new CliError(`pet ${String(data.id)} was created, but it could not be printed: ${err.message}`, {
      exitCode: ExitCode.failure,
      code: 'output',
      hint: `It exists: \`petstore pets get ${String(data.id)}\` shows it. Do not create it again.`,
      details: { created: { id: String(data.id) } },
    });
  }
  return ExitCode.ok;
}

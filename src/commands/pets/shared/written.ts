/**
 * Printing the pet a write operation returned (cli-contract.md "Network behaviour": a
 * write command accounts for what it did, even to a closed stdout). When the pet cannot be
 * printed, the error says it was written all the same, names it, and says not to send it
 * again: a retry by hand would create (or change) it twice.
 */
import type { Pet } from '../../../client/schemas.js';
import type { Context } from '../../../context.js';
import { CliError, ExitCode, OutputError } from '../../../base/errors.js';
import { writePet } from '../../../render/output.js';

/** What the operation did to the pet, in the past tense (`created`), and what not to do again. */
export interface WriteOutcome {
  did: 'created' | 'updated';
  /** The last words of the hint, e.g. `Do not create it again.` */
  dontRepeat: string;
}

/**
 * Prints `pet` in the run's output mode (with its `--fields` and `--jq`).
 * @throws CliError `output` (exit 1) naming the pet (`details.<did>.id`) and how to see it,
 * when stdout cannot take it; anything else `writePet` throws.
 */
export async function printWrittenPet(
  ctx: Pick<Context, 'recordOutput' | 'suggest'>,
  pet: Pet,
  outcome: WriteOutcome,
): Promise<void> {
  try {
    await writePet(await ctx.recordOutput(), pet);
  } catch (err) {
    if (!(err instanceof OutputError)) throw err;
    const id = String(pet.id);
    throw new CliError(`pet ${id} was ${outcome.did}, but it could not be printed: ${err.message}`, {
      exitCode: ExitCode.failure,
      code: 'output',
      hint: `It exists: \`${ctx.suggest(`pets get ${id} --via-list`)}\` shows it. ${outcome.dontRepeat}`,
      details: { [outcome.did]: { id } },
    });
  }
}

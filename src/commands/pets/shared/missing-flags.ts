/**
 * The voice of a pets verb whose required flags are missing (cli-contract.md "Commands":
 * "every missing flag named in one error; on a terminal the missing values are asked for
 * instead"): whether asking is possible, and the one error that names them all otherwise.
 */
import type { Context } from '../../../context.js';
import { UsageError } from '../../../base/errors.js';

/**
 * Whether missing values may be asked for: stdin and stderr (where prompts are drawn) are
 * terminals, and `PETSTORE_NO_PROMPT` is not on. Never on a pipe: a prompt would read the
 * piped data and write escape codes into it.
 */
export function canPrompt(ctx: Context): boolean {
  return ctx.io.stdinIsTTY && ctx.io.stderrIsTTY && ctx.env.get('PETSTORE_NO_PROMPT') !== true;
}

/**
 * The error for required flags that are missing and cannot be asked for (exit 2, nothing
 * sent): `missing --name and --category-id: WHY`, then an example command of this run
 * (`suggest` is `ctx.suggest`: with its `--env`) and the line saying a terminal asks.
 * @param why what the missing flags are for, e.g. `every pet needs a name`.
 * @param example the command words of a complete call, e.g. `pets create --name Rex --category-id 1`.
 */
function missingFlagsError(
  missing: readonly string[],
  why: string,
  example: string,
  suggest: (words: string) => string = (words) => `petstore ${words}`,
): UsageError {
  return new UsageError(
    `missing ${missing.join(' and ')}: ${why}`,
    `Example: \`${suggest(example)}\`\nOn a terminal, petstore asks for what is missing.`,
  );
}

/**
 * The error for a pet's required flags (`missingFlags` of a PetDraft) when they cannot be
 * asked for: every one of them in one message, with why a pet needs it (exit 2, nothing
 * sent), spec §2 (NewPet: `name` and `categoryId` required).
 * @param example the command words of a complete call, e.g. `pets create --name Rex --category-id 1`.
 */
export function missingPetFlagsError(
  missing: readonly ('--name' | '--category-id')[],
  example: string,
  suggest: (words: string) => string,
): UsageError {
  const why =
    missing.length === 2
      ? 'every pet needs a name and a category (an int64 id)'
      : missing[0] === '--name'
        ? 'every pet needs a name'
        : 'every pet belongs to a category (an int64 id)';
  return missingFlagsError(missing, why, example, suggest);
}

/**
 * The prompt for what a pet draft lacks, on a terminal (gh's `?` questions): the name,
 * the category id and the status, each checked as its flag is.
 */
import { PET_STATUSES, toJsonInt, type PetStatus } from '../../../client/constants.js';
import type { NewPet } from '../../../client/schemas.js';
import type { Context } from '../../../context.js';
import { CliError, InterruptedError } from '../../../base/errors.js';
import { parseInt64 } from '../../../base/flag-values.js';
import { toNewPet, type PetDraft } from './draft.js';

/** The `status` choice that leaves the field out of the request. */
const NO_STATUS = '';

/**
 * Asks on stderr for the name, category id and status the draft lacks (the status only
 * when something else was missing too: it is optional). Answers are checked as the flags
 * are: a name cannot be blank (and is trimmed), a category id is an int64.
 * @throws InterruptedError on Ctrl-C (or the run's abort).
 */
export async function askForPet(ctx: Context, draft: PetDraft): Promise<NewPet> {
  const [{ default: input }, { default: select }] = await Promise.all([
    import('@inquirer/input'),
    import('@inquirer/select'),
  ]);
  const c = ctx.io.colorErr;
  const context = { ...ctx.io.prompt(), signal: ctx.signal };
  // No green tick after an answer: nothing has been checked by the server yet (gh's `?`).
  const theme = { prefix: { idle: c.cyan('?'), done: c.cyan('?') } };
  try {
    // A typed name is taken as people type it: the spaces around it dropped (they would
    // misalign a table and make the pet hard to find), a blank one asked again. `--name`
    // is sent as given: the server judges it (cli-contract.md "Input rules").
    const name =
      draft.name ??
      (await input(
        {
          message: 'Name:',
          theme,
          validate: (v) => (v.trim() === '' ? 'The name cannot be empty.' : true),
        },
        context,
      ).then((v) => v.trim()));
    const categoryId =
      draft.categoryId ??
      (await input({ message: 'Category id:', theme, validate: (v) => checkCategoryId(v.trim()) }, context).then((v) =>
        toJsonInt(parseInt64(v.trim(), '--category-id')),
      ));
    const status =
      draft.status ??
      (await select<PetStatus | typeof NO_STATUS>(
        {
          message: 'Status:',
          theme,
          choices: [
            ...PET_STATUSES.map((s) => ({ value: s })),
            { value: NO_STATUS, name: 'none (left to the server)' },
          ],
        },
        context,
      ));
    return toNewPet({ name, categoryId, ...(status === NO_STATUS ? {} : { status }) });
  } catch (err) {
    // Ctrl-C at the prompt (ExitPromptError) or the run's abort signal (AbortPromptError).
    const kind = err instanceof Error ? err.name : undefined;
    if (kind === 'ExitPromptError' || kind === 'AbortPromptError' || ctx.signal.aborted) throw new InterruptedError();
    throw err;
  }
}

/**
 * `true` when `--category-id` would take the value (an int64, `parseInt64`), or a short
 * message: the flag's own names the int64 bounds, too wide for a prompt line.
 */
function checkCategoryId(value: string): true | string {
  try {
    parseInt64(value, 'category id');
    return true;
  } catch (err) {
    if (err instanceof CliError) return 'The category id is a whole number (an int64), e.g. 1.';
    throw err;
  }
}

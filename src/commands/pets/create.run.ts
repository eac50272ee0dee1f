/**
 * `pets create --name NAME --category-id ID [--status S]`: one `createPet` (spec §4.2).
 * Values the flags leave out are asked for on a terminal (`canPrompt`), checked as the
 * flags are; the declaration has already refused them when no prompt is possible.
 */
import { PET_STATUSES, toJsonInt, type PetStatus } from '../../api/constants.js';
import type { NewPet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, InterruptedError } from '../../errors.js';
import { mayHaveReachedServer } from '../../http/failures.js';
import { parseInt64 } from '../../input.js';
import { shellQuote } from '../../suggest.js';
import { missingFlags, type PetDraft } from './create.draft.js';
import { watchDeprecation } from './shared/deprecation.js';
import { printWrittenPet } from './shared/written.js';

/**
 * Creates one pet and prints it, including its `id`. Sent once: a POST is never repeated
 * once it may have reached the server (cli-contract.md "Network behaviour"). When the
 * draft lacks a name or a category id, the connection is checked first (a missing base
 * URL or key fails before anything is typed) and then the missing values are asked for.
 * @throws ApiError (400 → exit 6), AuthError, NetworkError, TimeoutError (saying the pet
 * may have been created when the request may have reached the server), InvalidResponseError; InterruptedError (exit 130, nothing sent) on Ctrl-C at a prompt;
 * CliError `output` (exit 1) naming the created pet when stdout cannot take it (a write
 * command accounts for what it did, even to a closed pipe).
 */
export async function runCreate(ctx: Context, draft: PetDraft): Promise<number> {
  const { client } = await ctx.connect();
  const pet = missingFlags(draft).length === 0 ? toNewPet(draft) : await askForPet(ctx, draft);
  let created: Awaited<ReturnType<typeof client.createPet>>;
  try {
    created = await client.createPet(pet);
  } catch (err) {
    throw mayHaveBeenCreated(ctx, err, pet.name);
  }
  const { data, headers } = created;
  watchDeprecation(ctx, 'createPet (POST /pets)')(headers);
  await printWrittenPet(ctx, data, { did: 'created', dontRepeat: 'Do not create it again.' });
  return ExitCode.ok;
}

/**
 * A failure after which the pet may exist (the connection reset once the request was sent,
 * the deadline passed waiting for the answer: `mayHaveReachedServer`) says so, with the
 * command that finds it by name, so nobody creates it twice unawares; its exit code and
 * code stay the failure's (3, `network` or `timeout`). Any other failure is returned as is.
 */
function mayHaveBeenCreated(ctx: Context, err: unknown, name: string): unknown {
  if (!(err instanceof CliError) || !mayHaveReachedServer(err)) return err;
  const find = ctx.suggest(`pets list --all --jq ${shellQuote(`.[] | select(.name == ${JSON.stringify(name)})`)}`);
  return new CliError(`${err.message}; the pet may have been created`, {
    exitCode: err.exitCode,
    code: err.code,
    status: err.status,
    hint: `Check with \`${find}\` before creating it again: a second create would make a second pet.`,
    cause: err,
  });
}

function toNewPet(draft: PetDraft): NewPet {
  if (draft.name === undefined || draft.categoryId === undefined) throw new Error('incomplete pet draft');
  const pet: NewPet = { name: draft.name, categoryId: draft.categoryId };
  if (draft.status !== undefined) pet.status = draft.status;
  return pet;
}

/** The `status` choice that leaves the field out of the request. */
const NO_STATUS = '';

/**
 * Asks on stderr for the name, category id and status the draft lacks (the status only
 * when something else was missing too: it is optional). Answers are checked as the flags
 * are: a name cannot be empty, a category id is an int64.
 * @throws InterruptedError on Ctrl-C (or the run's abort).
 */
async function askForPet(ctx: Context, draft: PetDraft): Promise<NewPet> {
  const [{ default: input }, { default: select }] = await Promise.all([
    import('@inquirer/input'),
    import('@inquirer/select'),
  ]);
  const c = ctx.io.colorErr;
  const context = { ...ctx.io.prompt(), signal: ctx.signal };
  // No green tick after an answer: nothing has been checked by the server yet (gh's `?`).
  const theme = { prefix: { idle: c.cyan('?'), done: c.cyan('?') } };
  try {
    const name =
      draft.name ??
      (await input(
        {
          message: 'Name:',
          theme,
          validate: (v) => (v.trim() === '' ? 'The name cannot be empty.' : true),
        },
        context,
      ));
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

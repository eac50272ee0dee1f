/**
 * `pets create --name NAME --category-id ID [--status S]`: one `createPet` (spec §4.2).
 * Values the flags leave out are asked for on a terminal (`canPrompt`), checked as the
 * flags are; the declaration has already refused them when no prompt is possible. An
 * environment with `confirmWrites` is asked before the pet is sent (`confirmWrite`).
 */
import type { Context, SettingsContext } from '../../../context.js';
import { confirmWrite } from '../../../confirm-writes.js';
import { KEY_REFERENCE, checkDryRunFlags, dryRunCurl, dryRunJson, type DryRunForm } from '../../../dry-run.js';
import { CliError, ExitCode } from '../../../errors.js';
import { mayHaveReachedServer } from '../../../http/failures.js';
import { describeTarget } from '../../../render/target.js';
import { stringifyJson } from '../../../json.js';
import { shellQuote } from '../../../suggest.js';
import { missingFlags, toNewPet, type PetDraft } from '../shared/draft.js';
import { askForPet } from '../shared/prompt.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';
import { printWrittenPet } from '../shared/written.js';

/**
 * Creates one pet and prints it, including its `id`; on a terminal, a summary line on
 * stderr names it and where it was created (cli-contract.md "Environments"). Sent once: a
 * POST is never repeated once it may have reached the server (cli-contract.md "Network
 * behaviour"). When the draft lacks a name or a category id, the connection is checked
 * first (a missing base URL or key fails before anything is typed) and then the missing
 * values are asked for.
 * @throws ApiError (400 → exit 6), AuthError, NetworkError, TimeoutError (saying the pet
 * may have been created when the request may have reached the server), InvalidResponseError; InterruptedError (exit 130, nothing sent) on Ctrl-C at a prompt;
 * CliError `not_confirmed` (exit 2, nothing sent) when the write is not confirmed;
 * with `dryRun`, the request is printed instead (`dry-run.ts`), unconfirmed and unsent,
 * and `dryRunCurl`'s UsageError for the sandbox;
 * CliError `output` (exit 1) naming the created pet when stdout cannot take it (a write
 * command accounts for what it did, even to a closed pipe).
 */
export async function runCreate(ctx: Context, draft: PetDraft, dryRun?: DryRunForm): Promise<number> {
  checkDryRunFlags(dryRun, ctx.globals);
  const { client, connection } = await ctx.connect();
  const pet = missingFlags(draft).length === 0 ? toNewPet(draft) : await askForPet(ctx, draft);
  if (dryRun !== undefined) {
    // Nothing is sent, so nothing is asked: the request is only shown.
    const req = client.createPetOutgoing(pet, KEY_REFERENCE);
    await ctx.io.out(dryRun === 'curl' ? dryRunCurl(req, connection) : dryRunJson(req));
    return ExitCode.ok;
  }
  await confirmWrite(ctx, connection, `create the pet ${stringifyJson(pet)}`);
  let created: Awaited<ReturnType<typeof client.createPet>>;
  try {
    created = await client.createPet(pet);
  } catch (err) {
    throw mayHaveBeenCreated(ctx, err, pet.name);
  }
  const { data, headers } = created;
  watchDeprecation(ctx, 'createPet (POST /pets)')(headers);
  await printWrittenPet(ctx, data, { did: 'created', dontRepeat: 'Do not create it again.' });
  // On a terminal only: a script reads the pet on stdout, and its stderr stays as it was.
  ctx.io.summary(`created pet ${String(data.id)} ${JSON.stringify(data.name)}`, describeTarget(connection));
  return ExitCode.ok;
}

/**
 * A failure after which the pet may exist (the connection reset once the request was sent,
 * the deadline passed waiting for the answer: `mayHaveReachedServer`) says so, with the
 * command that finds it by name, so nobody creates it twice unawares; its exit code and
 * code stay the failure's (3, `network` or `timeout`). Any other failure is returned as is.
 */
function mayHaveBeenCreated(ctx: Pick<SettingsContext, 'suggest'>, err: unknown, name: string): unknown {
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

/**
 * `pets create --name NAME --category-id ID [--status S]`: one `createPet` (spec §4.2).
 * Values the flags leave out are asked for on a terminal (`canPrompt`), checked as the
 * flags are; the declaration has already refused them when no prompt is possible. An
 * environment with `confirmWrites` is asked before the pet is sent (`confirmWrite`).
 */
import { randomUUID } from 'node:crypto';
import type { NewPet } from '../../../client/schemas.js';
import type { Connection } from '../../../config/settings.js';
import type { Context, SettingsContext } from '../../../context.js';
import { confirmWrite } from '../../../operations/confirm-writes.js';
import {
  KEY_REFERENCE,
  checkDryRunFlags,
  dryRunCurl,
  dryRunJson,
  noteCurlKey,
  type DryRunForm,
} from '../../../operations/dry-run.js';
import { ExitCode } from '../../../base/errors.js';
import { mayHaveBeenCreated } from '../../../operations/created.js';
import { CREATE_PET } from '../../../operations/pets.js';
import { describeTarget } from '../../../render/target.js';
import { stringifyJson } from '../../../base/json.js';
import { shellQuote } from '../../../base/suggest.js';
import { missingFlags, toNewPet, type PetDraft } from '../shared/draft.js';
import { askForPet } from '../shared/prompt.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';
import { printWrittenPet } from '../shared/written.js';

/**
 * Creates one pet and prints it, including its `id`; on a terminal, a summary line on
 * stderr names it and where it was created (cli-contract.md "Environments"). Sent once: a
 * POST is never repeated once it may have reached the server (cli-contract.md "Network
 * behaviour"), with a random `Idempotency-Key` of its own (a UUID), which the "may have
 * been created" hint gives so the user can send it again safely. When the draft lacks a
 * name or a category id, the connection is checked first (a missing base URL or key fails
 * before anything is typed) and then the missing values are asked for.
 * @throws ApiError (400 → exit 6), AuthError, NetworkError, TimeoutError and
 * InvalidResponseError (an answer below 400 that breaks the API: exit 1 `invalid_response`)
 * saying the pet may have been created when it may (`mayHaveCreated`), with its key;
 * InterruptedError (exit 130, nothing sent) on Ctrl-C at a prompt;
 * CliError `not_confirmed` (exit 2, nothing sent) when the write is not confirmed;
 * with `dryRun`, the request is printed instead (`dry-run.ts`), unconfirmed and unsent,
 * and `dryRunCurl`'s UsageError for the sandbox;
 * CliError `output` (exit 1) naming the created pet when stdout cannot take it (a write
 * command accounts for what it did, even to a closed pipe).
 */
export async function runCreate(ctx: Context, draft: PetDraft, dryRun?: DryRunForm): Promise<number> {
  checkDryRunFlags(dryRun, ctx.globals);
  const { client, connection } = await ctx.connect({ dryRun: dryRun !== undefined });
  const pet = missingFlags(draft).length === 0 ? toNewPet(draft) : await askForPet(ctx, draft);
  const idempotencyKey = randomUUID();
  if (dryRun !== undefined) {
    // Nothing is sent, so nothing is asked: the request is only shown.
    const req = client.createPetOutgoing(pet, idempotencyKey, KEY_REFERENCE);
    await ctx.io.out(dryRun === 'curl' ? dryRunCurl(req, connection) : dryRunJson(req));
    if (dryRun === 'curl') noteCurlKey(ctx, connection);
    return ExitCode.ok;
  }
  await confirmWrite(ctx, connection, CREATE_PET.consent(stringifyJson(pet)));
  let created: Awaited<ReturnType<typeof client.createPet>>;
  try {
    created = await client.createPet(pet, { idempotencyKey });
  } catch (err) {
    throw mayHaveBeenCreatedHere(ctx, err, { pet, idempotencyKey, connection });
  }
  const { data, headers } = created;
  watchDeprecation(ctx, 'createPet (POST /pets)')(headers);
  await printWrittenPet(ctx, data, { did: 'created', dontRepeat: 'Do not create it again.' });
  // On a terminal only: a script reads the pet on stdout, and its stderr stays as it was.
  ctx.io.summary(`created pet ${String(data.id)} ${JSON.stringify(data.name)}`, describeTarget(connection));
  return ExitCode.ok;
}

/** What a create sent: the pet, its `Idempotency-Key`, and where it went. */
interface SentCreate {
  pet: NewPet;
  idempotencyKey: string;
  connection: Pick<Connection, 'environment' | 'idempotencyKeys'>;
}

/**
 * A failure after which the pet may exist (the connection reset once the request was sent,
 * the deadline passed waiting for the answer, a 201 whose body breaks the API:
 * `mayHaveCreated`) says so, with its `Idempotency-Key` and the command that finds the pet
 * by name, so nobody creates it twice unawares; where the environment declares
 * `idempotencyKeys`, also the `petstore api` command that sends it again with that key
 * (the server then answers with the pet created first, if any). Its exit code and code stay
 * the failure's (3 `network` or `timeout`, 1 `invalid_response`); the key is in its JSON
 * `idempotencyKey`. Any other failure is returned as is.
 */
function mayHaveBeenCreatedHere(ctx: Pick<SettingsContext, 'suggest'>, err: unknown, sent: SentCreate): unknown {
  const { pet, idempotencyKey, connection } = sent;
  const find = ctx.suggest(`pets list --all --jq ${shellQuote(`.[] | select(.name == ${JSON.stringify(pet.name)})`)}`);
  const name = connection.environment.value;
  const hint = connection.idempotencyKeys
    ? `Send it again with the same key, which creates it at most once (${name} honours Idempotency-Key; within 24 hours): \`${ctx.suggest(resendWords(pet, idempotencyKey))}\`; or check with \`${find}\` first.`
    : `Check with \`${find}\` before creating it again: a second create would make a second pet (${name} is not declared to honour Idempotency-Key, so the key cannot make a resend safe).`;
  return mayHaveBeenCreated(err, { idempotencyKey }, hint);
}

/** The `petstore api` words that send `pet` again with `idempotencyKey` (int64 exact through `-F`). */
function resendWords(pet: NewPet, idempotencyKey: string): string {
  const status = pet.status === undefined ? '' : ` -f status=${shellQuote(pet.status)}`;
  return `api POST pets -f ${shellQuote(`name=${pet.name}`)} -F categoryId=${String(pet.categoryId)}${status} -H ${shellQuote(`Idempotency-Key: ${idempotencyKey}`)}`;
}

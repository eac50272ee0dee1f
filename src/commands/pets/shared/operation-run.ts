/**
 * The run of a verb drawn from its declaration (`operation.ts`): one request of an
 * operation that answers one Pet (`client.sendOperation`), asked about first under
 * confirmWrites when it writes (the declaration's consent words), its pet printed: a write's
 * as a written pet with its summary line (a write accounts for what it did, even to a closed
 * stdout), a read's as a record.
 */
import { randomUUID } from 'node:crypto';
import { operationOf } from '../../../client/constants.js';
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { stringifyJson } from '../../../base/json.js';
import { confirmWrite } from '../../../operations/confirm-writes.js';
import { pathParams, type OperationDeclaration } from '../../../operations/pets.js';
import { describeTarget } from '../../../render/target.js';
import { writePet } from '../../../render/output.js';
import { watchDeprecation } from './watch-deprecation.js';
import { printWrittenPet } from './written.js';

/**
 * Sends `op` with `values` (by input key) and prints the pet it answers.
 * @throws as `client.sendOperation` does; CliError `not_confirmed` (exit 2, nothing sent)
 * when a write is not confirmed; CliError `output` (exit 1) naming a written pet stdout
 * could not take.
 */
export async function runOperation(
  ctx: Context,
  op: OperationDeclaration,
  values: Readonly<Record<string, unknown>>,
): Promise<number> {
  const { client, connection } = await ctx.connect();
  const params = pathParams(op, values);
  const body = op.request?.body?.(values);
  if (op.writes) {
    const what = op.consent?.(stringifyJson(body ?? params)) ?? `${op.id} ${stringifyJson(body ?? params)}`;
    await confirmWrite(ctx, connection, what);
  }
  const { data, headers } = await client.sendOperation(op.id, {
    params,
    ...(body === undefined ? {} : { body }),
    // A write carries a key of its own, as every create does (cli-contract.md "Bulk create").
    ...(op.writes ? { idempotencyKey: randomUUID() } : {}),
  });
  const { method, path } = operationOf(op.id);
  watchDeprecation(ctx, `${op.id} (${method} ${path})`)(headers);
  if (!op.writes) {
    await writePet(await ctx.recordOutput(), data);
    return ExitCode.ok;
  }
  const did = op.request?.did ?? 'updated';
  await printWrittenPet(ctx, data, { did, dontRepeat: `It was ${did}: there is no need to send it again.` });
  ctx.io.summary(`${did} pet ${String(data.id)} ${JSON.stringify(data.name)}`, describeTarget(connection));
  return ExitCode.ok;
}

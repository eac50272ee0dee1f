/**
 * `petstore pets list [--limit N] [--status S]`: `listPets` (spec §4.1), printed in the
 * selected output format (cli-contract.md "Output").
 */
import type { ListPetsQuery } from '../../api/client.js';
import type { Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { parseLimit, parseStatus } from '../../input.js';
import { renderJson, renderNdjson, renderPetTsv } from '../../render/pets.js';

/** Typed options of `pets list`. */
export interface ListOptions {
  query: ListPetsQuery;
}

/**
 * Turns commander's strings into typed options.
 * @throws UsageError for a bad `--limit` or `--status`.
 */
export function parseListOptions(opts: Record<string, unknown>): ListOptions {
  const query: ListPetsQuery = {};
  if (typeof opts.limit === 'string') query.limit = parseLimit(opts.limit);
  if (typeof opts.status === 'string') query.status = parseStatus(opts.status);
  return { query };
}

/** Writes pets to stdout in the context's render mode; an empty list prints `[]` only in json. */
export async function printPets(ctx: Context, pets: readonly Pet[]): Promise<void> {
  const { io } = ctx;
  switch (ctx.renderMode()) {
    case 'json':
      io.stdout.write(renderJson(pets));
      break;
    case 'ndjson':
      for (const p of pets) io.stdout.write(renderNdjson(p));
      break;
    case 'tsv':
      for (const p of pets) io.stdout.write(renderPetTsv(p));
      break;
    case 'table': {
      if (pets.length === 0) break;
      const { renderPetTable } = await import('../../render/table.js');
      io.stdout.write(renderPetTable(pets, io.colorOut));
      break;
    }
  }
  if (pets.length === 0) ctx.note('No pets found.');
}

/**
 * Lists pets.
 * @throws UsageError (nothing sent), ApiError, InvalidResponseError, NetworkError, TimeoutError.
 */
export async function runList(ctx: Context, options: ListOptions): Promise<number> {
  const { client } = await ctx.connect();
  const { data } = await client.listPets(options.query);
  await printPets(ctx, data);
  return 0;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, opts: Record<string, unknown>): Promise<number> {
  return runList(ctx, parseListOptions(opts));
}

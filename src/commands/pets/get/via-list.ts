/**
 * `pets get ID --via-list [--status S] [--max-pages N]`: finds one pet through `listPets`
 * (spec §4.1), the replacement the spec names for the deprecated `getPet` (§4.3). The list
 * is paged the way `pets list --all` pages it (pages of 100, `Link: rel="next"` only, same
 * origin only, `--max-pages`), and the walk stops at the first page holding the id, so it
 * costs ceil(position / 100) requests. The pet is printed exactly as getPet's would be.
 */
import { LIMIT_MAX, type PetStatus } from '../../../client/constants.js';
import { walkPetPages, type PetPage } from '../../../client/pages.js';
import type { Pet } from '../../../client/schemas.js';
import type { PetstoreClient } from '../../../client/client.js';
import type { Context, SettingsContext, TerminalContext } from '../../../context.js';
import { CliError, ExitCode } from '../../../errors.js';
import { writePet } from '../../../render/output.js';
import { describeListProgress } from '../../../render/progress.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';

/** What the list path needs. */
export interface ViaListOptions {
  petId: bigint;
  /** Only pets of this status are searched; without it the unfiltered list covers every status. */
  status?: PetStatus;
  /** The most pages fetched (1..10000). */
  maxPages: number;
}

/**
 * Pages through `listPets` (100 a page, narrowed by `status`) until a page holds
 * `petId`, and prints that pet.
 * @throws CliError `not_in_list` (exit 5) when the last page passed without it;
 * `not_in_first_page` (exit 5) when the one page was full but came without a next link
 * (the API offers no way further); `max_pages` (exit 1) when `maxPages` pages passed and
 * the server links to more; and what the walk throws (ApiError, InvalidResponseError,
 * NetworkError, TimeoutError).
 */
export async function runGetViaList(ctx: Context, options: ViaListOptions): Promise<number> {
  const { client } = await ctx.connect();
  const output = await ctx.recordOutput();
  const { found, last } = await search(ctx, client, options);
  if (found === undefined) throw notFound(options, last, ctx.suggest('pets list'));
  await writePet(output, found);
  return ExitCode.ok;
}

/**
 * Walks the pages of `listPets` (100 a page, narrowed by `status`), its progress drawn
 * between pages, until one holds `petId`: that pet (undefined when none did) and the last
 * page fetched.
 */
async function search(
  ctx: Pick<TerminalContext, 'io' | 'warn'> & Pick<SettingsContext, 'now'>,
  client: PetstoreClient,
  options: ViaListOptions,
): Promise<{ found: Pet | undefined; last: PetPage | undefined }> {
  const observe = watchDeprecation(ctx, 'listPets (GET /pets)');
  const { progress } = ctx.io;
  const query = { limit: LIMIT_MAX, ...(options.status === undefined ? {} : { status: options.status }) };
  const pages = walkPetPages(client, query, {
    maxPages: options.maxPages,
    words: {
      missing: `without finding pet ${options.petId}`,
      outcome: 'the search was incomplete',
      narrow: 'the search',
    },
    beforeNext: (count, pets) => progress.update(describeListProgress(count, pets)),
  });
  let last: PetPage | undefined;
  try {
    for await (const page of pages) {
      progress.clear();
      observe(page.headers);
      last = page;
      // int64 ids are numbers or bigints (beyond 2^53); BigInt compares both exactly.
      const found = page.data.find((pet) => BigInt(pet.id) === options.petId);
      if (found !== undefined) return { found, last };
    }
  } finally {
    progress.clear();
  }
  return { found: undefined, last };
}

/**
 * The exit-5 error after a walk that ended without the pet; `last` is its last page,
 * `listCommand` the `pets list` its hint suggests.
 */
function notFound(options: ViaListOptions, last: PetPage | undefined, listCommand: string): CliError {
  const searched = (last?.before ?? 0) + (last?.data.length ?? 0);
  const pages = last?.number ?? 0;
  const within = options.status === undefined ? '' : ` with status ${options.status}`;
  if (pages === 1 && searched >= LIMIT_MAX) {
    // After linked pages a missing link means the end; a lone full page leaves doubt.
    return new CliError(
      `pet ${options.petId} is not among the first ${searched} pets${within}, the only ones that could be searched: the page was full, but the server sent no Link rel="next" header and the API offers no other way to the next page`,
      {
        exitCode: ExitCode.notFound,
        code: 'not_in_first_page',
        hint:
          options.status === undefined
            ? 'Narrow the search with --status, so that the pets searched fit one page.'
            : 'Try the other --status values: each may fit one page.',
      },
    );
  }
  const counted = `${searched} pet${searched === 1 ? '' : 's'}${within}`;
  return new CliError(
    `pet ${options.petId} not found in the list: ${counted} searched on ${pages} page${pages === 1 ? '' : 's'}`,
    {
      exitCode: ExitCode.notFound,
      code: 'not_in_list',
      hint:
        options.status === undefined
          ? `List the pets that exist with \`${listCommand}\`.`
          : 'Without --status the search covers every status.',
    },
  );
}

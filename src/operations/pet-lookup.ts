/**
 * Finding one pet by id, as `pets get` does and the MCP server's `get_pet` does too:
 * `getPet` (spec §4.3, deprecated, removed on 2030-12-05) while it exists, with its one
 * deprecation warning; otherwise the replacement the spec names, a walk of `listPets`
 * (§4.1), pages of 100, stopping at the first page that holds the id.
 *
 * The list is searched instead of calling getPet when asked (`viaList`), from the removal
 * date on, under `--fail-on-deprecated`, and when getPet answers 410 Gone, or 404 with a
 * `Sunset` date in the past. It prints nothing but warnings (through `warn`) and the
 * progress line; the caller shows the pet.
 */
import { GET_PET_REMOVAL_DATE, LIMIT_MAX, type PetStatus } from '../client/constants.js';
import { walkPetPages, type PetPage } from '../client/pages.js';
import type { Pet } from '../client/schemas.js';
import type { PetstoreClient } from '../client/client.js';
import type { ApiContext, SettingsContext, TerminalContext } from '../context.js';
import { DeprecationReporter, isoDay, relativeDays, type DeprecationInfo } from '../http/deprecation.js';
import { ApiError, CliError, ExitCode } from '../base/errors.js';
import { describeListProgress } from '../render/progress.js';
import { countOf } from '../text/count.js';

/** What to find and how. */
export interface PetLookup {
  petId: bigint;
  /** Find the pet through listPets, never calling getPet (`--via-list`). */
  viaList: boolean;
  /** With the list path: search only pets of this status (`--status`). */
  status?: PetStatus;
  /** With the list path: the most pages fetched (`--max-pages`, 1..10000). */
  maxPages: number;
  /**
   * The front door asking, whose words the warnings and failures use (STYLE.md "Words per
   * door"): the CLI's (`--via-list`, `not_in_list`, the default) or an agent's (`get_pet`,
   * `list_pets`; one code `not_found` either way, with `lookup` saying which way was taken).
   */
  door?: 'cli' | 'mcp';
}

/** What a lookup uses of a run: its client, warnings, progress line, clock, flags and suggested commands. */
export type LookupContext = Pick<ApiContext, 'connect'> &
  Pick<TerminalContext, 'warn' | 'io'> &
  Pick<SettingsContext, 'now' | 'globals' | 'suggest'>;

/** The width the deprecation warning is wrapped to: two lines of at most 80 columns. */
export const WARNING_COLUMNS = 80;

/** The removal date of getPet the spec gives (§4.3, §9), as an instant (00:00 UTC). */
const REMOVAL = new Date(`${GET_PET_REMOVAL_DATE}T00:00:00Z`);

/**
 * Words the deprecation warning of `pets get` (without the `warning: ` prefix): the removal
 * date (the `Sunset` header's, else the spec's) with the days remaining, the replacement,
 * and `--via-list`. Short enough to wrap into two lines of 80 columns with the prefix
 * (cli-contract.md "Commands"); the `Deprecation` date is left out for that reason.
 */
export function describeGetDeprecation(info: DeprecationInfo, now: Date): string {
  const removal = info.sunset ?? REMOVAL;
  const when =
    removal.getTime() > now.getTime()
      ? `will be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`
      : `was to be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`;
  return `\`pets get\` is deprecated and ${when}; replaced by \`pets list --status STATUS\`: add --via-list to use it now`;
}

/**
 * The deprecation warning of `get_pet` in an agent's words: the removal date with the days
 * remaining, and that the tool then searches listPets by itself (an agent has no `--via-list`).
 */
function describeGetDeprecationForAgents(info: DeprecationInfo, now: Date): string {
  const removal = info.sunset ?? REMOVAL;
  const when =
    removal.getTime() > now.getTime()
      ? `will be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`
      : `was to be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`;
  return `getPet (GET /pets/{petId}) is deprecated and ${when}; get_pet then finds pets through listPets by itself`;
}

/**
 * Finds one pet: through getPet, or through listPets where getPet cannot or must not be
 * used (see the module comment), saying in one warning why the list is searched.
 * @throws ApiError (404 → exit 5), AuthError, NetworkError, TimeoutError,
 * InvalidResponseError; from the list path also CliError `not_in_list` or
 * `not_in_first_page` (exit 5) and `max_pages` (exit 1).
 */
export async function findPet(ctx: LookupContext, lookup: PetLookup): Promise<Pet> {
  if (lookup.viaList) return findInList(ctx, lookup);
  const skip = reasonToSkipGetPet(ctx, lookup.door);
  const got = skip === undefined ? await getPet(ctx, lookup) : { gone: skip };
  if ('gone' in got) {
    ctx.warn(`${got.gone}: finding pet ${lookup.petId} through listPets (GET /pets)`);
    return findInList(ctx, lookup);
  }
  return got.pet;
}

/**
 * Asks getPet for the pet, with its one deprecation warning: the pet, or why the list must
 * be searched instead (the operation is gone; the warning is not printed then, the fallback
 * line says more).
 * @throws what getPet throws, but an answer saying the operation is gone (`removedAnswer`).
 */
async function getPet(ctx: LookupContext, lookup: PetLookup): Promise<{ pet: Pet } | { gone: string }> {
  const { petId } = lookup;
  const agent = lookup.door === 'mcp';
  const deprecation = new DeprecationReporter(
    (m) => ctx.warn(m, { wrap: WARNING_COLUMNS }),
    ctx.now,
    agent ? describeGetDeprecationForAgents : describeGetDeprecation,
  );
  deprecation.declare({ subject: agent ? 'getPet' : '`pets get`', removal: GET_PET_REMOVAL_DATE });
  let pet: Pet;
  try {
    const { client } = await ctx.connect({ reads: true });
    const res = await client.getPet(petId);
    deprecation.observe(res.headers, 'getPet');
    pet = res.data;
  } catch (err) {
    if (err instanceof ApiError) deprecation.observe(err.headers, 'getPet');
    const gone = removedAnswer(err, deprecation.sunset(), ctx.now());
    if (gone !== undefined) return { gone };
    deprecation.flush();
    throw agent && err instanceof CliError && err.status === 404 ? notFoundForAgents(err) : err;
  }
  deprecation.flush();
  return { pet };
}

/** Why getPet is not called at all: refused by the user, or past the spec's removal date; in the words of `door`. */
function reasonToSkipGetPet(ctx: Pick<LookupContext, 'globals' | 'now'>, door: PetLookup['door']): string | undefined {
  if (ctx.globals.failOnDeprecated !== undefined) {
    // An agent did not set it: the person who started the server did.
    return door === 'mcp'
      ? 'getPet is deprecated and this server was started to use no deprecated operation'
      : `getPet is deprecated and ${ctx.globals.failOnDeprecated} is set`;
  }
  if (ctx.now().getTime() >= REMOVAL.getTime()) return `getPet was removed on ${GET_PET_REMOVAL_DATE}`;
  return undefined;
}

/**
 * Whether getPet's failure says the operation itself is gone: any 410 (Gone, RFC 9110
 * §15.5.11), or a 404 once the `Sunset` date has passed. Returns the reason, or undefined.
 */
function removedAnswer(err: unknown, sunset: Date | undefined, now: Date): string | undefined {
  if (!(err instanceof CliError)) return undefined;
  if (err.status === 410) return 'getPet answered 410 Gone';
  if (err.status === 404 && sunset !== undefined && sunset.getTime() <= now.getTime()) {
    return `getPet answered 404 after its Sunset date, ${isoDay(sunset)}`;
  }
  return undefined;
}

/**
 * Pages through `listPets` (100 a page, narrowed by `status`) until a page holds `petId`.
 * @throws CliError `not_in_list` (exit 5) when the last page passed without it;
 * `not_in_first_page` (exit 5) when the one page was full but came without a next link
 * (the API offers no way further); `max_pages` (exit 1) when `maxPages` pages passed and
 * the server links to more; and what the walk throws (ApiError, InvalidResponseError,
 * NetworkError, TimeoutError).
 */
async function findInList(ctx: LookupContext, lookup: PetLookup): Promise<Pet> {
  const { client } = await ctx.connect();
  let result: Awaited<ReturnType<typeof search>>;
  try {
    result = await search(ctx, client, lookup);
  } catch (err) {
    if (lookup.door === 'mcp' && err instanceof CliError && err.code === 'max_pages') throw maxPagesForAgents(lookup);
    throw err;
  }
  const { found, last } = result;
  if (found !== undefined) return found;
  throw lookup.door === 'mcp' ? notInListForAgents(lookup, last) : notFound(lookup, last, ctx.suggest('pets list'));
}

/** What an agent can do about a pet not found: list the ones that exist. */
const LIST_FOR_AGENTS = 'List the pets that exist with list_pets.';

/**
 * getPet's 404 in an agent's words: code `not_found` whatever the server's code, the way it
 * was looked for (`lookup: "getPet"`), and a hint naming the tool to use.
 */
function notFoundForAgents(err: CliError): CliError {
  return new CliError(err.message, {
    exitCode: ExitCode.notFound,
    code: 'not_found',
    status: err.status,
    hint: LIST_FOR_AGENTS,
    cause: err,
    details: { ...err.details, lookup: 'getPet' },
  });
}

/**
 * A search of listPets that ended without the pet, in an agent's words: the same code as
 * getPet's 404 (`not_found`: one "not found" for agents), the way (`lookup: "listPets"`)
 * and how far the search went (`pagesSearched`, `petsSearched`). A lone full page without
 * a next link keeps `not_in_first_page`: the pet may exist past it.
 */
function notInListForAgents(lookup: PetLookup, last: PetPage | undefined): CliError {
  const cli = notFound(lookup, last, 'pets list');
  const pagesSearched = last?.number ?? 0;
  const petsSearched = (last?.before ?? 0) + (last?.data.length ?? 0);
  const details = { lookup: 'listPets', pagesSearched, petsSearched };
  if (cli.code === 'not_in_first_page') {
    return new CliError(cli.message, {
      exitCode: ExitCode.notFound,
      code: 'not_in_first_page',
      hint: 'Look for it with list_pets and each status in turn: the pets of one status may fit one page.',
      details,
    });
  }
  return new CliError(cli.message, {
    exitCode: ExitCode.notFound,
    code: 'not_found',
    hint: lookup.status === undefined ? LIST_FOR_AGENTS : 'Without status the search covers every status.',
    details,
  });
}

/** The stop of an agent's search at its page limit (`max_pages`), without the CLI's flags. */
function maxPagesForAgents(lookup: PetLookup): CliError {
  return new CliError(
    `stopped after ${countOf(lookup.maxPages, 'page')} of listPets without finding pet ${lookup.petId}; the server links to more, so the search was incomplete`,
    {
      exitCode: ExitCode.failure,
      code: 'max_pages',
      hint: 'Look for it with list_pets (status narrows the list; next_cursor goes on where a result stopped).',
      details: { lookup: 'listPets', pagesSearched: lookup.maxPages },
    },
  );
}

/**
 * Walks the pages of `listPets` (100 a page, narrowed by `status`), its progress drawn
 * between pages, until one holds `petId`: that pet (undefined when none did) and the last
 * page fetched. A deprecation signal of listPets is warned about once.
 */
async function search(
  ctx: LookupContext,
  client: PetstoreClient,
  lookup: PetLookup,
): Promise<{ found: Pet | undefined; last: PetPage | undefined }> {
  const deprecation = new DeprecationReporter(
    (m) => ctx.warn(m),
    () => ctx.now(),
  );
  const { progress } = ctx.io;
  const query = { limit: LIMIT_MAX, ...(lookup.status === undefined ? {} : { status: lookup.status }) };
  const pages = walkPetPages(client, query, {
    maxPages: lookup.maxPages,
    words: {
      missing: `without finding pet ${lookup.petId}`,
      outcome: 'the search was incomplete',
      narrow: 'the search',
    },
    beforeNext: (count, pets) => progress.update(describeListProgress(count, pets)),
  });
  let last: PetPage | undefined;
  try {
    for await (const page of pages) {
      progress.clear();
      deprecation.observeAndFlush(page.headers, 'listPets (GET /pets)');
      last = page;
      // int64 ids are numbers or bigints (beyond 2^53); BigInt compares both exactly.
      const found = page.data.find((pet) => BigInt(pet.id) === lookup.petId);
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
function notFound(lookup: PetLookup, last: PetPage | undefined, listCommand: string): CliError {
  const searched = (last?.before ?? 0) + (last?.data.length ?? 0);
  const pages = last?.number ?? 0;
  const within = lookup.status === undefined ? '' : ` with status ${lookup.status}`;
  if (pages === 1 && searched >= LIMIT_MAX) {
    // After linked pages a missing link means the end; a lone full page leaves doubt.
    return new CliError(
      `pet ${lookup.petId} is not among the first ${countOf(searched, 'pet')}${within}, the only ones that could be searched: the page was full, but the server sent no Link rel="next" header and the API offers no other way to the next page`,
      {
        exitCode: ExitCode.notFound,
        code: 'not_in_first_page',
        hint:
          lookup.status === undefined
            ? 'Narrow the search with --status, so that the pets searched fit one page.'
            : 'Try the other --status values: each may fit one page.',
      },
    );
  }
  const counted = `${countOf(searched, 'pet')}${within}`;
  return new CliError(`pet ${lookup.petId} not found in the list: ${counted} searched on ${countOf(pages, 'page')}`, {
    exitCode: ExitCode.notFound,
    code: 'not_in_list',
    hint:
      lookup.status === undefined
        ? `List the pets that exist with \`${listCommand}\`.`
        : 'Without --status the search covers every status.',
  });
}

/**
 * `pets list`: `listPets` (spec §4.1), printed in the selected output format
 * (cli-contract.md "Output"). With `--all` it follows the server's `Link: rel="next"`
 * headers (RFC 8288) page by page.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiResult, ListPetsQuery, PetstoreClient } from '../../../client/client.js';
import { LIMIT_DEFAULT } from '../../../client/constants.js';
import { findNextLink } from '../../../client/link.js';
import { walkPetPages, type PetPage } from '../../../client/pages.js';
import type { Pet } from '../../../client/schemas.js';
import type { Context } from '../../../context.js';
import type { Progress } from '../../../io.js';
import { BodyTooLargeError, ExitCode, InterruptedError } from '../../../errors.js';
import type { PetSort } from '../../../flag-values.js';
import { RecordStream } from '../../../render/output.js';
import { describeListProgress } from '../../../render/progress.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';
import { collationLocale, comparePets } from './sort.js';

/** Typed options of `pets list`. */
export interface ListOptions {
  query: ListPetsQuery;
  /** Follow `Link: rel="next"` until the last page. */
  all: boolean;
  /** With `all`: the most pages fetched before stopping (1..10000, default 1000). */
  maxPages: number;
  /** `--sort`: the order of what was fetched, decided here (the API has no sort parameter). */
  sort?: PetSort;
}

/** What printing a list needs of the run: the terminal's messages and progress line, and how the run ends. */
type ListSide = Pick<Context, 'io' | 'warn' | 'note' | 'signal' | 'atForcedEnd'>;

/** The walk's deprecation watch: told each answer's headers, it warns once. */
type Observe = (headers: IncomingHttpHeaders) => void;

/**
 * The warning for a full page without a `Link: rel="next"` header: more pets may exist,
 * and the API gives no way to reach them (spec §4.1 defines no paging parameter).
 */
function fullPageWithoutLinkWarning(size: number): string {
  return `the page is full (${size} pets), so more may exist, but the server sent no Link rel="next" header and the API offers no other way to fetch them`;
}

/**
 * Lists pets: one page, or with `all` every page the server links to.
 * @throws UsageError (nothing sent), ApiError, InvalidResponseError (also for a next link
 * to another origin or back to a page fetched before; a page over the body cap with a hint
 * to ask for smaller pages), NetworkError, TimeoutError, CliError `max_pages` (exit 1) when
 * `maxPages` pages were fetched and the server still links to another.
 */
export async function runList(ctx: Context, options: ListOptions): Promise<number> {
  const { query } = options;
  const pageSize = query.limit ?? LIMIT_DEFAULT;
  const compare = options.sort === undefined ? undefined : comparePets(options.sort, collationLocale(ctx.env));
  try {
    const { client } = await ctx.connect();
    const out = new RecordStream(await ctx.petOutput(), { compare });
    const observe = watchDeprecation(ctx, 'listPets (GET /pets)');
    if (options.all) return await listAll(ctx, out, observe, walkAll(client, options, ctx.io.progress), pageSize);
    return await listPage(ctx, out, observe, await client.listPets(query), pageSize);
  } catch (err) {
    // A page over the body cap: fewer pets per page is the way round it.
    if (!(err instanceof BodyTooLargeError)) throw err;
    throw err.withHint(
      options.all
        ? `Ask for smaller pages: --all --limit N with N below ${pageSize}, the size of these pages.`
        : `Ask for fewer pets with a smaller --limit (this one was ${pageSize}), and add --all to fetch the rest page by page.`,
    );
  }
}

/** Prints one page, then says whether more exist (`pageSize`: the pets a full page holds). */
async function listPage(
  ctx: ListSide,
  out: RecordStream,
  observe: Observe,
  res: ApiResult<Pet[]>,
  pageSize: number,
): Promise<number> {
  observe(res.headers);
  await out.push(res.data);
  await out.end();
  if (res.data.length === 0) ctx.note('No pets found.');
  const next = findNextLink(res.headers, res.url);
  if (next !== undefined) ctx.note('More pets exist: add --all to fetch every page.');
  else if (res.data.length >= pageSize) ctx.warn(fullPageWithoutLinkWarning(res.data.length));
  return ExitCode.ok;
}

/** The walk of `--all`, its progress drawn between pages. */
function walkAll(client: PetstoreClient, options: ListOptions, progress: Progress): AsyncGenerator<PetPage> {
  return walkPetPages(client, options.query, {
    maxPages: options.maxPages,
    words: { outcome: 'the list printed is incomplete', narrow: 'the list' },
    beforeNext: (count, pets) => progress.update(describeListProgress(count, pets)),
  });
}

/** A signal's interruption of `--all`, with what was fetched before it. */
function incomplete(err: InterruptedError, pages: number, pets: number): InterruptedError {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return err.withAccount(`the list is incomplete: ${plural(pets, 'pet')} from ${plural(pages, 'page')}`, {
    pets,
    pages,
  });
}

/**
 * Prints every page of `pages` as it comes, and what was fetched on failure too.
 * @throws what the walk throws; InterruptedError with the account of what was fetched on a signal.
 */
async function listAll(
  ctx: ListSide,
  out: RecordStream,
  observe: Observe,
  pages: AsyncGenerator<PetPage>,
  pageSize: number,
): Promise<number> {
  const { progress } = ctx.io;
  let failed = false;
  let fetched = 0;
  // Ended by force after a signal (a second Ctrl-C before the pager has the whole table):
  // the incomplete line is said all the same (cli-contract.md "Errors and exit codes").
  const clearLastWords = ctx.atForcedEnd(() =>
    ctx.signal.aborted ? incomplete(InterruptedError.from(ctx.signal), fetched, out.size) : undefined,
  );
  try {
    for await (const page of pages) {
      progress.clear();
      fetched = page.number;
      observe(page.headers);
      await out.push(page.data);
      // After a linked page, a missing Link means the end; only a server that never links leaves doubt.
      if (page.number === 1 && page.data.length >= pageSize && findNextLink(page.headers, page.url) === undefined)
        ctx.warn(fullPageWithoutLinkWarning(page.data.length));
    }
  } catch (err) {
    failed = true;
    // Stopped by a signal: what was fetched is printed (into the pager, when one runs,
    // which is then waited for), and the account says the list is incomplete.
    if (ctx.signal.aborted) throw incomplete(InterruptedError.from(ctx.signal), fetched, out.size);
    throw err;
  } finally {
    progress.clear();
    // What was fetched is printed even on failure; the exit code says whether it is complete.
    // A failure to print it then (a --jq error) must not hide the failure that stopped the walk.
    await out
      .end()
      .catch((err: unknown) => {
        if (!failed) throw err;
      })
      .finally(clearLastWords);
  }
  if (out.size === 0) ctx.note('No pets found.');
  return ExitCode.ok;
}

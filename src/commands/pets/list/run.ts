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
import type { Context, LifecycleContext, TerminalContext } from '../../../context.js';
import type { Progress } from '../../../io/io.js';
import { BodyTooLargeError, ExitCode, InterruptedError } from '../../../base/errors.js';
import type { PetSort } from '../../../base/flag-values.js';
import { RecordStream } from '../../../render/output.js';
import { describeListProgress } from '../../../render/progress.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';
import { comparePets } from './sort.js';
import { countOf } from '../../../text/count.js';

/** Typed options of `pets list`. */
export interface ListOptions {
  query: ListPetsQuery;
  /** Follow `Link: rel="next"` until the last page. */
  all: boolean;
  /** With `all`: the most pages fetched before stopping (1..10000, default 1000). */
  maxPages: number;
  /** `--sort`: the order of what was fetched, decided here (the API has no sort parameter). */
  sort?: PetSort;
  /** With `sort`: the locale names are collated by (`collationLocale`; undefined: code point order). */
  locale?: string | undefined;
}

/** What printing a list needs of the run: the terminal's messages and progress line, and how the run ends. */
type ListSide = Pick<TerminalContext, 'io' | 'warn' | 'note'> & Pick<LifecycleContext, 'signal' | 'atForcedEnd'>;

/** What handles each page of a run, one page or every page alike. */
interface PageHandling {
  /** Prints the pets as they come (in the run's format, `--sort` order, `--jq`). */
  out: RecordStream;
  /** The deprecation watch: told each answer's headers, it warns once. */
  observe: (headers: IncomingHttpHeaders) => void;
  /** The pets a full page holds (`--limit`, or the server's default): a full page without a next link is warned of. */
  pageSize: number;
}

/**
 * The warning for a full page without a `Link: rel="next"` header: more pets may exist,
 * and the API gives no way to reach them (spec §4.1 defines no paging parameter).
 */
function fullPageWithoutLinkWarning(size: number): string {
  return `the page is full (${countOf(size, 'pet')}), so more may exist, but the server sent no Link rel="next" header and the API offers no other way to fetch them`;
}

/**
 * Lists pets: one page, or with `all` every page the server links to.
 * @throws UsageError (nothing sent), ApiError, InvalidResponseError (also for a next link
 * to another origin or back to a page fetched before; a page over the body cap with a hint
 * to ask for smaller pages), NetworkError, TimeoutError, CliError `max_pages` (exit 1) when
 * `maxPages` pages were fetched and the server still links to another.
 */
export async function runList(ctx: Context, options: ListOptions): Promise<number> {
  const pageSize = options.query.limit ?? LIMIT_DEFAULT;
  try {
    const { client } = await ctx.connect({ reads: true });
    // One page leaves before --jq's verdict (the walk of --all waits for it: its progress
    // and its pages' checks print as they go); a refused expression drops the answer.
    const page = options.all ? undefined : client.listPets(options.query);
    page?.catch(() => undefined);
    const output = await ctx.recordOutput();
    const observe = watchDeprecation(ctx, 'listPets (GET /pets)');
    const compare = options.sort === undefined ? undefined : comparePets(options.sort, options.locale);
    const out = new RecordStream(output, { compare });
    const handling = { out, observe, pageSize };
    if (page !== undefined) return await listPage(ctx, handling, await page);
    return await listAll(ctx, client, options, handling);
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

/** Prints one page, then says whether more exist. */
async function listPage(
  ctx: ListSide,
  { out, observe, pageSize }: PageHandling,
  res: ApiResult<Pet[]>,
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

/**
 * Walks every page the server links to (`walkAll`) and prints each as it comes, and what
 * was fetched on failure too.
 * @throws what the walk throws; InterruptedError with the account of what was fetched on a signal.
 */
async function listAll(
  ctx: ListSide,
  client: PetstoreClient,
  options: ListOptions,
  { out, observe, pageSize }: PageHandling,
): Promise<number> {
  const { progress } = ctx.io;
  const pages = walkAll(client, options, progress);
  let failed = false;
  let fetched = 0;
  const onPage = async (page: PetPage): Promise<void> => {
    progress.clear();
    fetched = page.number;
    observe(page.headers);
    await out.push(page.data);
  };
  // A signal's interruption, with what was fetched before it.
  const incomplete = (): InterruptedError => {
    const pets = out.size;
    return InterruptedError.from(ctx.signal).withAccount(
      `the list is incomplete: ${countOf(pets, 'pet')} from ${countOf(fetched, 'page')}`,
      { pets, pages: fetched },
    );
  };
  // Ended by force after a signal (a second Ctrl-C before the pager has the whole table):
  // the incomplete line is said all the same (cli-contract.md "Errors and exit codes").
  const clearLastWords = ctx.atForcedEnd(() => (ctx.signal.aborted ? incomplete() : undefined));
  try {
    for await (const page of pages) await onPage(page);
    // The walk ended at a page without a next link: after a linked page that means the end;
    // only a first page, full, leaves doubt (a server that never links).
    if (fetched === 1 && out.size >= pageSize) ctx.warn(fullPageWithoutLinkWarning(out.size));
  } catch (err) {
    failed = true;
    // Stopped by a signal: what was fetched is printed (into the pager, when one runs,
    // which is then waited for), and the account says the list is incomplete.
    if (ctx.signal.aborted) throw incomplete();
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

/**
 * `petstore pets list [--limit N] [--status S] [--all [--max-pages N]]`: `listPets`
 * (spec §4.1), printed in the selected output format (cli-contract.md "Output"). With
 * `--all` it follows the server's `Link: rel="next"` headers (RFC 8288) page by page.
 */
import type { ListPetsQuery } from '../../api/client.js';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../../api/constants.js';
import type { Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { parseLimit, parseStatus, quote } from '../../input.js';
import { renderJson, renderNdjson, renderPetTsv } from '../../render/pets.js';

/** Page size asked for with `--all` when `--limit` is not given: the largest the API allows. */
export const ALL_PAGE_SIZE_DEFAULT = LIMIT_MAX;
/** Default `--max-pages`: 1000 pages of 100 = 100 000 pets, far beyond a store's stock. */
export const MAX_PAGES_DEFAULT = 1000;
/** Largest `--max-pages`. */
export const MAX_PAGES_LIMIT = 10_000;

/** Typed options of `pets list`. */
export interface ListOptions {
  query: ListPetsQuery;
  /** Follow `Link: rel="next"` until the last page. */
  all: boolean;
  /** With `all`: the most pages fetched before stopping (1..10000, default 1000). */
  maxPages: number;
}

/**
 * Parses `--max-pages`: a whole number 1..10000.
 * @throws UsageError otherwise.
 */
export function parseMaxPages(raw: string): number {
  if (
    !/^[0-9]+$/.test(raw) ||
    raw.replace(/^0+(?=\d)/, '').length > 5 ||
    Number(raw) < 1 ||
    Number(raw) > MAX_PAGES_LIMIT
  ) {
    throw new UsageError(`invalid --max-pages ${quote(raw)}: must be a whole number from 1 to ${MAX_PAGES_LIMIT}`);
  }
  return Number(raw);
}

/**
 * Turns commander's strings into typed options. With `--all` and no `--limit`, pages of
 * 100 are asked for.
 * @throws UsageError for a bad `--limit`, `--status` or `--max-pages`, or `--max-pages` without `--all`.
 */
export function parseListOptions(opts: Record<string, unknown>): ListOptions {
  const query: ListPetsQuery = {};
  const all = opts.all === true;
  if (typeof opts.limit === 'string') query.limit = parseLimit(opts.limit);
  if (typeof opts.status === 'string') query.status = parseStatus(opts.status);
  let maxPages = MAX_PAGES_DEFAULT;
  if (opts.maxPages !== undefined) {
    if (!all)
      throw new UsageError(
        '--max-pages needs --all: it caps how many pages --all fetches',
        'Example: petstore pets list --all --max-pages 50',
      );
    maxPages = parseMaxPages(String(opts.maxPages));
  }
  if (all && query.limit === undefined) query.limit = ALL_PAGE_SIZE_DEFAULT;
  return { query, all, maxPages };
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
 * The warning for a full page without a `Link: rel="next"` header: more pets may exist,
 * and the API gives no way to reach them (spec §4.1 defines no paging parameter).
 */
export function fullPageWithoutLinkWarning(size: number): string {
  return `the page is full (${size} pets), so more may exist, but the server sent no Link rel="next" header and the API offers no other way to fetch them`;
}

/**
 * Lists pets: one page, or with `all` every page the server links to.
 * @throws UsageError (nothing sent), ApiError, InvalidResponseError (also for a next link
 * to another origin), NetworkError, TimeoutError, CliError `max_pages` (exit 1) when
 * `maxPages` pages were fetched and the server still links to another.
 */
export async function runList(ctx: Context, options: ListOptions): Promise<number> {
  const { client } = await ctx.connect();
  const deprecation = new DeprecationReporter((m) => ctx.warn(m));
  if (!options.all) {
    const res = await client.listPets(options.query);
    deprecation.observeAndFlush(res.headers, 'listPets (GET /pets)');
    await printPets(ctx, res.data);
    const { findNextLink } = await import('../../api/link.js');
    const next = findNextLink(res.headers, res.url);
    const asked = options.query.limit ?? LIMIT_DEFAULT;
    if (next !== undefined) ctx.note('More pets exist: add --all to fetch every page.');
    else if (res.data.length >= asked) ctx.warn(fullPageWithoutLinkWarning(res.data.length));
    return 0;
  }
  return listAll(ctx, options, deprecation);
}

async function listAll(ctx: Context, options: ListOptions, deprecation: DeprecationReporter): Promise<number> {
  const { client } = await ctx.connect();
  const [{ findNextLink, assertSameOrigin }, { RecordStream }, { ProgressLine, describeListProgress }] =
    await Promise.all([
      import('../../api/link.js'),
      import('../../render/stream.js'),
      import('../../render/progress.js'),
    ]);
  const out = new RecordStream(ctx);
  const progress = new ProgressLine(ctx.io.stderr, ctx.io.stderrIsTTY);
  let pages = 0;
  let next: URL | undefined;
  try {
    for (;;) {
      const res = await client.listPets(options.query, next);
      pages++;
      progress.clear();
      deprecation.observeAndFlush(res.headers, 'listPets (GET /pets)');
      await out.push(res.data);
      next = findNextLink(res.headers, res.url);
      if (next === undefined) {
        // After a linked page, a missing Link means the end; only a server that never links leaves doubt.
        if (pages === 1 && res.data.length >= (options.query.limit ?? LIMIT_DEFAULT))
          ctx.warn(fullPageWithoutLinkWarning(res.data.length));
        break;
      }
      assertSameOrigin(next, client.baseUrl);
      if (pages >= options.maxPages) {
        throw new CliError(
          `stopped at --max-pages ${options.maxPages} (${pages} page${pages === 1 ? '' : 's'}, ${out.size} pets); the server links to more, so the list printed is incomplete`,
          {
            exitCode: ExitCode.failure,
            code: 'max_pages',
            hint: 'Raise --max-pages (at most 10000), or narrow the list with --status.',
          },
        );
      }
      progress.update(describeListProgress(pages, out.size));
    }
  } finally {
    progress.clear();
    // What was fetched is printed even on failure; the exit code says whether it is complete.
    await out.end();
  }
  if (out.size === 0) ctx.note('No pets found.');
  return 0;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, opts: Record<string, unknown>): Promise<number> {
  return runList(ctx, parseListOptions(opts));
}

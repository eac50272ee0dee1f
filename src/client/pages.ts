/**
 * The one page walker: `pets list --all` and `pets get --via-list` walk the pages of
 * `listPets` (spec §4.1), `api --paginate` those of any path, all by the server's
 * `Link: rel="next"` headers (RFC 8288). The spec names no paging parameter (§4.4), so
 * petstore never builds a page URL: it follows the links the server sends, within the base
 * URL only (`PageTrail`), and at most `--max-pages` of them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { CliError, ExitCode } from '../base/errors.js';
import type { ApiResult, ListPetsQuery, PetstoreClient } from './client.js';
import { PageTrail } from './link.js';
import type { Pet } from './schemas.js';
import { countOf } from '../text/count.js';

/** What the walker reads of an answer: its headers and the URL that answered (after redirects). */
export interface Linked {
  headers: IncomingHttpHeaders;
  url: URL;
}

/** One answer of a walk, with where it lies in the walk. */
export type WalkedPage<P> = P & {
  /** 1-based number of this page. */
  number: number;
  /** Items (pets) on the pages before this one; 0 for a walk that does not count them. */
  before: number;
};

/** One page of a walk of `listPets`: the validated pets, headers and URL. */
export type PetPage = WalkedPage<ApiResult<Pet[]>>;

/**
 * What differs between the commands' stop at `--max-pages`, byte for byte: the walk of
 * pets counts what it fetched, `pets get` names what it did not find, each says what is
 * incomplete, and the walks of pets can be narrowed with `--status`.
 */
interface MaxPagesWords {
  /** After the counts, what the walk did not do: `without finding pet 7`. */
  missing?: string;
  /** What is incomplete: `the list printed is incomplete`. */
  outcome: string;
  /** What `--status` narrows, named in the hint: `the list`; undefined when nothing can. */
  narrow?: string;
}

/**
 * The error of a walk stopped at `--max-pages` while the server links to another page (exit
 * 1, code `max_pages`): `stopped at --max-pages 3 (3 pages, 300 pets) ...; the server links
 * to more, so the list printed is incomplete`. `fetched` counts the pages and pets of a walk
 * of pets (left out of the message without it).
 */
function maxPagesError(maxPages: number, words: MaxPagesWords, fetched?: { pages: number; pets: number }): CliError {
  const counts = fetched === undefined ? '' : ` (${countOf(fetched.pages, 'page')}, ${countOf(fetched.pets, 'pet')})`;
  const missing = words.missing === undefined ? '' : ` ${words.missing}`;
  return new CliError(
    `stopped at --max-pages ${maxPages}${counts}${missing}; the server links to more, so ${words.outcome}`,
    {
      exitCode: ExitCode.failure,
      code: 'max_pages',
      hint: `Raise --max-pages (at most 10000)${words.narrow === undefined ? '' : `, or narrow ${words.narrow} with --status`}.`,
    },
  );
}

/** Rules of one walk. */
export interface PageWalk<P> {
  /** The base URL every next page must lie within (`PageTrail`). */
  baseUrl: string;
  /** The most pages fetched (1..10000). */
  maxPages: number;
  /** How the stop at `maxPages` is worded (`maxPagesError`). */
  words: MaxPagesWords;
  /** The items a page holds (pets), counted into `before` and the stop's message; none without it. */
  count?: (page: P) => number;
  /** Called after a page is done and the next is certain, just before it is requested (progress). */
  beforeNext?: (pages: number, items: number) => void;
}

/**
 * Yields the answers of a walk in order: `fetchPage(undefined)` (the first page), then
 * `fetchPage(next)` for each `Link: rel="next"` target until a page has none. The next link
 * is read only once the consumer is done with a page, so a page is handled (printed) before
 * a bad link on it fails the walk, and a consumer that stops at a page (`break`, `return`)
 * reads no link of it and sends no further request.
 * @throws what `fetchPage` throws; InvalidResponseError for an unparsable Link header, a
 * next link outside the base URL (the key must stay with its API) or back to a page already
 * fetched (`PageTrail`); CliError `max_pages` (`maxPagesError`) past `maxPages`.
 */
export async function* walkPages<P extends Linked>(
  fetchPage: (next: URL | undefined) => Promise<P>,
  walk: PageWalk<P>,
): AsyncGenerator<WalkedPage<P>, void, undefined> {
  let next: URL | undefined;
  let items = 0;
  const trail = new PageTrail(walk.baseUrl);
  for (let number = 1; ; number++) {
    const res = await fetchPage(next);
    yield { ...res, number, before: items };
    items += walk.count?.(res) ?? 0;
    next = trail.next(res.headers, res.url, number);
    if (next === undefined) return;
    if (number >= walk.maxPages) {
      const fetched = walk.count === undefined ? undefined : { pages: number, pets: items };
      throw maxPagesError(walk.maxPages, walk.words, fetched);
    }
    walk.beforeNext?.(number, items);
  }
}

/**
 * The walk of `listPets(query)`'s pages (`walkPages`), counting the pets. `timeoutMs`, when
 * given, is asked before each request for what is left of the walk's own deadline
 * (`pets watch`: `--timeout` bounds each walk). `from`, when given, is the first page
 * instead of `query`'s (an MCP cursor: a next link of an earlier walk, checked by the
 * caller to lie within the base URL).
 * @throws what `walkPages` throws, and what `listPets` throws (ApiError,
 * InvalidResponseError, NetworkError, TimeoutError).
 */
export function walkPetPages(
  client: PetstoreClient,
  query: ListPetsQuery,
  walk: Omit<PageWalk<ApiResult<Pet[]>>, 'baseUrl' | 'count'> & { timeoutMs?: () => number; from?: URL },
): AsyncGenerator<PetPage, void, undefined> {
  return walkPages((next) => client.listPets(query, next ?? walk.from, walk.timeoutMs?.()), {
    ...walk,
    baseUrl: client.baseUrl,
    count: (page) => page.data.length,
  });
}

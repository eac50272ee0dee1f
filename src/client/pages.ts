/**
 * Walking the pages of `listPets` (spec §4.1) by the server's `Link: rel="next"` headers
 * (RFC 8288), shared by `pets list --all` and `pets get --via-list`. The spec names no
 * paging parameter (§4.4), so petstore never builds a page URL: it follows the links the
 * server sends, on the base URL's origin only, and at most `maxPages` of them.
 */
import type { ApiResult, ListPetsQuery, PetstoreClient } from './client.js';
import { PageTrail } from './link.js';
import type { Pet } from './schemas.js';

/** One page of a walk: the validated pets, headers and URL, and where it lies in the walk. */
export interface PetPage extends ApiResult<Pet[]> {
  /** 1-based number of this page. */
  number: number;
  /** Pets on the pages before this one. */
  before: number;
}

/** Rules of one walk. */
export interface PageWalkOptions {
  /** The most pages fetched (1..10000). */
  maxPages: number;
  /**
   * The error to throw when `maxPages` pages were fetched and the server still links to
   * another; gets the pages and pets fetched (each command words the stop its own way).
   */
  onMaxPages: (pages: number, pets: number) => Error;
  /** Called after a page is done and the next is certain, just before it is requested (progress). */
  beforeNext?: (pages: number, pets: number) => void;
}

/**
 * Yields the pages of `listPets(query)` in order: the first page, then each
 * `Link: rel="next"` target until a page has none. The next link is read only once the
 * consumer is done with a page, so a page is handled (printed) before a bad link on it
 * fails the walk. Stopping the loop early (`break`, `return`) sends no further request.
 * @throws what `listPets` throws (ApiError, InvalidResponseError, NetworkError,
 * TimeoutError); InvalidResponseError for an unparsable Link header, a next link to
 * another origin (the key must stay with its origin) or back to a page already fetched
 * (`PageTrail`); `onMaxPages(...)` past `maxPages`.
 */
export async function* walkPetPages(
  client: PetstoreClient,
  query: ListPetsQuery,
  options: PageWalkOptions,
): AsyncGenerator<PetPage, void, undefined> {
  let next: URL | undefined;
  let pets = 0;
  const trail = new PageTrail(client.baseUrl);
  for (let number = 1; ; number++) {
    const res = await client.listPets(query, next);
    yield { ...res, number, before: pets };
    pets += res.data.length;
    next = trail.next(res.headers, res.url, number);
    if (next === undefined) return;
    if (number >= options.maxPages) throw options.onMaxPages(number, pets);
    options.beforeNext?.(number, pets);
  }
}

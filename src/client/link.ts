/**
 * `Link` header handling (RFC 8288) for the page walker (`pages.ts`: `pets list --all`,
 * `pets get --via-list`, `api --paginate`) and the notes of `pets list`. The server decides
 * the page URLs; petstore never builds them, it only follows `rel="next"`, within the base URL.
 */
import LinkHeader from 'http-link-header';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidResponseError } from '../base/errors.js';
import { basePathOf, isWithinBase } from './paths.js';

/**
 * Finds the `rel="next"` target of a response's `Link` header(s), resolved against the
 * request URL (RFC 8288 §3.1: relative references resolve against the link context, here
 * the request URL). `rel` may hold several space-separated types; http-link-header
 * matches them case-insensitively. Repeated `Link` headers are read as one list
 * (RFC 9110 §5.3). Returns undefined when there is no next link.
 * @throws InvalidResponseError when the header is present but unparsable or the target is not a URL.
 */
export function findNextLink(headers: IncomingHttpHeaders, requestUrl: URL): URL | undefined {
  const raw = headers.link;
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value.trim() === '') return undefined;
  let refs: LinkHeader.Reference[];
  try {
    refs = LinkHeader.parse(value).rel('next');
  } catch (err) {
    throw new InvalidResponseError(`server sent a Link header that cannot be parsed (${(err as Error).message})`, 200);
  }
  const first = refs[0];
  if (first === undefined) return undefined;
  try {
    return new URL(first.uri, requestUrl);
  } catch {
    throw new InvalidResponseError(
      `server sent a Link rel="next" target that is not a URL: ${JSON.stringify(first.uri)}`,
      200,
    );
  }
}

/**
 * Checks that a next-page URL lies within the base URL (`isWithinBase`): on its origin
 * (scheme, host, port) and at its path or below. The bearer key is sent with every page, so
 * it must not leave its origin nor reach a path outside the API (cli-contract.md "Network
 * behaviour", the same rule as for redirects and for `api`'s PATH).
 * @throws InvalidResponseError (exit 1) naming the foreign origin, or the path outside.
 */
export function assertWithinBase(next: URL, baseUrl: string): void {
  if (isWithinBase(next, baseUrl)) return;
  const origin = new URL(baseUrl).origin;
  const hint = 'The pets printed so far are incomplete. Report the Link header to the API operator.';
  if (next.origin !== origin) {
    throw new InvalidResponseError(
      `server's Link rel="next" points to another origin, ${next.origin}; not followed, so the API key stays with ${origin}`,
      200,
      hint,
    );
  }
  const basePath = basePathOf(baseUrl);
  throw new InvalidResponseError(
    `server's Link rel="next" points to ${next.pathname}, outside the base URL's path ${basePath === '' ? '/' : basePath}; not followed, so the API key stays within the API`,
    200,
    hint,
  );
}

/**
 * The pages one walk has fetched, to stop a walk whose `Link: rel="next"` points back to one
 * of them: followed, it would print the same pets again and again until `--max-pages`.
 */
export class PageTrail {
  private readonly seen = new Set<string>();

  /** @param baseUrl the base URL every page must lie within (`assertWithinBase`). */
  constructor(private readonly baseUrl: string) {}

  /**
   * The page to fetch after page `page`, which `url` answered (after redirects): its
   * `Link: rel="next"` target, or undefined on the last page.
   * @throws InvalidResponseError (exit 1) for an unparsable Link, a target on another
   * origin or outside the base path, or one already fetched (a loop).
   */
  next(headers: IncomingHttpHeaders, url: URL, page: number): URL | undefined {
    this.seen.add(pageKey(url));
    const next = findNextLink(headers, url);
    if (next === undefined) return undefined;
    assertWithinBase(next, this.baseUrl);
    if (this.seen.has(pageKey(next))) {
      throw new InvalidResponseError(
        `server's Link rel="next" on page ${page} points back to a page already fetched (${next.pathname}${next.search}); not followed, so the walk ends here`,
        200,
        "The pets printed so far are every pet the server's links lead to. Report the Link header to the API operator.",
      );
    }
    this.seen.add(pageKey(next));
    return next;
  }
}

/** A page's identity: its URL without a fragment (never sent to the server). */
function pageKey(url: URL): string {
  return url.href.replace(/#.*$/, '');
}

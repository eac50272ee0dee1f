/**
 * `Link` header handling for `pets list --all` (RFC 8288). The server decides the page
 * URLs; petstore never builds them, it only follows `rel="next"`.
 */
import LinkHeader from 'http-link-header';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidResponseError } from '../errors.js';

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
 * Checks that a next-page URL is on the base URL's origin (scheme, host, port): the bearer
 * key is sent with every page, so it must not leave its origin (cli-contract.md "Network
 * behaviour", the same rule as for redirects).
 * @throws InvalidResponseError (exit 1) naming the foreign origin.
 */
export function assertSameOrigin(next: URL, baseUrl: string): void {
  const origin = new URL(baseUrl).origin;
  if (next.origin !== origin) {
    throw new InvalidResponseError(
      `server's Link rel="next" points to another origin, ${next.origin}; not followed, so the API key stays with ${origin}`,
      200,
      'The pets printed so far are incomplete. Report the Link header to the API operator.',
    );
  }
}

/**
 * The pages one walk has fetched, to stop a walk whose `Link: rel="next"` points back to one
 * of them: followed, it would print the same pets again and again until `--max-pages`.
 */
export class PageTrail {
  private readonly seen = new Set<string>();

  /** @param baseUrl the base URL whose origin every page must keep (`assertSameOrigin`). */
  constructor(private readonly baseUrl: string) {}

  /**
   * The page to fetch after page `page`, which `url` answered (after redirects): its
   * `Link: rel="next"` target, or undefined on the last page.
   * @throws InvalidResponseError (exit 1) for an unparsable Link, a target on another
   * origin, or one already fetched (a loop).
   */
  next(headers: IncomingHttpHeaders, url: URL, page: number): URL | undefined {
    this.seen.add(pageKey(url));
    const next = findNextLink(headers, url);
    if (next === undefined) return undefined;
    assertSameOrigin(next, this.baseUrl);
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

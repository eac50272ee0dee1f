/**
 * The redirect rule (cli-contract.md "Network behaviour"): same-origin redirects of a GET
 * or HEAD are followed, at most 5; a redirect to another origin is never followed, so the
 * key never leaves its origin; a redirect of any other method is not followed either (its
 * body and its effect would have to be judged again).
 */
import { InvalidResponseError } from '../errors.js';
import { headerValue, type HeaderMap } from './headers.js';

/** Same-origin redirects followed at most. */
export const MAX_REDIRECTS = 5;

/** Whether an answer is a redirect: a 3xx other than 304 Not Modified (which carries no Location). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * Where the redirect answered to `method url` leads, as the `hop`-th redirect (0-based).
 * @throws InvalidResponseError (exit 1) without a Location, to another origin (naming it),
 * for a method other than GET and HEAD, or past `MAX_REDIRECTS`.
 */
export function redirectTarget(status: number, headers: HeaderMap, url: URL, method: string, hop: number): URL {
  const location = headerValue(headers.location);
  if (location === undefined) {
    throw new InvalidResponseError(`server answered ${status} without a Location header`, status);
  }
  const target = new URL(location, url);
  if (target.origin !== url.origin) {
    throw new InvalidResponseError(
      `server redirected (${status}) to another origin, ${target.origin}; not followed, so the API key stays with ${url.origin}`,
      status,
      'If the API has moved, point petstore at the new base URL (--base-url or `petstore config set`).',
    );
  }
  if (method !== 'GET' && method !== 'HEAD') {
    throw new InvalidResponseError(
      `server redirected ${method} ${url.pathname} (${status}) to ${target.pathname}; not followed`,
      status,
    );
  }
  if (hop + 1 > MAX_REDIRECTS)
    throw new InvalidResponseError(`too many redirects (more than ${MAX_REDIRECTS})`, status);
  return target;
}

/**
 * The redirect rule (cli-contract.md "Network behaviour"; RFC 9110 §15.4 leaves following
 * a redirect to the client's judgement): same-origin redirects of a GET or HEAD are
 * followed, at most 5; a redirect to another origin is never followed, so the key never
 * leaves its origin, nor one above the base URL's path (the request's `scope`), so the key
 * never reaches a path outside the API (`/admin` beside `/v1`); a redirect of any other
 * method is not followed either (its body and its effect would have to be judged again).
 */
import { InvalidResponseError } from '../base/errors.js';
import { headerValue, type HeaderMap } from './headers.js';

/**
 * The part of its origin a request's redirects may lead to: the API's base path (built by
 * the API client from the base URL, `client/paths.ts`, which holds the one rule).
 */
export interface RedirectScope {
  /** The base URL's path, for messages (`/v1`). */
  path: string;
  /** Whether `url`, on the request's origin, lies at that path or below it. */
  contains: (url: URL) => boolean;
}

/** Same-origin redirects followed at most. */
const MAX_REDIRECTS = 5;

/** Whether an answer is a redirect: a 3xx other than 304 Not Modified (which carries no Location). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * Where the redirect answered to `method url` leads, as the `hop`-th redirect (0-based),
 * `Location` resolved against `url` (RFC 9110 §10.2.2), dot segments removed.
 * @throws InvalidResponseError (exit 1) without a Location, to another origin (naming it),
 * outside `scope` (naming the target's path), for a method other than GET and HEAD, or past
 * `MAX_REDIRECTS`.
 */
export function redirectTarget(
  status: number,
  headers: HeaderMap,
  url: URL,
  method: string,
  hop: number,
  scope?: RedirectScope,
): URL {
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
  if (scope !== undefined && !scope.contains(target)) {
    throw new InvalidResponseError(
      `server redirected (${status}) to ${target.pathname}, outside the base URL's path ${scope.path}; not followed, so the API key stays within the API`,
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

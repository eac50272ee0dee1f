/**
 * The API's bounds: the base URL's origin and path. The key must never leave its origin nor
 * reach a path outside the API (cli-contract.md "Commands": `api` "never leaves the base
 * URL's origin or climbs above its path"; "Network behaviour": redirects and `Link:
 * rel="next"` the same, for every command). One rule, `isWithinBase`, for the three ways a
 * URL is reached: the path of a raw request (`petstore api`, gh api's shape), refused (exit
 * 2, nothing sent) rather than followed there; a redirect's `Location` (the client hands
 * `baseScope` to the transport); a `Link` target (`PageTrail`). Light on purpose (no zod,
 * no JSON library): the declaration of `api` checks paths before anything is loaded.
 */
import { UsageError } from '../base/errors.js';

/** A scheme followed by `//` (`https://…`), or a scheme of the web with or without it (`http:…`). */
const ABSOLUTE_URL = /^(?:[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}|(?:https?|wss?|ftp|file|data|javascript):)/i;

/**
 * Checks what can be told of a path without the base URL: an absolute URL (`https://other/…`)
 * and a network-path reference (`//host/…`, also with backslashes, which URL parsers read as
 * slashes) lead to another origin.
 * @throws UsageError (exit 2) naming the path and the form to use instead.
 */
export function checkApiPath(path: string): void {
  if (ABSOLUTE_URL.test(path.trimStart())) {
    throw new UsageError(
      `${JSON.stringify(path)} is an absolute URL; petstore api takes a path relative to the base URL, so the API key never leaves its origin`,
      'Give the path after the base URL, e.g. `petstore api pets/7` (the base URL comes from --env, --base-url or the config).',
    );
  }
  if (/^\s*[/\\]{2}/.test(path)) {
    throw new UsageError(
      `${JSON.stringify(path)} starts with // and would name another host; petstore api takes a path relative to the base URL`,
      'Give the path with one leading slash or none, e.g. `petstore api /pets`.',
    );
  }
}

/** The base URL's path without its trailing slashes: `/v1` for `https://host/v1/`, `''` for the root. */
export function basePathOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/**
 * Whether `url` lies within the API: on the base URL's origin (scheme, host, port), and at
 * its path or below it, segment by segment (`/v1`, `/v1/pets`; not `/v1x`, `/admin`).
 * `url` is parsed already, so `.` and `..` segments (percent-encoded ones too) are resolved
 * before it is judged: `/v1/../admin` is `/admin`.
 */
export function isWithinBase(url: URL, baseUrl: string): boolean {
  const base = new URL(baseUrl);
  const basePath = basePathOf(baseUrl);
  return url.origin === base.origin && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
}

/** What a transport is told of the API's bounds (HttpRequest `scope`): the rule, and the path for messages. */
export interface BaseScope {
  /** The base URL's path (`/v1`, `/` for the root). */
  path: string;
  /** `isWithinBase` for this base URL. */
  contains: (url: URL) => boolean;
}

/** The bounds of `baseUrl`, as redirects are held to them. */
export function baseScope(baseUrl: string): BaseScope {
  const path = basePathOf(baseUrl);
  return { path: path === '' ? '/' : path, contains: (url) => isWithinBase(url, baseUrl) };
}

/**
 * Joins `path` to the base URL's path whether or not it starts with `/` (`pets?limit=5` and
 * `/pets?limit=5` both give `…/v1/pets?limit=5`); `.` and `..` segments (also
 * percent-encoded) are resolved, and may not climb above the base path.
 * @throws UsageError (exit 2) as `checkApiPath`, or when the path climbs above the base path.
 */
export function resolveApiPath(baseUrl: string, path: string): URL {
  checkApiPath(path);
  const base = new URL(baseUrl);
  const basePath = basePathOf(baseUrl);
  const url = new URL(`${base.origin}${basePath}/${path.replace(/^\s*[/\\]/, '')}`);
  if (!isWithinBase(url, baseUrl)) {
    throw new UsageError(
      `${JSON.stringify(path)} climbs above the base URL's path ${basePath === '' ? '/' : basePath} (it leads to ${url.pathname}); petstore api stays within the API`,
      `Paths are relative to ${base.origin}${basePath}/, e.g. \`petstore api pets/7\`.`,
    );
  }
  return url;
}

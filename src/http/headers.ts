/**
 * Response and request headers as undici hands them over: an object of lower-case names,
 * a repeated header (`Set-Cookie`, `Link`) as an array of its values (RFC 9110 §5.3).
 */

/** Headers as undici and node:http give them. */
export type HeaderMap = Record<string, string | string[] | undefined>;

/** The first value of a header that may repeat. */
export function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/**
 * Every header as `[name, value]` pairs in the order received, one pair per value of a
 * repeated header (joining `Set-Cookie` values with commas would change their meaning).
 */
export function headerPairs(headers: HeaderMap): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, v]);
  }
  return pairs;
}

/** Headers a server or its gateway names a request by, the first present wins. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'cf-ray'] as const;

/** Control, format and separator characters, escaped as text/escape.ts does (http/ may not import it). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Longest request id kept, in characters; a longer one is cut and ends with `…`. */
const REQUEST_ID_MAX_CHARS = 128;

/**
 * The server's id of the request an answer is for (cli-contract.md "Errors and exit codes":
 * `x-request-id`, else `request-id`, `x-amzn-requestid`, `cf-ray`), as petstore may show it:
 * trimmed, control, bidi and format characters escaped (`\xHH`, `\u{HHHH}`: it is the
 * server's text and reaches terminals), at most REQUEST_ID_MAX_CHARS characters.
 * @returns undefined when none of them is present or non-empty.
 */
export function requestIdOf(headers: HeaderMap | undefined): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headerValue(headers?.[name])?.trim();
    if (value === undefined || value === '') continue;
    const escaped = value.replace(UNSAFE, (c) => {
      const n = c.codePointAt(0) ?? 0;
      return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
    });
    // Header values are Latin-1 (one UTF-16 unit per character), so a cut splits no pair.
    return escaped.length <= REQUEST_ID_MAX_CHARS ? escaped : `${escaped.slice(0, REQUEST_ID_MAX_CHARS - 1)}…`;
  }
  return undefined;
}

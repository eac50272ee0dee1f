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

/**
 * Masking of secrets for anything a person or a log may see (libraries-and-pitfalls.md §7:
 * at most the last 4 characters). Kept free of imports so `auth status` and `config list`
 * can mask a key without loading the HTTP transport.
 */

/**
 * Redacts a key to its last 4 characters at most: keys of 12 characters or more show 4,
 * of 8..11 show 2, shorter ones show none (so little of a short key is ever revealed).
 */
export function maskKey(key: string): string {
  const visible = key.length >= 12 ? 4 : key.length >= 8 ? 2 : 0;
  return `****${visible === 0 ? '' : key.slice(-visible)}`;
}

/**
 * A URL as it may be shown: userinfo (user and password) replaced whole by `***`, so no part
 * of a password leaks however it is written (`user:p@ssw0rd@host`). A value that does not
 * parse as a URL (`user:pa/ssword@host`) is masked from `//` to its last `@`.
 */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username === '' && url.password === '') return raw;
    url.username = '***';
    url.password = '';
    return url.href;
  } catch {
    // Unparsable (e.g. a `/` inside the password): everything up to the last `@` may be secret.
    return raw.includes('//') ? raw.replace(/\/\/.*@/, '//***@') : raw.replace(/^.*@/, '***@');
  }
}

/**
 * True when `key` can travel in `Authorization: Bearer <key>`: visible ASCII only
 * (RFC 9110 §5.5 field values; RFC 6750 §2.1 b64token is stricter still). Anything else
 * (a line break from a pasted file, a non-ASCII character) cannot be sent as is.
 */
export function isSendableKey(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key);
}

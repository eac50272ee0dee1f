/**
 * Escaping of text that came from a server (pet names, Error `code` and `message`, header
 * values) before it reaches a terminal or the tab-separated form (cli-contract.md "Output",
 * "Errors and exit codes"): C0 and C1 control characters could clear the screen, set the
 * window title or forge a line; bidi controls (U+202E, U+2066-2069, ...) and other format
 * characters (zero-width spaces, U+2028/2029) could reorder or hide what is shown.
 */

/** Control (Cc), format (Cf: bidi marks and overrides, zero-width characters) and line/paragraph separators. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The escape of one unsafe character: `\xHH` for C0/DEL/C1 controls, `\u{HHHH}` for the rest. */
function escapeChar(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`;
}

/**
 * Escapes every control, format and separator character of `s` as `\xHH` or `\u{HHHH}`,
 * so the text shows on one line exactly as sent and cannot drive the terminal. A backslash
 * is left alone (the text is for reading, not parsing back).
 */
export function escapeForTerminal(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

/**
 * Like `escapeForTerminal`, but keeps line feeds: for petstore's own multi-line messages.
 * Server text never starts a line of its own (cli-contract.md "Errors and exit codes"): a
 * message that quotes a server escapes that part with `escapeForTerminal` (or
 * `describeApiError`) first, line feeds included; what is left here is petstore's.
 */
export function escapeKeepingLines(s: string): string {
  return s.replace(UNSAFE, (c) => (c === '\n' ? c : escapeChar(c)));
}

/**
 * Escapes a field of the tab-separated form: backslash, tab, CR and LF become `\\`, `\t`,
 * `\r`, `\n` (so each record stays one line of exactly four fields, and can be read back),
 * and every other unsafe character becomes `\xHH` or `\u{HHHH}`.
 */
export function escapeTsvField(s: string): string {
  return s.replace(/[\\\t\r\n]|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    if (c === '\n') return '\\n';
    return escapeChar(c);
  });
}

/**
 * Makes JSON text safe for a terminal without changing its meaning: every control, format
 * or separator character left raw inside a string (JSON.stringify escapes only C0) becomes
 * a `\uHHHH` escape (a surrogate pair beyond the BMP), which parses back to the same value.
 * Tab, CR and LF are left alone: outside strings they are the text's own white space, and
 * inside strings JSON.stringify has already escaped them.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE, (c) =>
    c === '\n' || c === '\t' || c === '\r'
      ? c
      : [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/**
 * Escapes one of jq's raw strings for a terminal: like `escapeForTerminal`, but tabs stay,
 * since a filter lays out columns with them (`"\(.id)\t\(.name)"`) and a tab cannot start
 * a line. Line feeds and carriage returns are escaped: the string may be a server's (a
 * pet's name), which must not forge a line; each value still ends its own line.
 */
export function escapeRawForTerminal(s: string): string {
  return s.replace(UNSAFE, (c) => (c === '\t' ? c : escapeChar(c)));
}

/**
 * An API Error body as one line that petstore may quote inside a message of its own:
 * `MESSAGE (CODE, HTTP STATUS)`, the server's code and message escaped with
 * `escapeForTerminal` (line feeds too), so it cannot forge a line.
 */
export function describeApiError(err: { message: string; code: string; status: number }): string {
  return `${escapeForTerminal(err.message)} (${escapeForTerminal(err.code)}, HTTP ${err.status})`;
}

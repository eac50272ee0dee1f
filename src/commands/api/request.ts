/**
 * The flags of `petstore api` that describe its request, parsed as gh api parses them
 * (cli/cli pkg/cmd/api: `-X`, `-f`, `-F`, `-H`): each refusal is a UsageError (exit 2)
 * naming the flag and the value, before anything is read or sent. Light on purpose: the
 * declaration uses it.
 */
import { INT64_MAX, INT64_MIN, toJsonInt } from '../../client/constants.js';
import { UsageError } from '../../base/errors.js';
import { quote } from '../../base/flag-values.js';

/** An RFC 9110 token (§5.6.2): what a method or a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A field's value as JSON: `-f` gives a string, `-F` a typed value or the content of a file. */
export type FieldValue = string | number | bigint | boolean | null;

/** One `-f`/`-F` field; `readFrom` names the file (`-` = stdin) whose content is its value. */
export interface ApiField {
  flag: '-f' | '-F';
  key: string;
  value: FieldValue;
  readFrom?: string;
}

/**
 * Parses a method (`-X` or the METHOD argument): an RFC 9110 token, upper-cased as gh does.
 * CONNECT opens a tunnel, not a request of the API.
 * @throws UsageError for anything else.
 */
export function parseMethod(raw: string, what: string): string {
  const method = raw.toUpperCase();
  if (!TOKEN.test(raw) || method === 'CONNECT') {
    throw new UsageError(
      `invalid ${what} ${quote(raw)}: must be an HTTP method such as GET, POST, PUT, PATCH or DELETE`,
    );
  }
  return method;
}

/**
 * The methods RFC 9110 §9.3 defines for a resource (CONNECT and TRACE aside: a tunnel, and a
 * loop-back no API serves): the ones the METHOD argument of `api` may name, in any case
 * (cli-contract.md "Commands"). Any other method is given with `-X`.
 */
export const ARGUMENT_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The METHOD argument's method (upper case) when `word` is one of `ARGUMENT_METHODS`, else undefined. */
export function argumentMethod(word: string): string | undefined {
  const method = word.toUpperCase();
  return ARGUMENT_METHODS.includes(method) ? method : undefined;
}

/** Splits `key=value` at the first `=`. @throws UsageError without one, or with an empty or nested key. */
function splitField(raw: string, flag: '-f' | '-F'): { key: string; value: string } {
  const at = raw.indexOf('=');
  if (at < 0) {
    throw new UsageError(`invalid ${flag} ${quote(raw)}: a field is key=value`, `Example: ${flag} name=Rex`);
  }
  const key = raw.slice(0, at);
  if (key === '') throw new UsageError(`invalid ${flag} ${quote(raw)}: the key before = is empty`);
  // gh builds nested objects from `key[sub]=v`; the API's bodies are flat, and a literal
  // bracket in a key would send something other than what gh users expect.
  if (/[[\]]/.test(key)) {
    throw new UsageError(
      `invalid ${flag} ${quote(raw)}: nested fields (key[sub]) are not supported`,
      'Give the whole body as JSON with --input FILE (- for stdin).',
    );
  }
  return { key, value: raw.slice(at + 1) };
}

/** Parses `-f key=value`: the value is a string, as given. @throws UsageError as `splitField`. */
export function parseRawField(raw: string): ApiField {
  const { key, value } = splitField(raw, '-f');
  return { flag: '-f', key, value };
}

/**
 * Parses `-F key=value` (gh's typed field): `true`, `false` and `null` are JSON's; an
 * integer within int64 is a number, exact beyond 2^53 (spec §2 "format int64"; one outside
 * int64 stays a string, as gh leaves what it cannot read as a number); `@file` and `@-`
 * are read later (`readFrom`); anything else is a string.
 * @throws UsageError as `splitField`, or for `@` without a file name.
 */
export function parseTypedField(raw: string): ApiField {
  const { key, value } = splitField(raw, '-F');
  if (value.startsWith('@')) {
    const file = value.slice(1);
    if (file === '') throw new UsageError(`invalid -F ${quote(raw)}: @ needs a file name (@- reads stdin)`);
    return { flag: '-F', key, value: '', readFrom: file };
  }
  if (value === 'true' || value === 'false') return { flag: '-F', key, value: value === 'true' };
  if (value === 'null') return { flag: '-F', key, value: null };
  if (/^[+-]?[0-9]+$/.test(value)) {
    const n = BigInt(value);
    if (n >= INT64_MIN && n <= INT64_MAX) return { flag: '-F', key, value: toJsonInt(n) };
  }
  return { flag: '-F', key, value };
}

/**
 * Headers petstore sets itself or that change how the message is framed or routed; sending
 * another value would break the request or send the key to another virtual host.
 */
const OWN_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
];

/**
 * Parses `-H 'Name: value'` into a lower-case name and its value (white space around the
 * value dropped). The key travels only as petstore sends it (cli-contract.md "Environments":
 * no flag takes the key), so an `Authorization` header is refused.
 * @throws UsageError without `:`, for a name that is not a token, a value with a line
 * break or other control character or a character above U+00FF (cli-contract.md
 * "Commands", `api`: header values are Latin-1), `Authorization` and
 * `Proxy-Authorization`, and the headers of `OWN_HEADERS`.
 */
export function parseHeader(raw: string): [string, string] {
  const at = raw.indexOf(':');
  const name = at < 0 ? '' : raw.slice(0, at).trim();
  if (at < 0 || !TOKEN.test(name)) {
    throw new UsageError(
      `invalid -H ${quote(raw)}: a header is 'Name: value'`,
      "Example: -H 'Accept: application/json'",
    );
  }
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    throw new UsageError(
      `-H ${quote(name)} is refused: petstore sends the environment's key itself, and a key never goes on the command line (every local user can read it)`,
      'Use `petstore auth login`, or set PETSTORE_API_KEY, for the environment you call.',
    );
  }
  if (OWN_HEADERS.includes(lower)) {
    throw new UsageError(`-H ${quote(name)} is refused: petstore sets it itself`);
  }
  const value = raw.slice(at + 1).trim();
  // eslint-disable-next-line no-control-regex -- a field value holds no control character but tab (RFC 9110 §5.5)
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
    throw new UsageError(`invalid -H ${quote(raw)}: a header value cannot hold a line break or control character`);
  }
  // A field value travels as bytes, one per character (RFC 9110 §5.5: ASCII, and obs-text
  // for 0x80-0xFF, which HTTP clients write as Latin-1); a character beyond cannot be sent.
  const wide = /[^\t\u0020-\u00ff]/u.exec(value);
  if (wide !== null) {
    const at = wide[0].codePointAt(0) ?? 0;
    throw new UsageError(
      `invalid -H ${quote(name)}: its value holds ${quote(wide[0])} (U+${at.toString(16).toUpperCase().padStart(4, '0')}); a header value is Latin-1 text (characters up to U+00FF), so it was not sent`,
      'Encode it first in a form the server reads back, e.g. percent-encoded UTF-8.',
    );
  }
  return [lower, value];
}

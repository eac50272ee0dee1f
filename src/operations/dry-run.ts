/**
 * `--dry-run[=curl]` of `pets create` and `api` (cli-contract.md "Commands"): the request a
 * command would send, printed instead of sent, as JSON or as a pasteable curl command. The
 * request comes from the transport that would send it (`HttpTransport.outgoing`), so it is
 * the one the server would receive, field for field; the key is never printed: the
 * Authorization header names `$PETSTORE_API_KEY` instead.
 */
import type { Connection } from '../config/settings.js';
import type { Context } from '../context.js';
import { UsageError } from '../base/errors.js';
import type { OutgoingRequest } from '../http/transport.js';
import { quote } from '../base/flag-values.js';
import { shellQuote, suggestCommand } from '../base/suggest.js';
import { formatCount } from '../text/count.js';

/** How a dry run prints the request: JSON (`--dry-run`) or a curl command (`--dry-run=curl`). */
export type DryRunForm = 'json' | 'curl';

/** What the Authorization header shows instead of the key. */
export const KEY_REFERENCE = '$PETSTORE_API_KEY';

/**
 * Parses the value of `--dry-run`, which is given only with `=` (`prescan` turns a bare
 * `--dry-run` into `--dry-run=`, so that `api --dry-run pets` keeps `pets` as the path).
 * @throws UsageError for anything but nothing or `curl`.
 */
export function parseDryRun(raw: string): DryRunForm {
  if (raw === '') return 'json';
  if (raw === 'curl') return 'curl';
  throw new UsageError(
    `invalid --dry-run value ${quote(raw)}: the one value is curl (--dry-run=curl prints a curl command)`,
    '--dry-run alone prints the request as JSON.',
  );
}

/** The form asked for: commander gives `true` for a bare flag when `prescan` did not run. */
export function dryRunForm(flag: DryRunForm | true | undefined): DryRunForm | undefined {
  return flag === true ? 'json' : flag;
}

/**
 * Refuses `--jq` with a dry run: it filters an answer, and a dry run receives none.
 * @throws UsageError (exit 2).
 */
export function checkDryRunFlags(form: DryRunForm | undefined, globals: { jq?: string | undefined }): void {
  if (form !== undefined && globals.jq !== undefined) {
    throw new UsageError(
      '--jq filters the answer, and a dry run receives none',
      "Filter the printed request with jq itself: ... --dry-run | jq '.headers'",
    );
  }
}

/**
 * The request as one JSON object: `method`, `url`, `headers` (lower-case names, in the order
 * sent) and `body`, the exact text sent or null without one; a body that is not UTF-8 is
 * `bodyBase64` instead.
 */
export function dryRunJson(req: OutgoingRequest): string {
  const text = req.body === undefined ? undefined : utf8(req.body);
  const body =
    req.body === undefined
      ? { body: null }
      : text === undefined
        ? { body: null, bodyBase64: req.body.toString('base64') }
        : { body: text };
  return `${JSON.stringify({ method: req.method, url: req.url.href, headers: req.headers, ...body }, null, 2)}\n`;
}

/**
 * The request as a POSIX sh command (curl 7.55 or later: `-H @-`). The key stays out of
 * every argv: `printf`, a shell builtin, writes the Authorization header from
 * `$PETSTORE_API_KEY` to curl's stdin. Every other header is given as sent, so that curl's
 * own (`Accept: *\/*`, its User-Agent, a form Content-Type) do not stand in for them; curl
 * writes `Host` and a body's `Content-Length` itself, with the same values. `--data-raw`
 * keeps a body starting with `@` from naming a file.
 * @throws UsageError (exit 2) for the embedded sandbox, whose server stops with this run
 * (pointing to `petstore sandbox serve`), and for a body a shell word cannot carry (a NUL
 * byte, not UTF-8, or 128 KiB or more: Linux's limit on one argument).
 */
export function dryRunCurl(req: OutgoingRequest, connection: Pick<Connection, 'environment'>): string {
  if (connection.environment.value === 'sandbox') {
    throw new UsageError(
      '--dry-run=curl cannot be used with --env sandbox: the embedded sandbox stops when this command ends, so the curl command would reach nothing; run `petstore sandbox serve` instead',
      'A dry run needs a base URL and a key source: paste the export lines `petstore sandbox serve` prints (PETSTORE_BASE_URL, PETSTORE_API_KEY), then run this command again without --env sandbox.',
    );
  }
  const text = req.body === undefined ? undefined : utf8(req.body);
  if (req.body !== undefined && (text === undefined || text.includes('\0'))) {
    throw new UsageError(
      '--dry-run=curl cannot write this body into a shell command: it is not UTF-8 text, or holds a NUL byte',
      '--dry-run prints the request as JSON, the body in base64.',
    );
  }
  if (req.body !== undefined && req.body.length >= MAX_ARG_BYTES) {
    throw new UsageError(
      `--dry-run=curl cannot write this body into a shell command: its ${formatCount(req.body.length)} bytes are more than one argument of a command may hold (${MAX_ARG_BYTES / 1024} KiB on Linux)`,
      '--dry-run prints the request as JSON.',
    );
  }
  const args = ['curl', '-sS'];
  if (req.method === 'HEAD') args.push('--head');
  else if (!(req.method === 'GET' && text === undefined) && !(req.method === 'POST' && text !== undefined)) {
    args.push('-X', req.method);
  }
  let key = false;
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization') {
      key = true;
      args.push('-H', '@-');
    } else if (name === 'host' || (name === 'content-length' && text !== undefined)) {
      continue;
    } else {
      // `Name:` alone would make curl drop the header; `Name;` sends it empty.
      args.push('-H', value === '' ? `${name};` : `${name}: ${value}`);
    }
  }
  // Older curls ask for `Expect: 100-continue` above 1 KiB of body (newer ones above 1 MiB);
  // petstore never does, and an empty `Expect:` keeps curl from it.
  if (text !== undefined && req.body !== undefined && req.body.length > 1024) args.push('-H', 'Expect:');
  if (text !== undefined) args.push('--data-raw', text);
  args.push(req.url.href);
  const curl = args.map(shellQuote).join(' ');
  return key ? `printf 'Authorization: Bearer %s\\n' "${KEY_REFERENCE}" | ${curl}\n` : `${curl}\n`;
}

/**
 * The note under a curl form (cli-contract.md "Commands": "a note on stderr gives the
 * `export` line when that variable is unset"): the command reads the key from
 * `$PETSTORE_API_KEY`, so where that variable is unset (`keyVariableSet` false), or holds a
 * key this run ignored for the environment's own (the `--env` flag's rule), the pasted
 * command would send an empty or another key. The line that sets it runs `auth token` for
 * the same environment (and `--base-url`). Undefined when nothing needs saying (the key
 * came from the variable itself, or there is no key: the sandbox).
 */
function curlKeyNote(
  connection: Pick<Connection, 'environment' | 'apiKey'>,
  keyVariableSet: boolean,
  baseUrlFlag: string | undefined,
): string | undefined {
  if (connection.environment.value === 'sandbox' || connection.apiKey.source === 'env') return undefined;
  const token = suggestCommand('auth token', { env: connection.environment.value, envFlag: true, baseUrlFlag });
  const why = keyVariableSet
    ? `PETSTORE_API_KEY here holds a key this run ignored for ${connection.environment.value}`
    : 'PETSTORE_API_KEY is not set here';
  return `the curl command reads the key from $PETSTORE_API_KEY, and ${why}; set it first with \`export PETSTORE_API_KEY="$(${token})"\``;
}

/** Says `curlKeyNote`'s note on stderr, when there is one, on a terminal or not (`--quiet` drops it). */
export function noteCurlKey(
  ctx: Pick<Context, 'env' | 'globals' | 'note'>,
  connection: Pick<Connection, 'environment' | 'apiKey'>,
): void {
  const note = curlKeyNote(connection, ctx.env.isSet('PETSTORE_API_KEY'), ctx.globals.baseUrl);
  if (note !== undefined) ctx.note(note, { always: true });
}

/** Linux's limit on one argument of a command, its closing NUL included (MAX_ARG_STRLEN). */
const MAX_ARG_BYTES = 128 * 1024;

/** `bytes` as text when they are UTF-8, else undefined. */
function utf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * `petstore api`: one request of any method to a path under the base URL, with the
 * environment's key, `--timeout`, the retry policy, proxies and TLS rules of every command,
 * its answer printed as it is (`answerPrinter` in render/output.ts). gh api's shape (cli/cli
 * pkg/cmd/api), with petstore's exit codes: an answer of 400 or more prints its body on
 * stdout and exits 6, 4, 5 or 1 with the error on stderr (cli-contract.md "Errors and exit
 * codes").
 */
import type { PetstoreClient } from '../../client/client.js';
import { findNextLink } from '../../client/link.js';
import { walkPages, type WalkedPage } from '../../client/pages.js';
import { confirmWrite } from '../../operations/confirm-writes.js';
import type { Context } from '../../context.js';
import {
  KEY_REFERENCE,
  checkDryRunFlags,
  dryRunCurl,
  dryRunJson,
  noteCurlKey,
  type DryRunForm,
} from '../../operations/dry-run.js';
import { DeprecationReporter } from '../../http/deprecation.js';
import { ExitCode, InvalidResponseError, UsageError } from '../../base/errors.js';
import { MAX_BODY_BYTES } from '../../http/body.js';
import type { HttpRequest, RawResponse } from '../../http/transport.js';
import { Deadline } from '../../http/deadline.js';
import { stringifyJson } from '../../base/json.js';
import { readBounded } from '../../fs/read-input.js';
import type { ApiField, FieldValue } from './request.js';
import { jsonArrayOf } from '../../render/answer.js';
import { answerPrinter, type AnswerPrinter } from '../../render/output.js';
import { describeTarget } from '../../render/target.js';
import { countOf } from '../../text/count.js';
import { reasonPhrase } from '../../http/reason.js';

/** Typed options of `api` (see `toApiOptions`). */
export interface ApiOptions {
  /** Upper case: the METHOD argument, `-X`, or GET / POST by gh's rule. */
  method: string;
  /** Relative to the base URL's path; already checked not to name another origin. */
  path: string;
  /** `-f` then `-F` fields, in order; a field's `readFrom` is read before anything is sent. */
  fields: ApiField[];
  /** `--input FILE` (`-` = stdin): the raw body. */
  input: string | undefined;
  /** `-H` headers, lower-case names. */
  headers: Record<string, string>;
  /** `-i`: the status line and headers before the body. */
  include: boolean;
  /** `--paginate`: follow `Link: rel="next"`; array pages print as one array. */
  paginate: boolean;
  /** With `paginate`: the most pages fetched (1..10000). */
  maxPages: number;
  /** `--dry-run[=curl]`: print the request instead of sending it. */
  dryRun?: DryRunForm | undefined;
}

/**
 * Sends the request and prints the answer; with `paginate`, every page. On a terminal, a
 * method other than GET and HEAD is followed by a summary line on stderr (`POST /v1/pets:
 * 201 Created in production (api.example.com)`), whatever the status.
 * @throws UsageError (exit 2, nothing sent) for `--output` other than json, an `--input` or
 * `@file` that cannot be read, is over 10 MiB or does not end within `--timeout`, a path
 * that climbs above the base path; InterruptedError (exit 130, 143) on a signal while they
 * are read; the answer's error (an ApiError or InvalidResponseError: exit 6, 4, 5 or 1)
 * after its body is printed; NetworkError, TimeoutError, TlsError; CliError `max_pages`
 * (exit 1); CliError `not_confirmed` (exit 2, nothing sent) for a method other than GET or
 * HEAD to an environment with `confirmWrites` that was not confirmed. With `dryRun`, the
 * request is printed instead (`dry-run.ts`), unconfirmed and unsent; `dryRunCurl`'s
 * UsageError for the sandbox.
 */
export async function runApi(ctx: Context, options: ApiOptions): Promise<number> {
  if (ctx.globals.outputExplicit && ctx.globals.output !== 'json') {
    throw new UsageError(
      `--output ${ctx.globals.output} does not apply to petstore api: it prints the server's body as it is`,
      'Leave --output out (or use --output json, which only makes errors JSON on stderr).',
    );
  }
  checkDryRunFlags(options.dryRun, ctx.globals);
  const { fields, input } = await readUserInput(ctx, options);
  // A read of one answer leaves before --jq's verdict; a refused expression drops the answer.
  const reads = options.dryRun === undefined && !options.paginate && isRead(options.method);
  const { client, connection } = await ctx.connect({ reads, dryRun: options.dryRun !== undefined });
  const req = toRequest(client.urlOf(options.path), options, fields, input);
  const early = reads ? client.raw(req) : undefined;
  early?.catch(() => undefined);
  const output = await ctx.recordOutput();
  const deprecation = new DeprecationReporter((m) => ctx.warn(m), ctx.now);
  const observe = (res: RawResponse): void => {
    deprecation.observeAndFlush(res.headers, `${options.method} ${res.url.pathname}`);
  };
  const printer = answerPrinter(output, options.include);
  if (options.dryRun !== undefined) {
    // Nothing is sent, so nothing is asked: the request is only shown.
    const outgoing = client.outgoing(req, KEY_REFERENCE);
    await ctx.io.out(options.dryRun === 'curl' ? dryRunCurl(outgoing, connection) : dryRunJson(outgoing));
    if (options.dryRun === 'curl') noteCurlKey(ctx, connection);
    return ExitCode.ok;
  }
  if (!isRead(req.method)) await confirmWrite(ctx, connection, describeWrite(req));
  if (options.paginate) return paginate(client, req, printer, observe, options.maxPages);
  const res = await (early ?? client.raw(req));
  // The answer first, then what it says of itself: a reader sees the body, then the warning.
  await printer.answer(res);
  observe(res);
  // A write names where it went, on a terminal only (cli-contract.md "Environments").
  if (!isRead(options.method)) {
    ctx.io.summary(
      `${options.method} ${req.url.pathname}: ${res.status} ${reasonPhrase(res.status)}`.trimEnd(),
      describeTarget(connection),
    );
  }
  const failure = client.answerError(res);
  if (failure !== undefined) throw failure;
  return ExitCode.ok;
}

/** Whether `method` only reads (GET, HEAD): sent unconfirmed, and before `--jq`'s verdict. */
function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** The most characters of a body shown in the question of `confirmWrites`. */
const PREVIEW_CHARS = 60;

/**
 * A write in the words of the `confirmWrites` question: the method and URL, and the body's
 * size with its start, e.g. `POST https://api.example.com/v1/pets with 27 bytes: {"name":"Rex"…`.
 */
function describeWrite(req: HttpRequest): string {
  const head = `${req.method} ${req.url.href}`;
  if (req.body === undefined) return `${head}, no body`;
  const text = req.body.toString();
  const bytes = Buffer.byteLength(req.body);
  const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
  return `${head} with ${countOf(bytes, 'byte')}: ${preview}`;
}

/**
 * The request: fields go to the query string of a GET or HEAD, and whenever `--input` gives
 * the body; otherwise they are the JSON body (int64 exact).
 */
function toRequest(
  url: URL,
  options: ApiOptions,
  fields: [string, FieldValue][],
  input: Buffer | undefined,
): HttpRequest {
  const toQuery = input !== undefined || options.method === 'GET' || options.method === 'HEAD';
  if (toQuery) for (const [key, value] of fields) url.searchParams.append(key, value === null ? '' : String(value));
  const body = input ?? (!toQuery && fields.length > 0 ? stringifyJson(Object.fromEntries(fields)) : undefined);
  return { method: options.method, url, body, headers: options.headers };
}

/**
 * Walks the pages (`walkPages`: `Link: rel="next"` within the base URL, at most `maxPages`),
 * printing the elements of each page into one array (closed on failure too: what was
 * fetched is printed, the exit code says whether it is complete). A first page that is an
 * error or not an array prints as it is, alone, and a next link on it is not followed.
 * @throws the error of an answer of 400 or more; InvalidResponseError for a page that is
 * not a JSON array, a next link outside the base URL or back to a page already fetched;
 * CliError `max_pages`.
 */
async function paginate(
  client: PetstoreClient,
  req: HttpRequest,
  printer: AnswerPrinter,
  observe: (res: RawResponse) => void,
  maxPages: number,
): Promise<number> {
  const notAnArray = (page: number): InvalidResponseError =>
    new InvalidResponseError(
      `page ${page} is not a JSON array; --paginate joins array pages only, so the Link rel="next" was not followed`,
      200,
      'Leave out --paginate to print one answer as it is.',
    );
  // `array`: a first page was an array, which `printer.end` closes; `complete`: every page printed.
  const walk = { array: false, complete: false };
  // Whether the walk goes on: true after a page of the array, false after a first page
  // printed alone (an error, or not an array), whose next link is not followed.
  const onPage = async (res: WalkedPage<RawResponse>): Promise<boolean> => {
    observe(res);
    const failure = client.answerError(res);
    const items = jsonArrayOf(res.body);
    if (walk.array || (items !== undefined && failure === undefined)) {
      if (failure !== undefined) throw failure;
      if (items === undefined) throw notAnArray(res.number);
      walk.array = true;
      await printer.page(res, items);
      return true;
    }
    await printer.answer(res);
    if (failure !== undefined) throw failure;
    if (findNextLink(res.headers, res.url) !== undefined) throw notAnArray(1);
    return false;
  };
  try {
    const pages = walkPages(
      (next) => client.raw(next === undefined ? req : { method: 'GET', url: next, headers: req.headers }),
      { baseUrl: client.baseUrl, maxPages, words: { outcome: 'the array printed is incomplete' } },
    );
    for await (const res of pages) if (!(await onPage(res))) return ExitCode.ok;
    walk.complete = true;
    return ExitCode.ok;
  } finally {
    if (walk.array) await printer.end(walk.complete);
  }
}

/**
 * The fields with every `@file` / `@-` read (as UTF-8 text, gh's rule), as key and value,
 * then the `--input` body: all of it within the byte cap (10 MiB each) and one deadline
 * (`--timeout`, counted from the first read), before anything is sent.
 * @throws UsageError (exit 2) naming a file that cannot be read, is larger or did not end in
 * time; InterruptedError on Ctrl-C or SIGTERM (exit 130, 143).
 */
async function readUserInput(
  ctx: Pick<Context, 'globals' | 'signal' | 'io' | 'note'>,
  options: ApiOptions,
): Promise<{ fields: [string, FieldValue][]; input: Buffer | undefined }> {
  const deadline = new Deadline(ctx.globals.timeoutMs, ctx.signal);
  const read = (name: string, what: string): Promise<Buffer> => {
    if (name === '-' && ctx.io.stdinIsTTY) ctx.note(`reading ${what} from the terminal; end it with Ctrl-D`);
    return readBounded(
      { what, name, stdin: ctx.io.stdin },
      {
        maxBytes: MAX_BODY_BYTES,
        signal: deadline.signal,
        timeoutSignal: deadline.timeoutSignal,
        timeoutMs: deadline.timeoutMs,
      },
    );
  };
  try {
    const fields: [string, FieldValue][] = [];
    for (const f of options.fields) {
      fields.push([
        f.key,
        f.readFrom === undefined ? f.value : (await read(f.readFrom, `-F ${f.key}=@`)).toString('utf8'),
      ]);
    }
    const input = options.input === undefined ? undefined : await read(options.input, '--input');
    return { fields, input };
  } finally {
    deadline.dispose();
  }
}

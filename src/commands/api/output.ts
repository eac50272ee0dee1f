/**
 * How `petstore api` prints an answer (cli-contract.md "Output"): piped, the body's bytes as
 * the server sent them; on a terminal, JSON indented (int64 exact) and server text escaped,
 * the headers of `-i` too. The pages of `--paginate` that are JSON arrays print as one
 * array, never as documents one after another.
 */
import { STATUS_CODES } from 'node:http';
import type { RawResponse } from '../../http/transport.js';
import type { Io } from '../../io.js';
import { parseJson } from '../../json.js';
import { escapeForTerminal, escapeKeepingLines } from '../../text/escape.js';
import { CliError, ExitCode } from '../../errors.js';
import type { JqFilter } from '../../render/jq.js';
import { JQ_MAX_INPUT_BYTES, writeJqOutcome } from '../../render/output.js';
import { renderJson, renderJsonArrayEnd, renderJsonArrayItem } from '../../render/pets.js';

/**
 * Writes text or bytes to stdout and waits until the stream has taken them.
 * @throws OutputError when stdout cannot be written (EPIPE: its reader went away; ENOSPC).
 */
function writeStdout(io: Io, data: string | Buffer): Promise<void> {
  return io.out(data);
}

/** The body as JSON (exact int64), or undefined when it is not JSON. */
export function parseBody(body: Buffer): { value: unknown } | undefined {
  if (body.length === 0) return undefined;
  try {
    return { value: parseJson(body.toString('utf8').replace(/^\uFEFF/, '')) };
  } catch {
    return undefined;
  }
}

/**
 * The status line and headers of `-i`, then a blank line (curl's and gh's form, with line
 * feeds): `HTTP/1.1 200 OK`, one `name: value` line per value. On a terminal every
 * character a server could drive it with is escaped.
 */
function renderHead(io: Io, res: RawResponse): string {
  const reason = STATUS_CODES[res.status] ?? '';
  const lines = [`HTTP/1.1 ${res.status}${reason === '' ? '' : ` ${reason}`}`];
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  // On a terminal each line is escaped on its own: a header value never starts a line.
  return `${(io.stdoutIsTTY ? lines.map(escapeForTerminal) : lines).join('\n')}\n\n`;
}

/**
 * The body as printed: piped, its bytes as they are; on a terminal, JSON indented and
 * escaped, any other text escaped (line feeds kept: the body is the document asked for,
 * shown as curl and gh show it, not a message of petstore's), ending with a line feed.
 */
function renderBody(io: Io, body: Buffer): string | Buffer {
  if (!io.stdoutIsTTY || body.length === 0) return body;
  const json = parseBody(body);
  if (json !== undefined) return renderJson(json.value);
  const text = escapeKeepingLines(body.toString('utf8'));
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * What prints the answers of one `api` run: one answer, or the pages of `--paginate`. The
 * one place the output is chosen: a filter of JSON values (such as `--jq`) is another
 * printer behind the same two calls.
 */
export interface AnswerPrinter {
  /** Prints one answer whole (`-i` head included when asked). */
  answer(res: RawResponse): Promise<void>;
  /** Adds the elements of one page of `--paginate`; `items` are the page's JSON array. */
  page(res: RawResponse, items: unknown[]): Promise<void>;
  /**
   * Closes what `page` opened (the array), on success and on failure alike; `complete`
   * says whether every page was fetched.
   */
  end(complete: boolean): Promise<void>;
}

/** The printer of the body as it is (see the module comment). */
export function exactPrinter(io: Io, include: boolean): AnswerPrinter {
  let count = 0;
  return {
    answer: async (res) => {
      if (include) await writeStdout(io, renderHead(io, res));
      await writeStdout(io, renderBody(io, res.body));
    },
    page: async (res, items) => {
      if (items.length === 0) return;
      if (io.stdoutIsTTY) {
        await writeStdout(io, items.map((item, i) => renderJsonArrayItem(item, count + i === 0)).join(''));
      } else {
        // The elements' own bytes, between the page's outer brackets: exact, whatever the
        // server's spacing and numbers.
        await writeStdout(io, `${count === 0 ? '[' : ','}${arrayInner(res.body)}`);
      }
      count += items.length;
    },
    end: async () => {
      // Incomplete too: the array is closed so stdout parses; the exit code tells the rest.
      await writeStdout(io, io.stdoutIsTTY ? renderJsonArrayEnd(count) : count === 0 ? '[]\n' : ']\n');
    },
  };
}

/** The text between a JSON array's outer brackets, as the server sent it (exact numbers). */
function arrayInner(body: Buffer): string {
  const text = body.toString('utf8');
  return text.slice(text.indexOf('[') + 1, text.lastIndexOf(']')).trim();
}

/**
 * The printer of `--jq` (gh api's rule): the filter runs on a JSON answer of less than 400,
 * fed the body's own text (int64 exact), its values printed one per line, strings raw; an
 * answer of 400 or more prints as it is (the error is the exit code's to tell); `-i` prints
 * the head first. With `--paginate` it runs once, at the end, on one array of every page's
 * elements, and not at all when a page failed: a filter such as `length` would print a
 * count that looks whole.
 * @throws CliError `jq` (exit 1) for a body that is not JSON or a filter that stops with an
 * error; `jq_input_too_large` (exit 1) past JQ_MAX_INPUT_BYTES of pages.
 */
export function jqPrinter(io: Io, include: boolean, jq: JqFilter, jqMessage: (line: string) => void): AnswerPrinter {
  const out = { io, jqMessage };
  const inners: string[] = [];
  let bytes = 2;
  return {
    answer: async (res) => {
      if (include) await writeStdout(io, renderHead(io, res));
      if (res.status >= 400) return writeStdout(io, renderBody(io, res.body));
      if (res.body.length === 0) return;
      if (parseBody(res.body) === undefined) throw notJson(res);
      await writeJqOutcome(out, await jq.apply(res.body.toString('utf8').replace(/^\uFEFF/, '')));
    },
    page: (res) => {
      const inner = arrayInner(res.body);
      bytes += Buffer.byteLength(inner) + 1;
      if (bytes > JQ_MAX_INPUT_BYTES) return Promise.reject(pagesTooLarge());
      if (inner !== '') inners.push(inner);
      return Promise.resolve();
    },
    end: async (complete) => {
      const text = `[${inners.join(',')}]`;
      inners.length = 0;
      if (complete) await writeJqOutcome(out, await jq.apply(text));
    },
  };
}

function notJson(res: RawResponse): CliError {
  const type = res.headers['content-type'];
  return new CliError(
    `--jq: the answer is not JSON${typeof type === 'string' ? ` (content-type: ${escapeForTerminal(type)})` : ''}; nothing was printed`,
    { exitCode: ExitCode.failure, code: 'jq', hint: 'Leave out --jq to see the answer as it is.' },
  );
}

function pagesTooLarge(): CliError {
  const mib = JQ_MAX_INPUT_BYTES / 1024 / 1024;
  return new CliError(
    `the pages are too large for --jq as one array: more than ${mib} MiB of JSON; nothing was printed`,
    {
      exitCode: ExitCode.failure,
      code: 'jq_input_too_large',
      hint: 'Filter the pages one at a time (leave out --paginate and follow the Link header), or ask for less.',
    },
  );
}

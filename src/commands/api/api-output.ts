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
import { escapeForTerminal, escapeKeepingLines } from '../../render/escape.js';
import { renderJson, renderJsonArrayEnd, renderJsonArrayItem } from '../../render/pets.js';

/**
 * Writes text or bytes to stdout and waits until the stream has taken them.
 * @throws OutputError when stdout cannot be written (EPIPE: its reader went away; ENOSPC).
 */
export function writeStdout(io: Io, data: string | Buffer): Promise<void> {
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
export function renderHead(io: Io, res: RawResponse): string {
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
export function renderBody(io: Io, body: Buffer): string | Buffer {
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
  /** Closes what `page` opened (the array), on success and on failure alike. */
  end(): Promise<void>;
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
        const text = res.body.toString('utf8');
        const inner = text.slice(text.indexOf('[') + 1, text.lastIndexOf(']')).trim();
        await writeStdout(io, `${count === 0 ? '[' : ','}${inner}`);
      }
      count += items.length;
    },
    end: async () => {
      await writeStdout(io, io.stdoutIsTTY ? renderJsonArrayEnd(count) : count === 0 ? '[]\n' : ']\n');
    },
  };
}

/**
 * Pure renderers of an HTTP answer as `petstore api` prints it (cli-contract.md "Output"):
 * piped, the body's bytes as the server sent them; on a terminal, JSON indented (int64
 * exact) and server text escaped, the headers of `-i` too.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parseJson } from '../base/json.js';
import { escapeForTerminal, escapeKeepingLines } from '../text/escape.js';
import { renderJson } from './pets.js';
import { reasonPhrase } from '../http/reason.js';

/** What is printed of an answer: its status, headers and body as received. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The body as JSON (exact int64, a leading BOM ignored), or undefined when it is not JSON. */
export function parseBody(body: Buffer): { value: unknown } | undefined {
  if (body.length === 0) return undefined;
  try {
    return { value: parseJson(body.toString('utf8').replace(/^\uFEFF/, '')) };
  } catch {
    return undefined;
  }
}

/** The body's JSON array (exact int64), or undefined when the body is not one. */
export function jsonArrayOf(body: Buffer): unknown[] | undefined {
  const json = parseBody(body);
  return json !== undefined && Array.isArray(json.value) ? (json.value as unknown[]) : undefined;
}

/**
 * The status line and headers of `-i`, then a blank line (curl's and gh's form, with line
 * feeds): `HTTP/1.1 200 OK`, one `name: value` line per value. On a terminal
 * (`terminal`) every character a server could drive it with is escaped.
 */
export function renderHead(res: Answer, terminal: boolean): string {
  const reason = reasonPhrase(res.status);
  const lines = [`HTTP/1.1 ${res.status}${reason === '' ? '' : ` ${reason}`}`];
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  // On a terminal each line is escaped on its own: a header value never starts a line.
  return `${(terminal ? lines.map(escapeForTerminal) : lines).join('\n')}\n\n`;
}

/**
 * The body as printed: piped, its bytes as they are; on a terminal, JSON indented and
 * escaped, any other text escaped (line feeds kept: the body is the document asked for,
 * shown as curl and gh show it, not a message of petstore's), ending with a line feed.
 */
export function renderBody(body: Buffer, terminal: boolean): string | Buffer {
  if (!terminal || body.length === 0) return body;
  const json = parseBody(body);
  if (json !== undefined) return renderJson(json.value);
  const text = escapeKeepingLines(body.toString('utf8'));
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The text between a JSON array's outer brackets, as the server sent it (exact numbers). */
export function arrayInner(body: Buffer): string {
  const text = body.toString('utf8');
  return text.slice(text.indexOf('[') + 1, text.lastIndexOf(']')).trim();
}

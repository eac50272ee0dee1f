/**
 * The MCP tools' results (cli-contract.md "Agents"): the structured form (`structuredContent`,
 * ids and category ids as decimal strings, exact whatever their size), a short text form
 * with every control, bidi and format character of the store's text escaped
 * (`text/escape.ts`), failures as results with `isError` carrying the CLI's `{code,
 * message, status}` and hint (`errorFields`), and the cap on a result's size
 * (`--max-result-bytes`). Every result is built by `success` or `failure`, which mask every
 * key the run used in it, text and structured form alike (`usedKeys`; cli-contract.md
 * "Agents": the key is in no frame), whatever a server echoed.
 */
import type { Pet } from '../../client/schemas.js';
import { errorFields } from '../../base/errors.js';
import { usedKeys } from '../../base/mask.js';
import { escapeForTerminal } from '../../text/escape.js';
import type { JsonObject, McpToolResult } from './spec.js';

/** A pet as a result holds it: ids as decimal strings. */
export interface PetOut {
  id: string;
  name: string;
  categoryId: string;
  status?: string;
}

/** `pet` with its int64 fields as decimal strings (a JavaScript client would round a number above 2^53). */
export function petOut(pet: Pet): PetOut {
  return {
    id: String(pet.id),
    name: pet.name,
    categoryId: String(pet.categoryId),
    ...(pet.status === undefined ? {} : { status: pet.status }),
  };
}

/** One pet on one line: `9007199254740993 "Atlas" category 1 available`, the name escaped. */
export function petLine(pet: PetOut): string {
  const status = pet.status === undefined ? '' : ` ${pet.status}`;
  return `${pet.id} "${escapeForTerminal(pet.name)}" category ${pet.categoryId}${status}`;
}

/**
 * A result of `structured`, with `lines` (petstore's words and escaped store text) as its
 * text form; every key the run used masked in both.
 */
export function success(structured: JsonObject, lines: string[]): McpToolResult {
  return usedKeys.maskValue({ content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured });
}

/**
 * A failure as a result (`isError`), never a protocol error: the CLI's `{code, message,
 * status}`, its hint and extra fields (`requestId`, `retryAfter`) in the structured form;
 * the text form escaped, ending with `(request ID)` when the server sent one; every key the
 * run used masked in both (a server's message may quote its `Authorization` header).
 */
export function failure(err: unknown): McpToolResult {
  const { code, message, status, hint, details } = errorFields(err);
  const error = { code, message, status, ...(hint === undefined ? {} : { hint }), ...details };
  const requestId = details?.requestId;
  const request = typeof requestId === 'string' ? ` (request ${requestId})` : '';
  const lines = [`error (${code}${status === 0 ? '' : `, HTTP ${status}`}): ${escapeForTerminal(message)}${request}`];
  if (hint !== undefined) lines.push(escapeForTerminal(hint));
  return usedKeys.maskValue({
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error },
    isError: true,
  });
}

/** The size of `result` as its frame carries it, in bytes (UTF-8 JSON). */
export function resultBytes(result: McpToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/**
 * The most pets of `pets` (in order) whose result, built by `build`, stays within
 * `maxBytes`: a binary search over how many are kept. Returns that count (0 when even an
 * empty list is over).
 */
export function petsWithin(pets: PetOut[], maxBytes: number, build: (kept: PetOut[]) => McpToolResult): number {
  if (resultBytes(build(pets)) <= maxBytes) return pets.length;
  let lo = 0;
  let hi = pets.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (resultBytes(build(pets.slice(0, mid))) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

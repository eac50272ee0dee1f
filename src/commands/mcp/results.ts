/**
 * The MCP tools' results (cli-contract.md "Agents"): the structured form (`structuredContent`,
 * ids and category ids as decimal strings, exact whatever their size), a short text form in
 * which every string from the store is JSON-encoded (`storeText`: quotes, backslashes,
 * control, bidi and format characters escaped, so a pet's name cannot forge a line), failures
 * as results with `isError` carrying the CLI's `{code, message, status}` and a hint in the
 * agent's terms (`failure`: tools and arguments, never CLI flags or commands, but in a
 * sentence addressed to the person running the server), and the cap on a result's size
 * (`--max-result-bytes`). Every result is built by `success` or `failure`, which mask every
 * key the run used in it, text and structured form alike (`usedKeys`; cli-contract.md
 * "Agents": the key is in no frame), whatever a server echoed.
 */
import type { Pet } from '../../client/schemas.js';
import { errorFields } from '../../base/errors.js';
import { usedKeys } from '../../base/mask.js';
import { escapeForTerminal, escapeJsonText } from '../../text/escape.js';
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

/**
 * `value` as JSON on one line for a text form an agent reads: JSON.stringify escapes quotes,
 * backslashes and C0 controls; every other control, bidi and format character (U+202A-202E,
 * U+2066-2069, U+200E/200F, U+061C, U+2028/2029, ...) becomes `\uXXXX` too, so store text
 * can neither end its string nor reorder what is shown.
 */
export function storeText(value: unknown): string {
  return escapeJsonText(JSON.stringify(value));
}

/**
 * One pet on one line, its fields JSON-encoded, ids as strings:
 * `{"id":"9007199254740993","name":"Atlas","categoryId":"1","status":"available"}`.
 */
export function petLine(pet: PetOut): string {
  // As storeText(pet), the escaping scan kept to the name: the ids are digits, the status one of three words.
  const status = pet.status === undefined ? '' : `,"status":${JSON.stringify(pet.status)}`;
  return `{"id":"${pet.id}","name":${storeText(pet.name)},"categoryId":"${pet.categoryId}"${status}}`;
}

/**
 * A result of `structured`, with `lines` (petstore's words and escaped store text) as its
 * text form; every key the run used masked in both.
 */
export function success(structured: JsonObject, lines: string[]): McpToolResult {
  return usedKeys.maskValue({ content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured });
}

/**
 * Where a sentence of petstore's own is addressed to the person running the server: the only
 * place a result may name a CLI flag or command (what only that person can change).
 */
export const ASK_THE_PERSON = 'Ask the person running the server to';

/** A CLI flag (`--all`, `-L`) or a petstore command: words an agent cannot use. */
const CLI_WORDS = /(?:^|[\s(`'"])--?[a-z]|\bpetstore [a-z]/i;

/**
 * The hint of a failure whose CLI hint names flags or commands, in an agent's terms, by
 * what failed: what the agent can do with the tools, and what only the person can.
 */
function agentHint(code: string, status: number): string | undefined {
  if (status === 401 || code === 'auth' || code === 'key_command') {
    return `${ASK_THE_PERSON} check this environment's API key (\`petstore auth status\`), then restart the server.`;
  }
  switch (code) {
    case 'timeout':
      return `Call the tool again; if it keeps timing out, ${ASK_THE_PERSON.charAt(0).toLowerCase()}${ASK_THE_PERSON.slice(1)} restart it with a larger --timeout.`;
    case 'network':
    case 'tls':
    case 'proxy':
    case 'config':
      return `${ASK_THE_PERSON} check the environment's base URL, network and proxy settings (\`petstore config list\`).`;
    default:
      return undefined;
  }
}

/**
 * A message of petstore's in the agent's terms: the deadline named for what it is, not by
 * its flag (`--timeout leaves 12 s` → `the call's deadline leaves 12 s`). The result size cap
 * needs no rewording: its messages are composed by the MCP server itself.
 */
function agentMessage(message: string): string {
  return message
    .replace(/the --timeout deadline/g, "the call's deadline")
    .replace(/--timeout leaves/g, "the call's deadline leaves");
}

/**
 * A failure as a result (`isError`), never a protocol error: the CLI's `{code, message,
 * status}`, extra fields (`requestId`, `retryAfter`, `lookup`) and a hint in the agent's
 * terms in the structured form; the text form escaped, ending with `(request ID)` when the
 * server sent one. A CLI hint that names a flag or a command is replaced by the agent's words
 * for the failure (`agentHint`), or dropped when there are none; a hint already addressed
 * to the agent (naming tools and arguments) is kept. Every key the run used is masked in
 * both forms (a server's message may quote its `Authorization` header).
 */
export function failure(err: unknown): McpToolResult {
  const fields = errorFields(err);
  const { code, status, details } = fields;
  const message = agentMessage(fields.message);
  const hint =
    fields.hint === undefined || !CLI_WORDS.test(fields.hint) || fields.hint.startsWith(ASK_THE_PERSON)
      ? fields.hint
      : agentHint(code, status);
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

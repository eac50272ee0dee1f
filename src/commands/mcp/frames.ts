/**
 * The stdio transport of `petstore mcp` (built into `dist/mcp.cjs` with the SDK; it knows
 * nothing of petstore): newline-delimited JSON-RPC 2.0 frames read with a bound, where the
 * SDK's own stdio transport closes on a frame over its cap and drops lines that are not
 * JSON-RPC without an answer (cli-contract.md "Agents": every frame with a readable id is
 * answered; the server ends only at end of stdin or a signal).
 *
 * - A frame over `maxFrameBytes` is skipped to its newline without being held (its first
 *   and last 4 KiB are kept, to read its id) and answered `-32600` with its id, or `null`.
 * - A frame that is not JSON: `-32700` (parse error); one that is JSON but not a JSON-RPC
 *   message (MCP's schema): `-32600` (invalid request). Either answer carries the frame's id
 *   when one can be read (a string of at most 256 characters, or a finite number), else
 *   `null` (JSON-RPC 2.0 §5). A valid notification gets no answer, as JSON-RPC says.
 * - Every error answer (a JSON-RPC error, or a result with `isError`) is at most
 *   `maxErrorBytes`: its longest strings are cut in the middle with an ellipsis, so what
 *   it quotes of a bad input cannot make it grow with that input.
 * - The end of the input ends the transport only once every request it delivered is
 *   answered (or cancelled by its client); requests this side sent and the client can no
 *   longer answer are answered for it with an error, so that nothing waits on them.
 */
import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/** The most bytes of one frame: 10 MiB, the SDK's own default (`STDIO_DEFAULT_MAX_BUFFER_SIZE`). */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

/** How much of an oversized frame's start and end is kept, to read its id. */
const EDGE_BYTES = 4096;

/** The longest string id answered as such; a longer one is unreadable (`null`). */
const MAX_ID_CHARS = 256;

/** A JSON-RPC request id, or `null` when none could be read. */
type Id = string | number | null;

/** JSON-RPC 2.0 error codes (§5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Options of a `LineTransport`. */
export interface LineTransportOptions {
  input: Readable;
  output: Writable;
  /** The most bytes of one inbound frame (`MAX_FRAME_BYTES`). */
  maxFrameBytes: number;
  /** The most bytes of one error answer (`--max-result-bytes`). */
  maxErrorBytes: number;
}

/** A Transport (the SDK's interface) over newline-delimited JSON-RPC on two streams. */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Settles once the transport closed (its input ended and its requests were answered, or `close`). */
  readonly closed: Promise<void>;

  private resolveClosed!: () => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** While skipping a frame over the cap: its first and last bytes, and its size. */
  private oversized: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  /** Requests delivered and not yet answered, by id (JSON of the id, so 1 and "1" differ). */
  private readonly inbound = new Set<string>();
  /** Requests sent to the client and not yet answered. */
  private readonly outbound = new Map<string, Id>();
  private ended = false;
  private isClosed = false;

  constructor(private readonly options: LineTransportOptions) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  start(): Promise<void> {
    const { input } = this.options;
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('error', this.onInputError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.isClosed) return Promise.reject(new Error('the transport is closed'));
    if ('id' in message && ('result' in message || 'error' in message)) this.inbound.delete(key(message.id));
    else if ('id' in message && 'method' in message) this.outbound.set(key(message.id), message.id);
    let json = JSON.stringify(message);
    if (isError(message) && Buffer.byteLength(json) > this.options.maxErrorBytes) {
      json = boundStrings(message, this.options.maxErrorBytes);
    }
    const sent = new Promise<void>((resolve, reject) => {
      this.options.output.write(`${json}\n`, (err) => (err ? reject(err) : resolve()));
    });
    // The answer is on its way: once the input ended and nothing is under way, close.
    void sent.then(
      () => this.closeWhenAnswered(),
      () => undefined,
    );
    return sent;
  }

  close(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    this.isClosed = true;
    const { input } = this.options;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('error', this.onInputError);
    this.chunks = [];
    this.onclose?.();
    this.resolveClosed();
    return Promise.resolve();
  }

  private readonly onInputError = (err: Error): void => this.onerror?.(err);

  private readonly onEnd = (): void => {
    if (this.size > 0 || this.oversized !== undefined) this.endFrame();
    this.ended = true;
    // The client can answer nothing more: what this side asked it is answered for it.
    for (const id of this.outbound.values()) {
      this.deliver({ jsonrpc: '2.0', id: id ?? 0, error: { code: -32000, message: "the client's input ended" } });
    }
    this.outbound.clear();
    this.closeWhenAnswered();
  };

  private closeWhenAnswered(): void {
    if (this.ended && this.inbound.size === 0) void this.close();
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endFrame();
      start = newline + 1;
    }
  };

  /** Adds a piece of the current frame, or of the oversized frame being skipped. */
  private take(piece: Buffer): void {
    if (this.oversized === undefined && this.size + piece.length <= this.options.maxFrameBytes) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    if (this.oversized === undefined) {
      const held = Buffer.concat(this.chunks, this.size);
      this.oversized = { head: Buffer.from(held.subarray(0, EDGE_BYTES)), tail: Buffer.alloc(0), bytes: this.size };
      this.chunks = [];
      this.size = 0;
      if (this.oversized.head.length < EDGE_BYTES) {
        const more = piece.subarray(0, EDGE_BYTES - this.oversized.head.length);
        this.oversized.head = Buffer.concat([this.oversized.head, more]);
      }
    }
    const tail = Buffer.concat([this.oversized.tail, piece.subarray(Math.max(0, piece.length - EDGE_BYTES))]);
    this.oversized.tail = Buffer.from(tail.subarray(Math.max(0, tail.length - EDGE_BYTES)));
    this.oversized.bytes += piece.length;
  }

  /** A frame ended (a newline, or the end of the input): delivers or answers it. */
  private endFrame(): void {
    const over = this.oversized;
    this.oversized = undefined;
    if (over !== undefined) {
      const id = idFromHead(over.head.toString('utf8')) ?? idFromTail(over.tail.toString('utf8')) ?? null;
      this.answer(
        id,
        INVALID_REQUEST,
        `Invalid Request: the frame is ${over.bytes} bytes, over the limit of ${this.options.maxFrameBytes} bytes a frame`,
      );
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.answer(idFromHead(line) ?? null, PARSE_ERROR, 'Parse error: the frame is not JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.refuse(value);
      return;
    }
    // The schema's union would take a request with a bad id for a notification, dropping the id.
    if (hasId(value) !== 'id' in message) {
      this.refuse(value);
      return;
    }
    if ('id' in message && typeof message.id === 'string' && message.id.length > MAX_ID_CHARS) {
      this.answer(null, INVALID_REQUEST, `Invalid Request: an id longer than ${MAX_ID_CHARS} characters`);
      return;
    }
    this.deliver(message);
  }

  private deliver(message: JSONRPCMessage): void {
    if (!('method' in message)) this.outbound.delete(key(message.id));
    // A subscription (`subscriptions/listen`, 2026-07-28) is answered only when it ends: it
    // does not hold the end of the input.
    else if ('id' in message && message.method !== 'subscriptions/listen') this.inbound.add(key(message.id));
    else if (message.method === 'notifications/cancelled') {
      // A cancelled request is not answered (MCP): it no longer holds the end.
      const id: unknown = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.inbound.delete(key(id));
      this.closeWhenAnswered();
    }
    this.onmessage?.(message);
  }

  /** Answers JSON that is not a JSON-RPC message: each readable id of it, else once with `null`. */
  private refuse(value: unknown): void {
    const elements = Array.isArray(value) ? value : [value];
    const why = Array.isArray(value)
      ? 'Invalid Request: batches are not part of MCP; send one message a frame'
      : 'Invalid Request: not a JSON-RPC 2.0 message of MCP';
    const ids = elements.flatMap((element) => {
      const id = readableId(element);
      return id === undefined ? [] : [id];
    });
    if (ids.length === 0) ids.push(null);
    for (const id of ids) this.answer(id, INVALID_REQUEST, why);
  }

  private answer(id: Id, code: number, message: string): void {
    const frame = { jsonrpc: '2.0' as const, id, error: { code, message } };
    this.send(frame as unknown as JSONRPCMessage).catch((err: unknown) => {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    });
  }
}

/** The key of an id in the sets of requests under way. */
function key(id: unknown): string {
  return JSON.stringify(id ?? null);
}

function hasId(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'id' in value;
}

/** Whether `message` says a failure: a JSON-RPC error, or a tool result with `isError`. */
function isError(message: JSONRPCMessage): boolean {
  if ('error' in message) return true;
  return 'result' in message && (message.result as { isError?: unknown }).isError === true;
}

/** The id of a JSON value that looks like a request, when it is one that can be answered. */
function readableId(value: unknown): Id | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('id' in value)) return undefined;
  const { id } = value;
  if (typeof id === 'string' && id.length <= MAX_ID_CHARS) return id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  return undefined;
}

/** The top-level `"id"` of the JSON object that `text` starts (perhaps cut short), if it comes before the text ends. */
function idFromHead(text: string): Id | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i++;
  let depth = 1;
  let expectKey = true;
  while (i < text.length && depth > 0) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        const colon = skipSpace(text, end + 1);
        if (text[colon] !== ':') return undefined;
        if (text.slice(i, end + 1) === '"id"') return valueAt(text, skipSpace(text, colon + 1));
        expectKey = false;
        i = colon + 1;
        continue;
      }
      i = end + 1;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
    i++;
  }
  return undefined;
}

/** The `"id"` that ends the JSON object `text` ends with (`…,"id":7}`), as the official client writes it. */
function idFromTail(text: string): Id | undefined {
  const match = /[{,]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(text);
  if (match?.[1] === undefined) return undefined;
  return readableId({ id: JSON.parse(match[1]) as unknown });
}

/** The id value at `i` of `text`, when it is complete and followed by `,` or `}`. */
function valueAt(text: string, i: number): Id | undefined {
  let end: number;
  if (text[i] === '"') {
    end = stringEnd(text, i);
    if (end === -1) return undefined;
    end++;
  } else {
    const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number === null) return undefined;
    end = i + number[0].length;
  }
  const after = text[skipSpace(text, end)];
  if (after !== ',' && after !== '}') return undefined;
  try {
    return readableId({ id: JSON.parse(text.slice(i, end)) as unknown });
  } catch {
    return undefined;
  }
}

/** The index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++;
  return i;
}

/**
 * `message` as JSON of at most `maxBytes` bytes when it can be: every string of its body
 * longer than the longest length that fits is cut in the middle (its start and end kept,
 * joined by `…`); `jsonrpc` and `id` are kept whole.
 */
function boundStrings(message: JSONRPCMessage, maxBytes: number): string {
  const { jsonrpc, id, ...body } = message as { jsonrpc: string; id?: unknown } & Record<string, unknown>;
  const longest = longestString(body);
  const render = (max: number): string =>
    JSON.stringify({ jsonrpc, ...(id === undefined ? {} : { id }), ...(cutStrings(body, max) as object) });
  let low = 0;
  let high = longest;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (Buffer.byteLength(render(mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return render(low);
}

function longestString(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  let longest = 0;
  for (const item of Object.values(value)) longest = Math.max(longest, longestString(item));
  return longest;
}

function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') return cut(value, max);
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, max));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, max)]));
}

/** `text` of at most `max` UTF-16 units plus `…`: its start and end, no surrogate pair split. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = Math.ceil(max / 2);
  let tail = text.length - Math.floor(max / 2);
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail++;
  return `${text.slice(0, head)}…${text.slice(tail)}`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

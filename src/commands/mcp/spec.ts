/**
 * What `petstore mcp` hands the SDK's side (`sdk.ts`, built into `dist/mcp.cjs`): plain
 * data and callbacks, types only, so the two bundles share no code and no class.
 */
import type { Readable, Writable } from 'node:stream';

/** A JSON object: a JSON Schema, or a result's structured form. */
export type JsonObject = Record<string, unknown>;

/** A tool's result (MCP `CallToolResult`): a short text form, the structured form, and whether it failed. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: JsonObject;
  isError?: boolean;
}

/**
 * The person's answer to a question (MCP elicitation's `action`), or `stale`: the client
 * handed back an answer given to another question (another pet or environment).
 */
type McpAnswer = 'accept' | 'decline' | 'cancel' | 'stale';

/** What a tool call may do besides its work: its cancellation, asking the client's person, progress. */
export interface McpCall {
  /** Aborted when the client cancels the call (`notifications/cancelled`) or the server closes. */
  signal: AbortSignal;
  /** Whether the client declared elicitation (it can ask its person), in the call's protocol era. */
  canAsk(): boolean;
  /**
   * Asks the person a yes-or-no question `message`, which names all it asks about (the
   * answer holds for that exact text alone). Asked before the call acts: in the 2026-07-28
   * era the question ends the round (this rejects, and the call's result is set aside) and
   * is answered when the client calls again.
   */
  ask(message: string): Promise<McpAnswer>;
  /**
   * Reports progress (`notifications/progress`) when the client sent a progress token, else
   * nothing: `done` so far (pages fetched), and the `total` when known.
   */
  progress(done: number, total?: number): void;
}

/** One tool: its description, JSON Schemas, annotations and call. */
export interface McpToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  /** Runs the call; never throws (a failure is a result with `isError`). */
  call(args: unknown, call: McpCall): Promise<McpToolResult>;
}

/** One text resource. */
export interface McpResourceSpec {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  text(): string;
}

/** The whole server. */
export interface McpServerSpec {
  name: string;
  version: string;
  instructions: string;
  tools: McpToolSpec[];
  resources: McpResourceSpec[];
  /** Where JSON-RPC frames arrive (the process's stdin); its end ends the server once the requests under way are answered. */
  input: Readable;
  /** Where frames go (stdout, through Io). */
  output: Writable;
  /** `--max-result-bytes`: the most bytes of one error answer (its quoted input cut to fit). */
  maxResultBytes: number;
  /** An error outside any answer (a failed write, a refused requestState's reason). */
  onError(err: Error): void;
}

/** A running server. */
export interface McpSession {
  /** Settles when the transport closed (its input ended and the requests under way were answered). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** What `dist/mcp.cjs` exports. */
export interface McpModule {
  serve(spec: McpServerSpec): Promise<McpSession>;
}

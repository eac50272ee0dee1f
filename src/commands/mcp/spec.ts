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

/** What a tool call may do besides its work: its cancellation, and asking the client's person. */
export interface McpCall {
  /** Aborted when the client cancels the call (`notifications/cancelled`) or the server closes. */
  signal: AbortSignal;
  /** Whether the client declared elicitation (it can ask its person). */
  canAsk(): boolean;
  /** Asks the person a yes-or-no question through elicitation. */
  ask(message: string): Promise<'accept' | 'decline' | 'cancel'>;
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
  /** Where JSON-RPC frames arrive (the process's stdin, ended by petstore once calls under way are answered). */
  input: Readable;
  /** Where frames go (stdout, through Io). */
  output: Writable;
  /** A transport error (a frame that is not JSON-RPC). */
  onError(err: Error): void;
}

/** A running server. */
export interface McpSession {
  /** Settles when the transport closed (its input ended). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** What `dist/mcp.cjs` exports. */
export interface McpModule {
  serve(spec: McpServerSpec): Promise<McpSession>;
}

/**
 * The entry of `dist/mcp.cjs`, the one file that holds the Model Context Protocol SDK
 * (`@modelcontextprotocol/server` 2.x), loaded only by `petstore mcp` (`load-sdk.ts`): the
 * SDK never reaches the bundle every other command starts. It knows nothing of petstore:
 * `serve` registers the tools and resources it is given, each with JSON Schemas made by
 * the caller, and speaks newline-delimited JSON-RPC over the streams it is given
 * (cli-contract.md "Agents").
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { JsonObject, McpServerSpec, McpSession, McpToolResult } from './spec.js';

/**
 * A Standard Schema (what the SDK takes for `inputSchema` and `outputSchema`) that lists
 * `json` in `tools/list` and lets every value through: the tool checks its own arguments,
 * so that a bad one is refused in petstore's words (`{code, message, status}`) rather than
 * the SDK's.
 */
function passThrough(json: JsonObject) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'petstore',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * Starts a server on `spec.input` and `spec.output` with `spec`'s tools and resources.
 * Returns once it listens; `McpSession.closed` settles when the transport closes.
 */
export async function serve(spec: McpServerSpec): Promise<McpSession> {
  const server = new McpServer({ name: spec.name, version: spec.version }, { instructions: spec.instructions });
  for (const tool of spec.tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: passThrough(tool.inputSchema),
        outputSchema: passThrough(tool.outputSchema),
        annotations: tool.annotations,
      },
      async (args: unknown, ctx): Promise<McpToolResult> =>
        tool.call(args, {
          signal: ctx.mcpReq.signal,
          // The clients of today ask their person by the request elicitation/create (the 2025
          // protocol), which the SDK serves on every connection that negotiated it.
          // eslint-disable-next-line @typescript-eslint/no-deprecated
          canAsk: () => server.server.getClientCapabilities()?.elicitation !== undefined,
          ask: async (message) => {
            // eslint-disable-next-line @typescript-eslint/no-deprecated
            const answer = await ctx.mcpReq.elicitInput(
              { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
              { signal: ctx.mcpReq.signal },
            );
            return answer.action;
          },
        }),
    );
  }
  for (const resource of spec.resources) {
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: resource.mimeType, text: resource.text() }] }),
    );
  }
  const transport = new StdioServerTransport(spec.input, spec.output);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onerror = (err) => spec.onError(err);
  await server.connect(transport);
  return { closed, close: () => server.close() };
}

/**
 * The entry of `dist/mcp.cjs`, the one file that holds the Model Context Protocol SDK
 * (`@modelcontextprotocol/server` 2.x), loaded only by `petstore mcp` (`assets.ts`): the
 * SDK never reaches the bundle every other command starts. It knows nothing of petstore:
 * `serve` registers the tools and resources it is given, each with JSON Schemas made by
 * the caller, and speaks newline-delimited JSON-RPC over the streams it is given, through
 * petstore's bounded line reader (`frames.ts`) (cli-contract.md "Agents").
 *
 * Both protocol eras are served from one server factory (`serveStdio`): an `initialize`
 * opening pins a 2025-11-25 instance, a `server/discover` opening (or a request carrying the
 * 2026-07-28 envelope) a 2026-07-28 one; the same tools, resources and instructions in
 * both. A tool asks its person through multi-round-trip requests (`inputRequired`): a
 * 2026-07-28 client fulfils the question and calls again with the answer and the
 * `requestState` it was handed; for a 2025 client the SDK's shim asks by
 * `elicitation/create` and calls again in-process. The `requestState` is sealed with an
 * HMAC-SHA256 under a random secret of this server (`createRequestStateCodec`, which the
 * SDK asks for: the state comes back as the client's input) and names the tool and the
 * exact question, so an answer holds for the pet and environment it was given for alone.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { LineTransport, MAX_FRAME_BYTES } from './frames.js';
import type { JsonObject, McpCall, McpServerSpec, McpSession, McpToolResult, McpToolSpec } from './spec.js';

/** What a sealed `requestState` says: the question a tool asked, and which tool asked it. */
interface Question {
  tool: string;
  question: string;
}

/** The key of the one question a tool asks in a round (`inputRequests`, `inputResponses`). */
const CONFIRM = 'confirm';

/** How long a question handed to a client stays answerable (the codec's TTL), in seconds. */
const QUESTION_TTL_SECONDS = 600;

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
 * Starts a server on `spec.input` and `spec.output` with `spec`'s tools and resources,
 * for a client of either era. Returns once it listens; `McpSession.closed` settles when
 * the transport closes (its input ended and the requests under way were answered).
 */
export function serve(spec: McpServerSpec): Promise<McpSession> {
  const codec = questionSealer();
  const transport = new LineTransport({
    input: spec.input,
    output: spec.output,
    maxFrameBytes: MAX_FRAME_BYTES,
    maxErrorBytes: spec.maxResultBytes,
  });
  const handle = serveStdio(({ era }) => serverOf(spec, codec, era), {
    transport,
    onerror: (err) => spec.onError(err),
  });
  return Promise.resolve({ closed: transport.closed, close: () => handle.close() });
}

/**
 * The sealer of questions (`createRequestStateCodec`: HMAC-SHA256, a TTL), made at its
 * first use with a random secret of this server: one process serves every round of a
 * question (stdio), so a state sealed by another server, or before a restart, is refused.
 * Made late because Web Crypto and the secret cost the start of a server that never asks.
 */
function questionSealer(): RequestStateCodec<Question> {
  let codec: RequestStateCodec<Question> | undefined;
  const sealer = (): RequestStateCodec<Question> =>
    (codec ??= createRequestStateCodec<Question>({
      key: globalThis.crypto.getRandomValues(new Uint8Array(32)),
      ttlSeconds: QUESTION_TTL_SECONDS,
    }));
  return { mint: (payload, ctx) => sealer().mint(payload, ctx), verify: (state, ctx) => sealer().verify(state, ctx) };
}

/** One server instance of `era`, with `spec`'s tools, resources and instructions. */
function serverOf(spec: McpServerSpec, codec: RequestStateCodec<Question>, era: 'legacy' | 'modern'): McpServer {
  const server = new McpServer(
    { name: spec.name, version: spec.version },
    { instructions: spec.instructions, requestState: { verify: (state, ctx) => codec.verify(state, ctx) } },
  );
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
      (args: unknown, ctx) => callTool(tool, args, ctx, codec, era, server),
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
  return server;
}

/**
 * One round of a tool call. When the tool asks a question this round has no answer to, its
 * result is set aside (nothing was sent: the tool asks before it acts) and the round ends
 * with the question (`inputRequired`) and a sealed state naming it; the next round, with
 * the person's answer and that state, runs the tool again, and its question, asked again,
 * gets the answer when it is the same question.
 */
async function callTool(
  tool: McpToolSpec,
  args: unknown,
  ctx: ServerContext,
  codec: RequestStateCodec<Question>,
  era: 'legacy' | 'modern',
  server: McpServer,
) {
  const state = ctx.mcpReq.requestState<Question>();
  let pending: string | undefined;
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const call: McpCall = {
    signal: ctx.mcpReq.signal,
    canAsk: () => {
      // A 2026-07-28 request declares its client's capabilities itself; a 2025 client at initialize.
      const declared =
        era === 'modern'
          ? (ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[
              CLIENT_CAPABILITIES_META_KEY
            ]
          : // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025 era's own accessor, as its deprecation note says
            server.server.getClientCapabilities();
      return declared?.elicitation !== undefined;
    },
    ask: (message) => {
      if (state !== undefined) {
        if (state.tool !== tool.name || state.question !== message) return Promise.resolve('stale');
        const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
        if (answer.kind === 'elicit') return Promise.resolve(answer.action);
      }
      pending = message;
      return Promise.reject(new Error('the answer comes with the next round of this call'));
    },
    progress: (done, total) => {
      if (progressToken === undefined) return;
      ctx.mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken, progress: done, ...(total === undefined ? {} : { total }) },
        })
        .catch(() => undefined);
    },
  };
  const result: McpToolResult = await tool.call(args, call);
  if (pending === undefined) return result;
  return inputRequired({
    inputRequests: {
      [CONFIRM]: inputRequired.elicit({
        mode: 'form',
        message: pending,
        requestedSchema: { type: 'object', properties: {} },
      }),
    },
    requestState: await codec.mint({ tool: tool.name, question: pending }),
  });
}

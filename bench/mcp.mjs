// `petstore mcp`: the time one `list_pets` call adds over its HTTP round trip. A client (the
// official one, over stdio) calls list_pets N times in a row against the bench server, and
// this process sends N plain GETs of the same URL (node:http, one kept-alive connection);
// each side's median per call, and the difference: the server's own cost per call (its
// JSON-RPC frames, the argument checks, a client and transport per call, the result's
// structured and text forms). The server's start (spawn, initialize) is not counted.
import { request, Agent } from 'node:http';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median } from './lib.mjs';

/** One GET of `url` with `key`, the body read whole; resolves its wall time in ms. */
function timedGet(url, key, agent) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      url,
      { agent, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Measures `calls` list_pets calls through `petstore mcp` (`cli`, a bin/petstore.js, run
 * with `env`, whose PETSTORE_BASE_URL and PETSTORE_API_KEY point at the bench server) and
 * `calls` plain GETs of `${baseUrl}/pets`, after `warmup` of each.
 * Resolves { calls, mcpMedianMs, getMedianMs, overheadMs }.
 */
export async function benchMcp({ cli, env, baseUrl, apiKey, calls = 200, warmup = 20 }) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], env, stderr: 'ignore' });
  const client = new Client({ name: 'petstore-bench', version: '1.0.0' });
  await client.connect(transport);
  const mcp = [];
  for (let i = 0; i < warmup + calls; i++) {
    const started = process.hrtime.bigint();
    const r = await client.callTool({ name: 'list_pets', arguments: {} });
    if (r.isError) throw new Error(`list_pets failed: ${JSON.stringify(r.structuredContent)}`);
    if (i >= warmup) mcp.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await client.close();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = [];
  for (let i = 0; i < warmup + calls; i++) {
    const ms = await timedGet(`${baseUrl}/pets`, apiKey, agent);
    if (i >= warmup) get.push(ms);
  }
  agent.destroy();
  const mcpMedianMs = median(mcp);
  const getMedianMs = median(get);
  return { calls, mcpMedianMs, getMedianMs, overheadMs: mcpMedianMs - getMedianMs };
}

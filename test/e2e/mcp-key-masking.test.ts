/**
 * `petstore mcp` masks every key it used (cli-contract.md "Agents": the key is in no frame;
 * "Errors and exit codes": every key the run used is masked in every message), the built
 * CLI driven by the official MCP client over stdio against a test server on 127.0.0.1
 * that quotes the request's `Authorization` header in its Error body (`code`, `message`,
 * a URL with the key URL-encoded), in a response header, in its request id, and in a pet's
 * name: every tool, failures and successes, with `--verbose` on stderr; a key from
 * PETSTORE_API_KEY (one with `"`, `\` and `/` too) and one from an `apiKeyCommand`, read
 * again after a 401. Every byte of stdout and of stderr is searched.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/base/mask.js';
import { mcpEnv, mcpTestServers, serveMcp, type Served } from '../helpers/mcp-client.js';
import { expectedTools, OPERATIONS } from '../helpers/operations.js';
import { tempDir } from '../helpers/temp-config.js';
import { runMain } from '../helpers/run-main.js';
import type { Handler } from '../helpers/test-server.js';

const PLAIN = 'SECRETKEY-abc123-mcp';
/** A key with the characters JSON escapes (`"`, `\`) and a URL encodes (`/`). */
const ODD = 'SECRET"KEY\\abc/123-mcp';
const FROM_COMMAND = 'mcp-cmd-SECRETKEY-first';
const REREAD = 'mcp-cmd-SECRETKEY-second';

const { pool, servers } = mcpTestServers();

/** The ways a key may be written: as it is, JSON-escaped (as a frame holds it), URL-encoded. */
function formsOf(key: string): string[] {
  return [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)];
}

/** Fails when any form of any of `keys` is in any byte `served` wrote, on stdout or stderr. */
function expectNowhere(served: Served, keys: string[]): void {
  const stdout = Buffer.concat(served.transport.stdoutBytes).toString('utf8');
  expect(stdout).toContain('"jsonrpc"');
  for (const key of keys) {
    for (const form of formsOf(key)) {
      expect(stdout, `a frame holds ${form}`).not.toContain(form);
      expect(served.transport.stderr, `stderr holds ${form}`).not.toContain(form);
    }
  }
}

/**
 * A server that answers `status` to every request, quoting the key it was sent (and every
 * key sent before it) in its Error body's code and message, in `x-echo` and in its request
 * id; a 200 is a list (or a pet) whose name quotes it.
 */
function echoing(status: () => number): Handler {
  const seen: string[] = [];
  return (req) => {
    const auth = req.headers.authorization ?? '';
    const key = auth.replace(/^Bearer /, '');
    if (!seen.includes(key)) seen.push(key);
    const headers = { 'x-echo': auth, 'x-request-id': `req-${key}` };
    const now = status();
    if (now < 300) {
      const pet = { id: 7, name: `Rex ${auth}`, categoryId: 1, status: 'available' };
      return {
        status: req.method === 'POST' ? 201 : 200,
        headers,
        body: req.url.startsWith('/v1/pets/') || req.method === 'POST' ? pet : [pet],
      };
    }
    return {
      status: now,
      headers,
      body: {
        code: `refused-${key}`,
        message: `bad header Authorization: ${auth} (keys seen: ${seen.join(', ')}); see /help?key=${encodeURIComponent(key)}`,
        status: now,
      },
    };
  };
}

/** Every tool, with valid arguments, as the declarations say (`create_pet` among them: the server allows writes). */
const TOOLS = expectedTools(true).map((tool) => {
  const op = OPERATIONS.find((o) => o.tool?.name === tool.name)!;
  return { name: tool.name, arguments: op.arguments ?? {} };
});

/** Calls every tool once per status in `statuses`; returns the text of each failure. */
async function callEvery(served: Served, statuses: number[], set: (s: number) => void): Promise<string[]> {
  const failures: string[] = [];
  for (const status of statuses) {
    set(status);
    for (const tool of TOOLS) {
      const r = await served.client.callTool(tool);
      expect(r.isError ?? false, `${tool.name} ${status}`).toBe(status >= 300);
      if (r.isError === true) failures.push(JSON.stringify(r));
    }
  }
  return failures;
}

describe('petstore mcp: the key in no frame and nowhere on stderr, whatever the server echoes', () => {
  it.each([PLAIN, ODD])('PETSTORE_API_KEY %s: every tool, HTTP 400, 401, 500 and 200, --verbose', async (key) => {
    let status = 400;
    const srv = await pool.start(echoing(() => status));
    const env = mcpEnv({ PETSTORE_BASE_URL: srv.baseUrl, PETSTORE_API_KEY: key });
    const served = await serveMcp(['mcp', '--allow-writes', '--yes', '--verbose', '--retries', '0'], env);
    servers.push(served);
    const failures = await callEvery(served, [400, 401, 500, 200], (s) => (status = s));
    expect(srv.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);
    expect(failures).toHaveLength(TOOLS.length * 3);
    // The server's words reach the client, with the mask where the key was.
    for (const f of failures) expect(f).toContain(`bad header Authorization: Bearer ${maskKey(key)}`);
    expect(served.transport.stderr).toContain(`< x-echo: Bearer ${maskKey(key)}`);
    await served.transport.close();
    expect(await served.transport.exit).toEqual({ code: 0, signal: null });
    expectNowhere(served, [key]);
  });

  it('a key from an apiKeyCommand, and the one it prints after a 401: both masked in every later result', async () => {
    const dir = tempDir();
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, `${FROM_COMMAND}\n`);
    const script = join(dir, 'print-key.sh');
    writeFileSync(script, `#!/bin/sh\ncat '${keyFile}'\n`);
    chmodSync(script, 0o755);
    const srv = await pool.start();
    const echo = echoing(() => 401);
    srv.handle((req, res) => {
      // Rotated once a request is under way (the server ran the command as it started):
      // the 401 runs the command again, which prints another key.
      writeFileSync(keyFile, `${REREAD}\n`);
      return echo(req, res);
    });
    const env = mcpEnv();
    for (const [k, v] of [
      ['production.baseUrl', srv.baseUrl],
      ['production.apiKeyCommand', script],
    ] as const) {
      expect((await runMain(['config', 'set', k, v], { env })).code).toBe(0);
    }
    const served = await serveMcp(['mcp', '--verbose'], env);
    servers.push(served);
    const r = await served.client.callTool({ name: 'list_pets', arguments: {} });
    expect(r.isError).toBe(true);
    expect(srv.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${FROM_COMMAND}`, `Bearer ${REREAD}`]);
    expect(JSON.stringify(r)).toContain(`keys seen: ${maskKey(FROM_COMMAND)}, ${maskKey(REREAD)}`);
    await served.transport.close();
    await served.transport.exit;
    expectNowhere(served, [FROM_COMMAND, REREAD]);
  });
});

/**
 * Every key the run used is masked in every message (cli-contract.md "Errors and exit
 * codes"; `auth token`'s output and `api`'s stdout aside), in-process against a test server
 * on 127.0.0.1 that quotes the request's `Authorization` header in its Error body (`code`,
 * `message`, a URL with the key URL-encoded), in a response header and in its request id:
 * every declared operation's verb and `api`, text and JSON messages, `--verbose`; a key from
 * PETSTORE_API_KEY (one with `"`, `\` and `/` too, for the JSON-escaped and URL-encoded
 * forms), from an `apiKeyCommand` and one read again after a 401; a key under 8 characters
 * is left as it is.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/base/mask.js';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { CLI_OPERATIONS } from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import type { Handler } from '../helpers/test-server.js';

const PLAIN = 'SECRETKEY-abc123-masking';
/** A key with the characters JSON escapes (`"`, `\`) and a URL encodes (`/`). */
const ODD = 'SECRET"KEY\\abc/123-masking';
const FROM_COMMAND = 'cmd-SECRETKEY-9d2e51-first';
const REREAD = 'cmd-SECRETKEY-9d2e51-second';
const SHORT = 'k3y42';

const { start } = fileServers();

/** The ways a key may be written in a message: as it is, JSON-escaped, URL-encoded. */
function formsOf(key: string): string[] {
  return [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)];
}

/** Fails when any form of `key` is in `text`. */
function expectNoForm(text: string, key: string, what: string): void {
  for (const form of formsOf(key)) expect(text, `${what} holds ${form}`).not.toContain(form);
}

/**
 * A server that refuses every request with `status`, quoting the key it was sent (and every
 * key sent before it) in its Error body's code and message, in `x-echo` and in its request
 * id.
 */
function echoing(status: number): Handler {
  const seen: string[] = [];
  return (req) => {
    const auth = req.headers.authorization ?? '';
    const key = auth.replace(/^Bearer /, '');
    if (!seen.includes(key)) seen.push(key);
    return {
      status,
      headers: { 'x-echo': auth, 'x-request-id': `req-${key}` },
      body: {
        code: `refused-${key}`,
        message: `bad header Authorization: ${auth} (keys seen: ${seen.join(', ')}); see /help?key=${encodeURIComponent(key)}`,
        status,
      },
    };
  };
}

/** A config folder whose production environment is `baseUrl`, its key from a command printing a file the test rewrites. */
async function withKeyCommand(
  baseUrl: string,
  key: string,
): Promise<{ env: Record<string, string>; setKey: (k: string) => void }> {
  const dir = tempDir();
  const keyFile = join(dir, 'key.txt');
  writeFileSync(keyFile, `${key}\n`);
  const script = join(dir, 'print-key.sh');
  writeFileSync(script, `#!/bin/sh\ncat '${keyFile}'\n`);
  chmodSync(script, 0o755);
  const env = { PETSTORE_CONFIG_DIR: dir, HOME: dir, NO_COLOR: '1' };
  for (const [k, v] of [
    ['production.baseUrl', baseUrl],
    ['production.apiKeyCommand', script],
  ]) {
    expect((await runMain(['config', 'set', k!, v!], { env })).code).toBe(0);
  }
  return { env, setKey: (k) => writeFileSync(keyFile, `${k}\n`) };
}

const FORMS = [
  ['text', { tty: { stderr: true } }, []],
  ['JSON', {}, ['--output', 'json']],
  ['--verbose', {}, ['--verbose']],
] as const;

describe.each(CLI_OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
  it.each(
    FORMS.flatMap(([form, opts, flags]) => [400, 401, 500].map((status) => [form, status, opts, flags] as const)),
  )('%s messages, HTTP %i quoting the key: masked wherever it is', async (form, status, opts, flags) => {
    for (const key of [PLAIN, ODD]) {
      const srv = await start(echoing(status));
      const r = await runMain([...op.argv, '--retries', '0', ...flags], {
        ...opts,
        env: remoteEnv(srv.baseUrl, key, { NO_COLOR: '1' }),
        secrets: formsOf(key),
      });
      expect(r.code, r.stderr).not.toBe(0);
      expect(srv.requests.map((q) => q.headers.authorization)).toContain(`Bearer ${key}`);
      expectNoForm(r.stderr, key, 'stderr');
      expectNoForm(r.stdout, key, 'stdout');
      // The server's words are relayed, with the mask where the key was.
      expect(unwrapped(r.stderr)).toContain(
        `bad header Authorization: Bearer ${form === 'JSON' ? JSON.stringify(maskKey(key)).slice(1, -1) : maskKey(key)}`,
      );
      if (form === '--verbose') expect(r.stderr).toContain(`< x-echo: Bearer ${maskKey(key)}`);
    }
  });
});

describe('api', () => {
  it.each(FORMS)(
    '%s messages on stderr masked; its stdout is the answer as the server sent it',
    async (_form, opts, flags) => {
      const srv = await start(echoing(400));
      const { env } = await withKeyCommand(srv.baseUrl, FROM_COMMAND);
      const r = await runMain(['api', 'GET', 'pets', '-i', ...flags], { ...opts, env });
      expect(r.code, r.stderr).toBe(6);
      expectNoForm(r.stderr, FROM_COMMAND, 'stderr');
      expect(r.stderr).toContain(maskKey(FROM_COMMAND));
      // By design: `api` prints the server's answer as it is, `-i` headers included.
      expect(r.stdout).toContain(`x-echo: Bearer ${FROM_COMMAND}`);
      expect(r.stdout).toContain(`bad header Authorization: Bearer ${FROM_COMMAND}`);
    },
  );
});

describe('keys from an apiKeyCommand', () => {
  it('its key, and the key it prints after a 401, are both masked in every message that follows', async () => {
    const srv = await start();
    const { env, setKey } = await withKeyCommand(srv.baseUrl, FROM_COMMAND);
    // The key is rotated once the first request is under way: the command then prints another.
    const echo = echoing(401);
    srv.handle((req, res) => {
      setKey(REREAD);
      return echo(req, res);
    });
    const r = await runMain(['pets', 'list', '--verbose'], {
      env,
      secrets: [...formsOf(FROM_COMMAND), ...formsOf(REREAD)],
    });
    expect(r.code, r.stderr).toBe(4);
    expect(srv.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${FROM_COMMAND}`, `Bearer ${REREAD}`]);
    expect(unwrapped(r.stderr)).toContain(`keys seen: ${maskKey(FROM_COMMAND)}, ${maskKey(REREAD)}`);
    expect(r.stderr).toContain(`< x-echo: Bearer ${maskKey(FROM_COMMAND)}`);
    expect(r.stderr).toContain(`< x-echo: Bearer ${maskKey(REREAD)}`);
  });
});

describe('a key under 8 characters', () => {
  it('is left as it is: masking every occurrence of so short a string would garble ordinary text', async () => {
    const srv = await start(echoing(400));
    const r = await runMain(['pets', 'list', '--output', 'json'], { env: remoteEnv(srv.baseUrl, SHORT) });
    expect(r.code, r.stderr).toBe(6);
    expect(unwrapped(r.stderr)).toContain(`bad header Authorization: Bearer ${SHORT}`);
  });
});

/**
 * A server cannot forge a line (cli-contract.md "Errors and exit codes": server text reaches
 * a terminal only with control characters escaped). Its text never starts a line of its
 * own: a line feed in an Error message, a pet's name or any other server text is escaped
 * like every control character, wherever petstore quotes it (a bulk create's account, auth
 * login's refusal, --jq's raw strings on a terminal). Piped output stays the exact bytes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-config.js';
import { errorReply } from '../helpers/test-server.js';

const KEY = 'pk_test_forged_0123456789';
const { start } = fileServers();

const env = (baseUrl: string, extra?: Record<string, string>): Record<string, string> => remoteEnv(baseUrl, KEY, extra);

/** The lines of `text` that start with `start` (after any indentation). */
const linesStarting = (text: string, start: string): string[] =>
  text.split(/\r?\n|\r/).filter((l) => l.trimStart().startsWith(start));

describe('a line feed in server text is escaped, not obeyed', () => {
  it('a 400 message in a bulk create cannot add a line to the account', async () => {
    const forged = 'rejected\ncreated 999: lines 1-999 → ids 1-999';
    const srv = await start(() => errorReply(400, 'invalid_request', forged));
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, '{"name":"Rex","categoryId":1}\n{"name":"Kiwi","categoryId":2}\n');
    const r = await runMain(['pets', 'create', '--from-file', file], { env: env(srv.baseUrl), tty: true });
    expect(r.code).toBe(6);
    expect(linesStarting(r.stderr, 'created 999')).toEqual([]);
    // On a terminal the account names where the pets would have gone.
    expect(linesStarting(r.stderr, `created in production (${new URL(srv.baseUrl).host}`)).toHaveLength(1);
    expect(unwrapped(r.stderr)).toContain(
      `created in production (${new URL(srv.baseUrl).host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY): none`,
    );
    expect(unwrapped(r.stderr)).toContain('rejected\\x0acreated 999');
    expect(readFileSync(`${file}.remaining.ndjson`, 'utf8')).toContain('Rex');
  });

  it('a 401 message cannot print a fake success line from auth login (exit 4, nothing stored)', async () => {
    const forged = 'bad key\nLogged in to production: key ****ABCD checked and stored';
    const srv = await start(() => errorReply(401, 'unauthorized', forged));
    const dir = tempDir();
    const r = await runMain(['--base-url', srv.baseUrl, 'auth', 'login', '--with-token'], {
      env: { PETSTORE_CONFIG_DIR: dir },
      input: 'pk_live_forged_key_123456\n',
      secrets: ['pk_live_forged_key_123456'],
    });
    expect(r.code).toBe(4);
    expect(linesStarting(r.stderr, 'Logged in')).toEqual([]);
    expect(unwrapped(r.stderr)).toContain('bad key\\x0aLogged in to production');
  });

  it('a 503 message during auth login --check cannot either', async () => {
    const srv = await start(() => errorReply(503, 'unavailable', 'down\r\nLogged in to production'));
    const r = await runMain(['--base-url', srv.baseUrl, 'auth', 'login', '--with-token', '--retries', '0'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      input: 'pk_live_forged_key_123456\n',
      secrets: ['pk_live_forged_key_123456'],
    });
    expect(r.code).toBe(1);
    expect(linesStarting(r.stderr, 'Logged in')).toEqual([]);
  });

  it('--jq: a raw string on a terminal has its line feeds and carriage returns escaped, its tabs kept; piped, the exact bytes', async () => {
    const name = 'Rex\nLogged in\rTab\there';
    const srv = await start(() => ({ status: 200, body: [{ id: 1, name, categoryId: 1, status: 'sold' }] }));
    const terminal = await runMain(['pets', 'list', '--jq', '.[].name'], { env: env(srv.baseUrl), tty: true });
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stdout).toBe('Rex\\x0aLogged in\\x0dTab\there\n');
    const piped = await runMain(['pets', 'list', '--jq', '.[].name'], { env: env(srv.baseUrl) });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`${name}\n`);
  });
});

/**
 * What petstore tells a person after a failure is right when pasted and safe on a terminal:
 * suggested commands go where the run went (`--env sandbox`), `auth login`'s verification
 * keeps the failure's own code and hint, and `auth status --check` escapes what a server said.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_SHELL, unwrapped } from '../helpers/run-cli.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { shell } from '../helpers/shell.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, serverPool } from '../helpers/test-server.js';

const KEY = 'pk_test_hints_0123456789abcdef';
const { start, closeAll } = serverPool();
const closers: (() => void)[] = [];

afterAll(async () => {
  await closeAll();
  for (const close of closers) close();
  removeTempDirs();
});

describe('suggested commands go where the run went', () => {
  it('a sandbox bulk create that stops: the re-run command carries --env sandbox', async () => {
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    // The sandbox refuses a blank name (400): the run stops at record 2.
    writeFileSync(
      file,
      '{"name":"Ok","categoryId":1}\n{"name":"  ","categoryId":1}\n{"name":"Later","categoryId":1}\n',
    );
    const r = await runMain(['--env', 'sandbox', 'pets', 'create', '--from-file', file], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('\n  petstore --env sandbox pets create --from-file');
    expect(unwrapped(r.stderr)).toContain(
      `run: petstore --env sandbox pets create --from-file ${file}.remaining.ndjson\n`,
    );
  });

  it.skipIf(!existsSync('/dev/full'))(
    'a sandbox create whose pet cannot be printed: the hint to see it carries --env sandbox',
    async () => {
      const dir = tempDir();
      const r = await shell(`${CLI_SHELL} --env sandbox pets create --name Zed --category-id 1 > /dev/full`, {
        PETSTORE_CONFIG_DIR: dir,
      });
      expect(r.code).toBe(1);
      expect(unwrapped(r.stderr)).toMatch(/pet (\d+) was created, but it could not be printed/);
      expect(unwrapped(r.stderr)).toMatch(/`petstore --env sandbox pets get \d+ --via-list` shows it/);
    },
  );
});

describe('auth login verifies the key', () => {
  it('an unreachable server: exit 3, code network, and the hint on what to check', async () => {
    const r = await runMain(['--base-url', 'http://127.0.0.1:9/v1', 'auth', 'login', '--with-token'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      input: KEY,
    });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('could not verify the key');
    expect(unwrapped(r.stderr)).toContain(
      'Check the base URL and the network, or store the key unchecked with --no-verify.',
    );
  });

  it('a TLS failure keeps its own code (tls), as every other command reports it', async () => {
    const fixture = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
    const server = createHttpsServer(
      { key: fixture('self-signed.key'), cert: fixture('self-signed.pem') },
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    const r = await runMain(['--base-url', `https://127.0.0.1:${port}/v1`, 'auth', 'login', '--with-token', '--json'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      input: KEY,
    });
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'tls' });
  });
});

describe('auth status --check', () => {
  it('escapes what a server said, in the text and in the JSON', async () => {
    const srv = await start(() => errorReply(401, 'unauthorized', 'bad key \u001b[31mRED\u001b[0m \u202Eevil'));
    const env = remoteEnv(srv.baseUrl, KEY);
    const text = await runMain(['auth', 'status', '--check'], { env });
    expect(text.code).toBe(4);
    expect(text.stdout).toContain('bad key \\x1b[31mRED\\x1b[0m \\u{202e}evil');
    const json = await runMain(['auth', 'status', '--check', '--json'], { env });
    // eslint-disable-next-line no-control-regex -- no raw control or bidi character may remain
    expect(json.stdout).not.toMatch(/[\u001b\u202e]/);
    const doc = JSON.parse(json.stdout) as { environments: { checkMessage?: string }[] };
    expect(doc.environments[0]?.checkMessage).toBe('bad key \u001b[31mRED\u001b[0m \u202Eevil');
  });
});

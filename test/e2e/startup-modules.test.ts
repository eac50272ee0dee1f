/**
 * What a run loads of Node's built-in modules (docs/performance.md "What loads when"): a
 * `pets list` over plain http:// needs none of TLS, HTTP/2, zlib, the DNS resolver,
 * readline, child processes, crypto, assert, Node's promise file API and file streams
 * (stdin), timer promises (a retry's wait) or `node:module`, and loads them only on the
 * paths that use them (an https:// URL, a compressed answer). Read from Node's own record of
 * what it loaded (process.moduleLoadList, written at exit by test/helpers/module-list.cjs),
 * not the clock. Nor does a run without `--jq` start jq's worker thread or read jq's files.
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, CLI, collectRun, runCli, type CliResult } from '../helpers/run-cli.js';
import { remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool } from '../helpers/test-server.js';

const KEY = 'pk_test_startup_0123456789';
const PET = { id: 5, name: 'Rex', categoryId: 1, status: 'available' };
const PROBE = new URL('../helpers/module-list.cjs', import.meta.url).pathname;
const tls = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
const { start, closeAll } = serverPool();
const servers: Server[] = [];

afterAll(async () => {
  await closeAll();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeTempDirs();
});

/** Built-ins a plain http:// list must not load: each is for another path. */
const NOT_FOR_PLAIN_HTTP = [
  'tls',
  '_tls_wrap',
  'http2',
  'zlib',
  'readline',
  'dns',
  'child_process',
  'crypto',
  'assert',
  'internal/fs/promises',
  'internal/fs/streams',
  'timers/promises',
  'module',
];

/** Runs `petstore ...args` against `baseUrl` with the probe preloaded: the result and the built-ins it loaded. */
async function probed(
  args: string[],
  baseUrl: string,
  extra: Record<string, string> = {},
): Promise<{ r: CliResult; modules: string[] }> {
  const list = join(tempDir(), 'modules.txt');
  const r = await runCli(args, {
    env: remoteEnv(baseUrl, KEY, { NODE_OPTIONS: `--require ${PROBE}`, PETSTORE_TEST_MODULE_LIST: list, ...extra }),
  });
  return { r, modules: readFileSync(list, 'utf8').split('\n').filter(Boolean) };
}

describe('start-up: built-ins are loaded on the paths that use them', () => {
  it('pets list --json over http:// loads none of the built-ins other paths need', async () => {
    const srv = await start(() => ({ status: 200, body: [PET] }));
    // Without the code cache: what the CLI loads.
    const { r, modules } = await probed(['pets', 'list', '--json'], srv.baseUrl, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([PET]);
    expect(modules).toContain('http');
    expect(modules.filter((m) => NOT_FOR_PLAIN_HTTP.includes(m))).toEqual([]);
  });

  it('with the code cache written and read, still none of them (V8 checks the cache: no crypto)', async () => {
    const srv = await start(() => ({ status: 200, body: [PET] }));
    const cacheHome = tempDir();
    await probed(['pets', 'list', '--json'], srv.baseUrl, { XDG_CACHE_HOME: cacheHome });
    const { r, modules } = await probed(['pets', 'list', '--json'], srv.baseUrl, { XDG_CACHE_HOME: cacheHome });
    expect(r.code, r.stderr).toBe(0);
    expect(modules.filter((m) => NOT_FOR_PLAIN_HTTP.includes(m))).toEqual([]);
  });

  it('pets list over https:// still works, loading TLS then', async () => {
    const server = createHttpsServer({ key: tls('valid.key'), cert: tls('valid.pem') }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([PET]));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const ca = new URL('../fixtures/tls/ca.pem', import.meta.url).pathname;
    const { r, modules } = await probed(['pets', 'list'], `https://127.0.0.1:${port}/v1`, { NODE_EXTRA_CA_CERTS: ca });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
    expect(modules).toContain('tls');
    expect(modules).not.toContain('http2');
  });

  it('a gzip answer is decoded, loading zlib then', async () => {
    const srv = await start((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end(gzipSync(JSON.stringify([PET])));
      return undefined;
    });
    const { r, modules } = await probed(['pets', 'list'], srv.baseUrl);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
    expect(modules).toContain('zlib');
  });
});

describe('start-up: only --jq starts jq', () => {
  it('pets list --json starts no worker thread; pets list --jq does', async () => {
    const srv = await start(() => ({ status: 200, body: [PET] }));
    const plain = await probed(['pets', 'list', '--json'], srv.baseUrl);
    expect(plain.r.code, plain.r.stderr).toBe(0);
    expect(plain.modules).not.toContain('worker_threads');
    const jq = await probed(['pets', 'list', '--jq', '.[].name'], srv.baseUrl);
    expect(jq.r.code, jq.r.stderr).toBe(0);
    expect(jq.r.stdout).toBe('Rex\n');
    expect(jq.modules).toContain('worker_threads');
  });

  it('pets list --json runs from a copy without jq-worker.cjs and jq.wasm; --jq there fails', async () => {
    // A copy of the built CLI with jq's two files removed: a run that read either would fail.
    const copy = tempDir();
    const root = dirname(dirname(CLI));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(copy, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    for (const file of ['jq-worker.cjs', 'jq.wasm']) rmSync(join(copy, 'dist', file));
    const srv = await start(() => ({ status: 200, body: [PET] }));
    const env = { ...baseEnv(), HOME: copy, ...remoteEnv(srv.baseUrl, KEY) };
    const shim = join(copy, 'bin', 'petstore.js');
    const run = (args: string[]): Promise<CliResult> =>
      collectRun(
        spawn(process.execPath, [shim, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
        Date.now(),
        60_000,
      );
    const plain = await run(['pets', 'list', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual([PET]);
    const jq = await run(['pets', 'list', '--jq', '.[].name']);
    expect(jq.code).not.toBe(0);
    expect(jq.stdout).toBe('');
  });
});

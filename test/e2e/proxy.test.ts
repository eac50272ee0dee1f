/**
 * Proxies (cli-contract.md "Network behaviour", "Errors and exit codes"): HTTPS_PROXY and
 * NO_PROXY are honoured for an API on the network; a loopback host is never proxied, so a
 * key sent in clear to 127.0.0.1 never crosses a proxy; a proxy that refuses, asks for
 * credentials or cannot be reached is named (exit 3, code `proxy`, its password masked); a
 * proxy URL that does not parse is exit 2 naming its variable.
 *
 * The API on the network is `api.petstore.test` (a reserved name no resolver knows): the
 * test proxy maps it to a local HTTPS server whose certificate the test CA signed. Runs that
 * must trust that CA (NODE_EXTRA_CA_CERTS, read at start-up) spawn the CLI; the others run
 * in-process, where the tunnel is all that matters.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRecordingProxy, type ProxyOptions, type RecordingProxy } from '../helpers/proxy-server.js';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_proxy_0123456789';
const PET = { id: 5, name: 'Rex', categoryId: 1, status: 'available' };
const REMOTE = 'https://api.petstore.test/v1';
const fixture = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
const CA_FILE = new URL('../fixtures/tls/ca.pem', import.meta.url).pathname;
const { start, closeAll } = serverPool();
const proxies: RecordingProxy[] = [];
const servers: Server[] = [];

afterAll(async () => {
  await closeAll();
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeTempDirs();
});

const env = (baseUrl: string, extra?: Record<string, string>): Record<string, string> => remoteEnv(baseUrl, KEY, extra);

async function proxyServer(opts: ProxyOptions = {}): Promise<RecordingProxy> {
  const proxy = await startRecordingProxy(opts);
  proxies.push(proxy);
  return proxy;
}

/** The API on the network: an HTTPS server for api.petstore.test, and a proxy that reaches it. */
async function remoteApi(opts: ProxyOptions = {}): Promise<{ api: TestServer; proxy: RecordingProxy }> {
  const api = await start(() => ({ status: 200, body: [PET] }), {
    tls: { key: fixture('remote.key'), cert: fixture('remote.pem') },
  });
  const proxy = await proxyServer({ ...opts, hosts: { 'api.petstore.test': Number(new URL(api.origin).port) } });
  return { api, proxy };
}

const withCredentials = (url: string, credentials: string): string => url.replace('http://', `http://${credentials}@`);

describe('an API on the network goes through HTTPS_PROXY', () => {
  it.each(['HTTPS_PROXY', 'https_proxy'])(
    '%s: one tunnel, the key inside it, the proxy password masked in --verbose',
    async (name) => {
      const { api, proxy } = await remoteApi();
      const r = await runCli(['pets', 'list', '--verbose'], {
        env: env(REMOTE, {
          [name]: withCredentials(proxy.url, 'proxyuser:pr0xy-s3cret'),
          NODE_EXTRA_CA_CERTS: CA_FILE,
        }),
        secrets: ['pr0xy-s3cret'],
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
      expect(proxy.seen).toEqual(['CONNECT api.petstore.test:443']);
      expect(proxy.auth).toEqual([`Basic ${Buffer.from('proxyuser:pr0xy-s3cret').toString('base64')}`]);
      // The proxy saw a tunnel, never the key: only the API did.
      expect(proxy.authorization).toEqual([undefined]);
      expect(api.requests.map((q) => [q.url, q.headers.authorization])).toEqual([['/v1/pets', `Bearer ${KEY}`]]);
      expect(unwrapped(r.stderr)).toContain(`${name} http://***@127.0.0.1:${new URL(proxy.url).port}/`);
      expect(r.stderr).not.toContain('proxyuser');
    },
  );

  it('NO_PROXY naming the host, its domain or *: connected directly (here: no such host), the proxy untouched', async () => {
    const proxy = await proxyServer();
    for (const noProxy of ['api.petstore.test', '.petstore.test', 'example.com, petstore.test', '*']) {
      const r = await runMain(['pets', 'list', '--json'], {
        env: env(REMOTE, { HTTPS_PROXY: proxy.url, NO_PROXY: noProxy }),
      });
      expect(r.code, noProxy).toBe(3);
      expect(lastJson(r.stderr), noProxy).toMatchObject({ code: 'network' });
      expect(lastJson(r.stderr).message).toContain('cannot reach api.petstore.test');
    }
    expect(proxy.seen).toEqual([]);
  });

  it('HTTP_PROXY is for http:// URLs only (curl and Go alike): an https API is not sent through it', async () => {
    const proxy = await proxyServer();
    const r = await runMain(['pets', 'list', '--json'], { env: env(REMOTE, { HTTP_PROXY: proxy.url }) });
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'network' });
    expect(proxy.seen).toEqual([]);
  });
});

describe('a loopback host is never proxied, whatever NO_PROXY says', () => {
  it.each([
    ['127.0.0.1', {}],
    ['127.0.0.1', { NO_PROXY: 'api.petstore.test' }],
    ['localhost', {}],
    ['localhost', { no_proxy: '' }],
    // Any of 127.0.0.0/8, not only 127.0.0.1 (Linux routes the whole block to lo).
    ['127.0.0.2', {}],
    ['127.0.0.2', { NO_PROXY: '127.0.0.1' }],
    // The IPv6 loopback, as the transport tests assume every machine has it.
    ['[::1]', {}],
    ['[::1]', { NO_PROXY: 'api.petstore.test' }],
  ])('http://%s with HTTP_PROXY and HTTPS_PROXY set (%j): the key never reaches the proxy', async (host, extra) => {
    // localhost is served on 127.0.0.1; the other hosts are addresses to listen on.
    const listenOn = host === 'localhost' ? '127.0.0.1' : host.replace(/^\[|\]$/g, '');
    const api = await start(() => ({ status: 200, body: [PET] }), { host: listenOn });
    const proxy = await proxyServer();
    const baseUrl = api.baseUrl.replace(/\/\/[^/]+:/, `//${host}:`);
    const r = await runMain(['pets', 'list', '--verbose'], {
      env: env(baseUrl, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, ...extra }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
    expect(proxy.seen).toEqual([]);
    expect(proxy.authorization).toEqual([]);
    expect(api.requests).toHaveLength(1);
    expect(unwrapped(r.stderr)).toContain(`not proxied: ${host} is a loopback host`);
  });

  it('the embedded sandbox is never reached through a proxy', async () => {
    const proxy = await proxyServer();
    const r = await runMain(['--env', 'sandbox', 'pets', 'list', '--limit', '1'], {
      env: { PETSTORE_CONFIG_DIR: tempDir(), HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
  });
});

describe('a proxy that refuses: exit 3, code proxy, the proxy named with its password masked', () => {
  it('407 without credentials: the status, and where to put them', async () => {
    const { api, proxy } = await remoteApi({ credentials: 'bob:right' });
    const r = await runMain(['pets', 'list'], { env: env(REMOTE, { HTTPS_PROXY: proxy.url }) });
    expect(r.code).toBe(3);
    const text = unwrapped(r.stderr);
    expect(text).toContain(`the proxy ${proxy.url}/ (HTTPS_PROXY) refused to connect to api.petstore.test:443`);
    expect(text).toContain('407 Proxy Authentication Required');
    expect(text).toContain(`HTTPS_PROXY=http://USER:PASSWORD@127.0.0.1:${new URL(proxy.url).port}`);
    expect(r.stderr).not.toContain('looks like a bug');
    expect(api.requests).toEqual([]);
  });

  it('407 with the wrong password: masked everywhere, in text and in JSON', async () => {
    const { proxy } = await remoteApi({ credentials: 'bob:right' });
    const e = env(REMOTE, { HTTPS_PROXY: withCredentials(proxy.url, 'bob:wr0ng-pw') });
    const text = await runMain(['pets', 'list'], { env: e, secrets: ['wr0ng-pw'] });
    expect(text.code).toBe(3);
    expect(unwrapped(text.stderr)).toContain(
      `the proxy http://***@127.0.0.1:${new URL(proxy.url).port}/ (HTTPS_PROXY)`,
    );
    expect(unwrapped(text.stderr)).toContain('did not accept the user name and password in HTTPS_PROXY');
    expect(text.stderr).not.toContain('bob');
    const json = await runMain(['pets', 'list', '--json'], { env: e, secrets: ['wr0ng-pw'] });
    expect(json.code).toBe(3);
    expect(lastJson(json.stderr)).toMatchObject({
      code: 'proxy',
      status: 407,
      proxy: `http://***@127.0.0.1:${new URL(proxy.url).port}/`,
    });
  });

  it('any other refusal (403) is named the same way; pets create says nothing was sent', async () => {
    const { api, proxy } = await remoteApi({ refuse: 403 });
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: env(REMOTE, { HTTPS_PROXY: proxy.url }),
    });
    expect(r.code).toBe(3);
    const err = lastJson(r.stderr);
    expect(err).toMatchObject({ code: 'proxy', status: 403 });
    expect(err.message).toContain('403 Forbidden');
    expect(err.message).toContain('nothing reached the API');
    expect(api.requests).toEqual([]);
  });

  it('pets create --from-file: the records are not sent, and all of them are in the remaining file', async () => {
    const { api, proxy } = await remoteApi({ credentials: 'bob:right' });
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    const records = '{"name":"Rex","categoryId":1}\n{"name":"Kiwi","categoryId":2}\n{"name":"Polly","categoryId":3}\n';
    writeFileSync(file, records);
    const r = await runMain(['pets', 'create', '--from-file', file], { env: env(REMOTE, { HTTPS_PROXY: proxy.url }) });
    expect(r.code).toBe(3);
    const text = unwrapped(r.stderr);
    expect(text).toContain('407 Proxy Authentication Required');
    expect(text).toContain('not sent 3');
    expect(text).not.toContain('unknown 1');
    expect(text).not.toContain('looks like a bug');
    expect(readFileSync(`${file}.remaining.ndjson`, 'utf8')).toBe(records);
    expect(api.requests).toEqual([]);
  });

  it('a proxy nobody listens on: the proxy is named, not the API', async () => {
    const r = await runMain(['pets', 'list', '--retries', '0'], {
      env: env(REMOTE, { HTTPS_PROXY: 'http://127.0.0.1:9' }),
    });
    expect(r.code).toBe(3);
    const text = unwrapped(r.stderr);
    expect(text).toContain('cannot reach the proxy http://127.0.0.1:9/ (HTTPS_PROXY): connection refused');
    expect(text).toContain('Check that the proxy is up and that HTTPS_PROXY is right');
    const json = await runMain(['pets', 'list', '--retries', '0', '--json'], {
      env: env(REMOTE, { HTTPS_PROXY: 'http://127.0.0.1:9' }),
    });
    expect(lastJson(json.stderr)).toMatchObject({ code: 'proxy', status: 0 });
  });

  it('a proxy that closes every CONNECT fails fast as a proxy failure, dialled only as often as retries allow', async () => {
    // undici 7 redials such a proxy in a tight loop until the deadline (nodejs/undici#3897).
    let tunnels = 0;
    const server = createServer().on('connect', (_req, socket: Socket) => {
      tunnels++;
      socket.destroy();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const r = await runMain(['pets', 'list', '--timeout', '20', '--json'], {
      env: env(REMOTE, { HTTPS_PROXY: `http://127.0.0.1:${port}` }),
    });
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'proxy' });
    expect(lastJson(r.stderr).message).toContain('closed the connection');
    // The first attempt and the two retries of the default --retries 2.
    expect(tunnels).toBe(3);
  });
});

describe('proxy URLs', () => {
  it('without a scheme: read as http:// (curl and Go alike)', async () => {
    const { proxy } = await remoteApi({ credentials: 'bob:right' });
    const r = await runMain(['pets', 'list', '--json', '--verbose'], {
      env: env(REMOTE, { HTTPS_PROXY: proxy.url.replace('http://', 'bob:wr0ng-pw@') }),
      secrets: ['wr0ng-pw'],
    });
    expect(proxy.seen).toEqual(['CONNECT api.petstore.test:443']);
    expect(proxy.auth).toEqual([`Basic ${Buffer.from('bob:wr0ng-pw').toString('base64')}`]);
    expect(r.stderr).toContain(`* HTTPS_PROXY http://***@127.0.0.1:${new URL(proxy.url).port}/`);
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'proxy', status: 407 });
  });

  it.each([
    ['http://bob:s3/cr3t@proxy.example:8080', 'not a URL'],
    ['bob:s3/cr3t@proxy.example:8080', 'not a URL'],
    ['http://bob:s3cr3t@proxy.example:99999', 'not a URL'],
    ['socks5://bob:s3cr3t@proxy.example:1080', 'http:// or https://'],
    ['ftp://bob:s3cr3t@proxy.example', 'http:// or https://'],
  ])('%s: exit 2 naming the variable, the password masked, nothing sent', async (value, why) => {
    const r = await runMain(['pets', 'list', '--json'], {
      env: env(REMOTE, { https_proxy: value }),
      secrets: ['s3cr3t', 'cr3t'],
    });
    expect(r.code).toBe(2);
    const err = lastJson(r.stderr);
    expect(err).toMatchObject({ code: 'usage', status: 0 });
    expect(err.message).toContain('invalid https_proxy');
    expect(err.message).toContain(why);
    expect(err.message).not.toContain('bob');
  });

  it('a broken proxy variable does not stop a run that uses no proxy (a loopback API)', async () => {
    const api = await start(() => ({ status: 200, body: [PET] }));
    const r = await runMain(['pets', 'list'], { env: env(api.baseUrl, { HTTPS_PROXY: 'http://bob:s3/cr3t@x:1' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(api.requests).toHaveLength(1);
  });
});

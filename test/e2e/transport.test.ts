/**
 * Known faults of the transport, named (cli-contract.md "Errors and exit codes", "Network
 * behaviour"): TLS failures (exit 3, code `tls`, the reason in words), malformed HTTP
 * (`invalid_response`), charsets and content codings (proxies: proxy.test.ts),
 * `localhost` on IPv6 only, and server text that tries to drive the terminal. In-process,
 * except where the CA must be trusted through NODE_EXTRA_CA_CERTS, which Node reads at
 * start-up only.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { removeTempDirs } from '../helpers/temp-config.js';
import { errorReply, serverPool } from '../helpers/test-server.js';

const KEY = 'pk_test_transport_0123456789';
const PET = { id: 5, name: 'Rex', categoryId: 1, status: 'available' };
const fixture = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
const { start, closeAll } = serverPool();
const servers: Server[] = [];

afterAll(async () => {
  await closeAll();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeTempDirs();
});

const env = (baseUrl: string, extra?: Record<string, string>): Record<string, string> => remoteEnv(baseUrl, KEY, extra);

async function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
}

/** An HTTPS server with the fixture certificate `name`, answering one page of pets. */
async function httpsServer(name: string): Promise<number> {
  const server = createHttpsServer({ key: fixture(`${name}.key`), cert: fixture(`${name}.pem`) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([PET]));
  });
  return listen(server);
}

/** A server that writes `raw` bytes as its whole answer, whatever was asked. */
async function rawServer(raw: string): Promise<number> {
  const server = createNetServer((socket: Socket) => {
    socket.once('data', () => socket.end(raw));
    socket.on('error', () => undefined);
  });
  servers.push(server as unknown as Server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

describe('TLS failures: exit 3, code tls, the reason in words', () => {
  it('a self-signed certificate', async () => {
    const port = await httpsServer('self-signed');
    const r = await runMain(['pets', 'list'], { env: env(`https://127.0.0.1:${port}/v1`) });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('its certificate is self-signed');
    expect(unwrapped(r.stderr)).toContain('NODE_EXTRA_CA_CERTS');
    expect(r.stderr).not.toContain('looks like a bug');
    const j = await runMain(['pets', 'list', '--json'], { env: env(`https://127.0.0.1:${port}/v1`) });
    expect(lastJson(j.stderr)).toMatchObject({ code: 'tls', status: 0 });
  });

  it('a certificate from a CA this machine does not trust', async () => {
    const port = await httpsServer('valid');
    const r = await runMain(['pets', 'list', '--json'], { env: env(`https://127.0.0.1:${port}/v1`) });
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'tls' });
    expect(lastJson(r.stderr).message).toMatch(/CA this machine does not trust/);
  });

  it('https:// to a port that speaks plain HTTP', async () => {
    const srv = await start(() => ({ status: 200, body: [PET] }));
    const r = await runMain(['pets', 'list'], { env: env(srv.baseUrl.replace('http://', 'https://')) });
    expect(r.code).toBe(3);
    expect(unwrapped(r.stderr)).toContain('does not speak TLS on this port');
    expect(srv.requests).toHaveLength(0);
  });

  // NODE_EXTRA_CA_CERTS is read when Node starts: these need a process of their own.
  const caEnv = (port: number) => env(`https://127.0.0.1:${port}/v1`, { NODE_EXTRA_CA_CERTS: caFile });
  const caFile = new URL('../fixtures/tls/ca.pem', import.meta.url).pathname;

  it('with the CA trusted through NODE_EXTRA_CA_CERTS (the hint), a valid certificate works', async () => {
    const port = await httpsServer('valid');
    const r = await runCli(['pets', 'list'], { env: caEnv(port) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
  });

  it('a certificate for another host name, and one that expired', async () => {
    const [mismatch, expired] = await Promise.all([httpsServer('mismatch'), httpsServer('expired')]);
    const [m, e] = await Promise.all([
      runCli(['pets', 'list'], { env: caEnv(mismatch) }),
      runCli(['pets', 'list', '--json'], { env: caEnv(expired) }),
    ]);
    expect(m.code).toBe(3);
    expect(unwrapped(m.stderr)).toContain('hostname mismatch');
    expect(e.code).toBe(3);
    expect(lastJson(e.stderr)).toMatchObject({ code: 'tls' });
    expect(lastJson(e.stderr).message).toContain('its certificate has expired');
  });
});

describe('malformed HTTP answers: invalid_response, not a bug', () => {
  it('a response header larger than 16 KiB', async () => {
    const srv = await start(() => ({ status: 200, headers: { 'x-big': 'a'.repeat(20_000) }, body: [PET] }));
    const r = await runMain(['pets', 'list', '--json'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response' });
    expect(lastJson(r.stderr).message).toContain('headers larger than');
  });

  it('a header with a character HTTP forbids', async () => {
    const body = JSON.stringify([PET]);
    const port = await rawServer(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Bad\u0001Name: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const r = await runMain(['pets', 'list'], { env: env(`http://127.0.0.1:${port}/v1`) });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('malformed HTTP response');
    expect(r.stderr).not.toContain('looks like a bug');
  });
});

describe('charsets, content codings and a byte-order mark', () => {
  it('JSON in another charset than UTF-8 is off-contract (exit 1), not a mangled name', async () => {
    const srv = await start(() => ({
      status: 200,
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      raw: '[{"id":5,"name":"Zo\u00eb","categoryId":1}]',
    }));
    const r = await runMain(['pets', 'list', '--json'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response' });
    expect(lastJson(r.stderr).message).toContain('iso-8859-1');
  });

  it('charset=utf-8 (any case) is fine', async () => {
    const srv = await start(() => ({
      status: 200,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: [PET],
    }));
    expect((await runMain(['pets', 'list'], { env: env(srv.baseUrl) })).stdout).toBe('5\tRex\t1\tavailable\n');
  });

  it('a gzip body petstore never asked for is decoded; a BOM is tolerated', async () => {
    const gz = await listen(
      createHttpServer((_req, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(JSON.stringify([PET])));
      }),
    );
    const bom = await start(() => ({ status: 200, raw: `\uFEFF${JSON.stringify([PET])}` }));
    const [a, b] = await Promise.all([
      runMain(['pets', 'list'], { env: env(`http://127.0.0.1:${gz}/v1`) }),
      runMain(['pets', 'list'], { env: env(bom.baseUrl) }),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe('5\tRex\t1\tavailable\n');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toBe('5\tRex\t1\tavailable\n');
  });

  it('a content coding it cannot decode is named', async () => {
    const srv = await start(() => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
      raw: 'x',
    }));
    const r = await runMain(['pets', 'list'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('content coding "zstd"');
  });
});

describe('localhost', () => {
  it('reaches a server that listens on [::1] only', async () => {
    const port = await listen(
      createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([PET]));
      }),
      '::1',
    );
    const r = await runMain(['pets', 'list'], { env: env(`http://localhost:${port}/v1`) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('5\tRex\t1\tavailable\n');
  });
});

describe('server text cannot drive the terminal', () => {
  const hostile = 'bad\u001b[2J\u001b]0;pwned\u0007\r\nerror: forged line\u009b31m\u202Etxt.exe';

  it('a long Error message is wrapped at 80 columns, but none of its words can start a line', async () => {
    const forged = `${'padding '.repeat(8)}error: forged line ${'more '.repeat(10)}`;
    const srv = await start(() => errorReply(500, 'internal', forged));
    const r = await runMain(['pets', 'list'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}\S/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('an Error code and message: escaped on one line, as text and as JSON', async () => {
    const srv = await start(() => errorReply(500, `code\u001b[31m\u202E`, hostile));
    const r = await runMain(['pets', 'list'], { env: env(srv.baseUrl) });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(unwrapped(r.stderr)).toContain(
      'bad\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0aerror: forged line\\x9b31m\\u{202e}txt.exe',
    );
    expect(unwrapped(r.stderr)).toContain('code\\x1b[31m\\u{202e}');
    // eslint-disable-next-line no-control-regex -- no raw control or bidi character may remain
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    const j = await runMain(['pets', 'list', '--json'], { env: env(srv.baseUrl) });
    // eslint-disable-next-line no-control-regex -- escaped as \uHHHH in the JSON text
    expect(j.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(lastJson(j.stderr)).toMatchObject({ message: hostile, status: 500 });
  });

  it('pet names: escaped in the table and the tab-separated form; exact (as \\u escapes) in JSON', async () => {
    const srv = await start(() => ({ status: 200, body: [{ id: 1, name: hostile, categoryId: 1, status: 'sold' }] }));
    const [table, tsv, json] = await Promise.all([
      runMain(['pets', 'list'], { env: env(srv.baseUrl), tty: true }),
      runMain(['pets', 'list'], { env: env(srv.baseUrl) }),
      runMain(['pets', 'list', '--json'], { env: env(srv.baseUrl) }),
    ]);
    for (const r of [table, tsv, json]) {
      expect(r.code, r.stderr).toBe(0);
      // eslint-disable-next-line no-control-regex -- no raw control or bidi character may remain
      expect(r.stdout.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    }
    expect(tsv.stdout.split('\t')).toHaveLength(4);
    expect((JSON.parse(json.stdout) as { name: string }[])[0]!.name).toBe(hostile);
  });
});

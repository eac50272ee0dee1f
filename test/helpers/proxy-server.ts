/**
 * A forward proxy on 127.0.0.1 for tests: it records what it is asked (absolute-form
 * requests and CONNECT tunnels) with the `Proxy-Authorization` and `Authorization` of each,
 * and relays it. It can stand for a host name no resolver knows (`hosts`: CONNECT
 * `api.petstore.test:443` reaches a local port), ask for credentials (407), or refuse every
 * tunnel with a status of its choice.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** A running proxy. */
export interface RecordingProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `METHOD target` of each request or tunnel, in order. */
  seen: string[];
  /** The `Proxy-Authorization` of each. */
  auth: (string | undefined)[];
  /** The `Authorization` of each (a bearer key seen here crossed the proxy in clear). */
  authorization: (string | undefined)[];
  close(): Promise<void>;
}

/** What the proxy does besides relaying. */
export interface ProxyOptions {
  /** Host names and the local port each stands for (`{'api.petstore.test': 8443}`). */
  hosts?: Record<string, number>;
  /** `user:password`: anything else is answered `407 Proxy Authentication Required`. */
  credentials?: string;
  /** Answer every tunnel and request with this status (e.g. 403, 502) instead of relaying. */
  refuse?: number;
}

/** Starts a proxy that relays both forms. */
export async function startRecordingProxy(opts: ProxyOptions = {}): Promise<RecordingProxy> {
  const seen: string[] = [];
  const auth: (string | undefined)[] = [];
  const authorization: (string | undefined)[] = [];
  const expected =
    opts.credentials === undefined ? undefined : `Basic ${Buffer.from(opts.credentials).toString('base64')}`;
  /** The status to answer instead of relaying, if any. */
  const verdict = (proxyAuth: string | undefined): number | undefined =>
    expected !== undefined && proxyAuth !== expected ? 407 : opts.refuse;
  const proxy: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
    authorization.push(req.headers.authorization);
    const status = verdict(req.headers['proxy-authorization']);
    if (status !== undefined) {
      res.writeHead(status, status === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {}).end();
      return;
    }
    const target = new URL(req.url ?? '/');
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: opts.hosts?.[target.hostname] ?? target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
    authorization.push(req.headers.authorization);
    client.on('error', () => undefined);
    const status = verdict(req.headers['proxy-authorization']);
    if (status !== undefined) {
      const extra = status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : '';
      client.end(`HTTP/1.1 ${status} Refused\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const [host = '', port] = (req.url ?? '').split(':');
    const mapped = opts.hosts?.[host];
    const upstream = connect(mapped ?? Number(port), mapped === undefined ? host : '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    auth,
    authorization,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}

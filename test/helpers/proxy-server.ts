/**
 * A forward proxy on 127.0.0.1 for tests: it records what it is asked (absolute-form
 * requests and CONNECT tunnels) with the `Proxy-Authorization` of each, and relays it.
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
  close(): Promise<void>;
}

/** Starts a proxy that relays both forms. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const seen: string[] = [];
  const auth: (string | undefined)[] = [];
  const proxy: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
    const target = new URL(req.url ?? '/');
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
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
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
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
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}

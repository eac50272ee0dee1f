/**
 * Faults on demand for end-to-end tests, on top of the recording test server
 * (test-server.ts): each factory returns a `Handler` that misbehaves one way, and
 * `sequence` plays several in order (e.g. 503 then 200). The server still records
 * exactly what it received, so tests can count requests and inspect headers.
 */
import { connect } from 'node:net';
import type { ServerResponse } from 'node:http';
import { errorReply, type Handler, type RecordedRequest, type Reply } from './test-server.js';

/** Largest response body the CLI reads (src/http/body.ts MAX_BODY_BYTES), duplicated so tests notice a change. */
export const CLI_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** `n` valid Pet records with ids 1..n. */
export function pets(n: number): { id: number; name: string; categoryId: number; status: string }[] {
  return Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `pet-${i + 1}`, categoryId: 1, status: 'available' }));
}

/** Plays `handlers` in order, one per request; the last one answers every later request. */
export function sequence(...handlers: Handler[]): Handler {
  let i = 0;
  return (req, res) => handlers[Math.min(i++, handlers.length - 1)]!(req, res);
}

/** Always answers `reply`. */
export function answer(reply: Reply): Handler {
  return () => reply;
}

/** An API Error answer (spec §7), optionally with extra headers such as Retry-After. */
export function apiError(status: number, code: string, message: string, headers?: Record<string, string>): Handler {
  return () => ({ ...errorReply(status, code, message), headers });
}

function sleep(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    timer.unref();
    res.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/** Waits `ms` before sending the status line and headers. */
export function slowHeaders(ms: number, reply: Reply = { status: 200, body: [] }): Handler {
  return async (_req, res) => ((await sleep(ms, res)) ? reply : undefined);
}

/** Sends 200 headers and the first half of a Pets body at once, the rest after `ms`. */
export function slowBody(ms: number): Handler {
  return async (_req, res) => {
    const text = JSON.stringify(pets(2));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(text.slice(0, 10));
    if (await sleep(ms, res)) res.end(text.slice(10));
    return undefined;
  };
}

/** Reads the whole request, then destroys the socket without answering. */
export function reset(): Handler {
  return (_req, res) => {
    res.socket?.destroy();
    return undefined;
  };
}

/** Sends 200 headers and part of a Pets body, then (once they are written) destroys the socket. */
export function cutOff(): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Destroyed once the part is handed to the system, not after a guessed time: on a loaded
    // machine a timer could fire before the write, and the CLI would see no headers at all.
    res.write('[{"id":1,', () => res.socket?.destroy());
    return undefined;
  };
}

/** 200 with a body that is not JSON. */
export function malformedJson(): Handler {
  return answer({ status: 200, raw: '[{"id": 1, "name": "Rex", ' });
}

/** 200 with an HTML page, as a proxy or captive portal sends. */
export function wrongContentType(): Handler {
  return answer({
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    raw: '<html><body>Gateway</body></html>',
  });
}

/** A redirect to `location` (absolute or relative). */
export function redirect(location: string, status = 302): Handler {
  return answer({ status, headers: { location }, raw: '' });
}

/**
 * 200 with a JSON body of `bytes` bytes (a Pets array padded with spaces), streamed in
 * 256 KiB chunks; with `declareLength`, a Content-Length header announces the size.
 */
export function hugeBody(bytes: number, declareLength = false): Handler {
  return (_req, res) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (declareLength) headers['content-length'] = bytes;
    res.writeHead(200, headers);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let left = bytes - 2;
    res.write('[');
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(']');
    };
    res.on('error', () => undefined);
    pump();
    return undefined;
  };
}

/** Requests in `requests` whose method is `method`. */
export function count(requests: RecordedRequest[], method: string): number {
  return requests.filter((r) => r.method === method).length;
}

/**
 * A port on 127.0.0.1 where nothing listens (connecting gives ECONNREFUSED). It is taken
 * below 1024: a port the OS hands out for `listen(0)` and then released could be handed to
 * another test's server a moment later (the ephemeral range starts far above 1024), and no
 * test binds a fixed port.
 * @throws Error when every port below 1024 accepts connections.
 */
export async function closedPort(): Promise<number> {
  for (let port = 1; port < 1024; port++) if (await refuses(port)) return port;
  throw new Error('every port below 1024 on 127.0.0.1 accepts connections');
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** `closedPort()` as a base URL. */
export async function closedPortBaseUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}/v1`;
}

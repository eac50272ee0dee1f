/**
 * The server's wait, honoured or named, and the server's request id in every error
 * (cli-contract.md "Network behaviour", "Errors and exit codes"): a `Retry-After` (seconds
 * or HTTP date) within what is left of `--timeout` is waited for, with a progress line on a
 * terminal; a longer one ends the run at once naming the wait and the time left
 * (`retryAfter` in JSON); `x-request-id` and its kin close the error line and are
 * `requestId` in JSON; `--dry-run` shows the User-Agent with the version. In-process
 * (`runMain`) against real test servers on 127.0.0.1.
 *
 * Time bounds hold on a loaded machine: a wait that was waited has an exact lower bound
 * (less a little for HTTP-dates' whole seconds), "at once" a bound shorter than the
 * `--timeout` it is about.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiError, answer, pets, sequence } from '../helpers/fault-server.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import type { Handler } from '../helpers/test-server.js';

const KEY = 'pst_waits_7Hq2Lx9Vb4Rt6Np1';
const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const pool = fileServers();
beforeAll(async () => {
  // The first in-process run loads the CLI's modules through Vite's transform (seconds on a
  // busy machine); loaded here, that does not count against the bounds below.
  const warm = await pool.start(answer({ status: 200, body: pets(1) }));
  await run(['pets', 'list'], warm.baseUrl);
});

async function run(args: string[], baseUrl: string, opts: MainOptions = {}) {
  return runMain(args, { ...opts, env: remoteEnv(baseUrl, KEY) });
}

/** A 429 asking for `retryAfter`, then a page of one pet. */
function rateLimitedOnce(retryAfter: () => string): Handler {
  return sequence(
    (req, res) => apiError(429, 'rate_limited', 'too many requests', { 'retry-after': retryAfter() })(req, res),
    answer({ status: 200, body: pets(1) }),
  );
}

describe.concurrent('Retry-After within --timeout is waited for, however long', () => {
  it('Retry-After: 3 with --timeout 10 waits about 3 s and succeeds', async () => {
    const server = await pool.start(rateLimitedOnce(() => '3'));
    const r = await run(['pets', 'list', '--timeout', '10'], server.baseUrl);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tpet-1\t1\tavailable\n');
    expect(server.requests).toHaveLength(2);
    expect(r.ms).toBeGreaterThanOrEqual(2500);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('the HTTP-date form: a date 3 s ahead is waited for', async () => {
    // HTTP-dates have whole seconds: 3 s from now is 2..3 s of waiting.
    const server = await pool.start(rateLimitedOnce(() => new Date(Date.now() + 3000).toUTCString()));
    const r = await run(['pets', 'list', '--timeout', '10'], server.baseUrl);
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(r.ms).toBeGreaterThanOrEqual(1500);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a terminal shows the wait on the progress line, counting down, then erases it', async () => {
    const server = await pool.start(rateLimitedOnce(() => '3'));
    let stderr = '';
    const r = await run(['pets', 'list', '--timeout', '10'], server.baseUrl, {
      tty: true,
      onOutput: (stream, text) => {
        if (stream === 'stderr') stderr += text;
      },
    });
    expect(r.code).toBe(0);
    expect(stderr).toContain('\rrate limited: waiting 3 s…\x1b[K');
    expect(stderr).toContain('\r\x1b[K');
    expect(r.stdout).toContain('pet-1');
  });

  it('off a terminal no progress line is drawn', async () => {
    const server = await pool.start(rateLimitedOnce(() => '3'));
    const r = await run(['pets', 'list', '--timeout', '10'], server.baseUrl);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('waiting');
  });
});

describe.concurrent('Retry-After beyond --timeout ends the run at once, naming the wait', () => {
  it('Retry-After: 90 with --timeout 5: exit 1 at once, the message naming 90 s and the time left', async () => {
    const server = await pool.start(apiError(429, 'rate_limited', 'too many requests', { 'retry-after': '90' }));
    const r = await run(['pets', 'list', '--timeout', '5', '--retries', '5'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    // Had it waited, the deadline would have ended it (exit 3) after 5 s.
    expect(r.ms).toBeLessThan(5000);
    expect(unwrapped(r.stderr)).toMatch(
      /^error: too many requests; the server asks to wait 90 s; --timeout leaves [0-5](\.\d)? s \(rate_limited, HTTP 429\)$/m,
    );
  });

  it('in JSON: the server code kept, retryAfter in seconds', async () => {
    const server = await pool.start(apiError(429, 'rate_limited', 'too many requests', { 'retry-after': '90' }));
    const r = await run(['pets', 'list', '--timeout', '5', '-o', 'json'], server.baseUrl);
    expect(r.code).toBe(1);
    const error = lastJson(r.stderr);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 90 });
    expect(error.message).toMatch(/^too many requests; the server asks to wait 90 s; --timeout leaves [\d.]+ s$/);
  });

  it('the HTTP-date form: a date 90 s ahead is named', async () => {
    const server = await pool.start((req, res) =>
      apiError(503, 'unavailable', 'maintenance', { 'retry-after': new Date(Date.now() + 90_000).toUTCString() })(
        req,
        res,
      ),
    );
    const r = await run(['pets', 'list', '--timeout', '5', '-o', 'json'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    const error = lastJson(r.stderr);
    expect(error).toMatchObject({ code: 'unavailable', status: 503 });
    expect(error.retryAfter).toBeGreaterThanOrEqual(88);
    expect(error.retryAfter).toBeLessThanOrEqual(90);
    expect(error.message).toMatch(/the server asks to wait (88|89|90) s; --timeout leaves/);
  });
});

describe.concurrent('the request id in every error', () => {
  const unavailable = apiError(503, 'unavailable', 'down for maintenance', { 'x-request-id': 'req_8f2a9c' });

  it('a 503 with x-request-id: text names it after the error', async () => {
    const server = await pool.start(unavailable);
    const r = await run(['pets', 'list', '--retries', '0'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toContain('error: down for maintenance (unavailable, HTTP 503) (request req_8f2a9c)');
  });

  it('a 503 with x-request-id: JSON has requestId', async () => {
    const server = await pool.start(unavailable);
    const r = await run(['pets', 'list', '--retries', '0', '-o', 'json'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(lastJson(r.stderr)).toEqual({
      code: 'unavailable',
      message: 'down for maintenance',
      status: 503,
      requestId: 'req_8f2a9c',
    });
  });

  it('--verbose shows it among the answer headers, and on the error line', async () => {
    const server = await pool.start(unavailable);
    const r = await run(['pets', 'list', '--retries', '0', '--verbose'], server.baseUrl);
    expect(r.stderr).toMatch(/^< x-request-id: req_8f2a9c$/m);
    expect(unwrapped(r.stderr)).toContain('(request req_8f2a9c)');
  });

  it('a gateway page that is no API Error: cf-ray named too', async () => {
    const server = await pool.start(() => ({
      status: 502,
      headers: { 'content-type': 'text/html', 'cf-ray': '8a1b2c3d4e5f-AMS' },
      raw: '<html>bad gateway</html>',
    }));
    const r = await run(['pets', 'list', '--retries', '0', '-o', 'json'], server.baseUrl);
    expect(r.code).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'invalid_response', status: 502, requestId: '8a1b2c3d4e5f-AMS' });
  });

  it('escaped and bounded: a C1 control is escaped, a long id cut', async () => {
    const long = `req_${'x'.repeat(300)}`;
    const server = await pool.start(
      sequence(
        apiError(503, 'unavailable', 'down', { 'x-request-id': 'req_\x9b31mred' }),
        apiError(503, 'unavailable', 'down', { 'x-request-id': long }),
      ),
    );
    const a = await run(['pets', 'list', '--retries', '0'], server.baseUrl, { tty: true });
    expect(a.stderr).not.toContain('\x9b');
    expect(unwrapped(a.stderr)).toContain('(request req_\\x9b31mred)');
    const b = await run(['pets', 'list', '--retries', '0', '-o', 'json'], server.baseUrl);
    const id = lastJson(b.stderr).requestId as string;
    expect(id).toHaveLength(128);
    expect(id.endsWith('…')).toBe(true);
  });
});

describe('the User-Agent', () => {
  it('is sent as petstore-cli/VERSION (node VERSION; OS ARCH)', async () => {
    const server = await pool.start(answer({ status: 200, body: pets(1) }));
    await run(['pets', 'list'], server.baseUrl);
    expect(server.requests[0]!.headers['user-agent']).toBe(
      `petstore-cli/${VERSION} (node ${process.versions.node}; ${process.platform} ${process.arch})`,
    );
  });

  it('--dry-run shows it with the version', async () => {
    const server = await pool.start(answer({ status: 500 }));
    const r = await run(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--dry-run'], server.baseUrl);
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(r.stdout).toContain(`petstore-cli/${VERSION} (node ${process.versions.node}; `);
  });
});

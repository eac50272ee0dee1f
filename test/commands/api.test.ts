/**
 * `petstore api [METHOD] PATH` (cli-contract.md "Commands", gh api's shape), in-process
 * against the recording test server, servers that misbehave, a paging server and the
 * embedded sandbox: every flag, every refusal (exit 2, nothing sent), exact bytes and int64,
 * the exit codes of answers of 400 or more (the body still on stdout), the retry policy per
 * method, the deadline, proxies and TLS.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { specOperation } from '../fixtures/api-spec.js';
import { answer, apiError, count, reset, sequence, slowHeaders } from '../helpers/fault-server.js';
import { startPagingServer, type PagingOptions, type PagingServer } from '../helpers/paging-server.js';
import { startRecordingProxy } from '../helpers/proxy-server.js';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type Handler, type TestServer } from '../helpers/test-server.js';

const KEY = 'pst_api_cmd_K3y9f8Qz7Lw2';
/** getPet's deprecation: its removal date and the Deprecation and Sunset values the sandbox sends. */
const GET_PET_DEPRECATION = specOperation('getPet').deprecated!;
/** The day of its Deprecation value (an RFC 9745 `@seconds`), as the warning writes it. */
const DEPRECATED_SINCE = new Date(Number(GET_PET_DEPRECATION.deprecation.slice(1)) * 1000).toISOString().slice(0, 10);
const BIG = '9223372036854775807';
const pool = serverPool();
const others: { close(): Promise<void> }[] = [];

afterAll(async () => {
  await pool.closeAll();
  await Promise.all(others.map((s) => s.close()));
  removeTempDirs();
});

const env = (baseUrl: string, extra?: Record<string, string>): Record<string, string> => remoteEnv(baseUrl, KEY, extra);

/** Runs `petstore api ...args` against `server`. */
function api(server: TestServer, args: string[], opts: MainOptions = {}) {
  return runMain(['api', ...args], { ...opts, env: { ...env(server.baseUrl), ...opts.env } });
}

function start(handler?: Handler): Promise<TestServer> {
  return pool.start(handler);
}

/** Runs `petstore api ...args` against a new recording server: the server and the run. */
async function apiOnNewServer(args: string[]) {
  const server = await start();
  return { server, r: await api(server, args) };
}

/** A server whose first page (pet 1) links to a second one, answered by `second`. */
function secondPageFails(second: Handler): Promise<TestServer> {
  const first = answer({ status: 200, headers: { link: '</v1/pets?page=2>; rel="next"' }, raw: '[{"id":1}]' });
  return start(sequence(first, second));
}

describe.concurrent('the path is relative to the base URL', () => {
  /** A path as given, and the request target it is sent as. */
  const SENT_AS = {
    'pets?limit=5': '/v1/pets?limit=5',
    '/pets/7': '/v1/pets/7',
    'pets/./7': '/v1/pets/7',
    'pets/x/../7': '/v1/pets/7',
    'pets:search': '/v1/pets:search',
  };
  it.each(Object.entries(SENT_AS))('%s → %s, with the key', async (path, sent) => {
    const server = await start();
    const r = await api(server, [path]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`GET ${sent}`]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe.concurrent('refusals: exit 2, a message naming the problem, nothing sent', () => {
  const cases: [string, string[], RegExp][] = [
    ['an absolute URL to another origin', ['https://evil.example/v1/pets'], /absolute URL/],
    ['an absolute URL, even to the same origin', ['http://127.0.0.1:1/v1/pets'], /absolute URL/],
    ['a network-path reference', ['//evil.example/pets'], /starts with \/\/ and would name another host/],
    ['backslashes read as slashes', ['\\\\evil.example/pets'], /would name another host/],
    ['.. above the base path', ['../admin'], /climbs above the base URL's path \/v1 \(it leads to \/admin\)/],
    ['.. deeper down', ['pets/../../v10/pets'], /climbs above .* \/v10\/pets/],
    ['percent-encoded dots', ['%2e%2e/admin'], /climbs above/],
    ['an Authorization header', ['pets', '-H', 'Authorization: Bearer other'], /-H "Authorization" is refused/],
    ['an authorization header in any case', ['pets', '-H', 'authorization:x'], /is refused/],
    ['a Host header', ['pets', '-H', 'Host: evil.example'], /-H "Host" is refused/],
    ['a header without a colon', ['pets', '-H', 'X-Trace'], /a header is 'Name: value'/],
    ['a header value with a line break', ['pets', '-H', 'X-A: b\r\nX-B: c'], /line break/],
    [
      'a header value beyond Latin-1',
      ['pets', '-H', 'X-Note: 日本'],
      /invalid -H "X-Note": its value holds "日" \(U\+65E5\); a header value is Latin-1/,
    ],
    ['a header value with an emoji', ['pets', '-H', 'X-Note: ok 🐈'], /"🐈" \(U\+1F408\)/],
    ['-F without =', ['pets', '-F', 'name'], /invalid -F "name": a field is key=value/],
    ['-f with an empty key', ['pets', '-f', '=Rex'], /the key before = is empty/],
    ['a nested field', ['pets', '-f', 'tags[]=a'], /nested fields/],
    ['a field given twice', ['pets', '-f', 'a=1', '-F', 'a=2'], /"a" is given twice/],
    ['three words', ['GET', 'pets', 'limit=5'], /too many arguments .*petstore api takes \[METHOD\] PATH/],
    ['METHOD and a different -X', ['POST', 'pets', '-X', 'PUT'], /METHOD POST and -X PUT/],
    ['a method that is not a token', ['-X', 'GE T', 'pets'], /invalid -X "GE T"/],
    [
      'CONNECT',
      ['CONNECT', 'pets'],
      /"CONNECT" is not one of the methods .*Did you mean `petstore api -X CONNECT pets`/,
    ],
    ['CONNECT with -X', ['-X', 'CONNECT', 'pets'], /invalid -X "CONNECT"/],
    // cli-contract.md "Commands": a first word that is no method is the path.
    ['a path in two words', ['pets', '7'], /"pets" is not an HTTP method.*Did you mean `petstore api GET pets\/7`\?/],
    ['a path in two words with -X', ['pets', '7', '-X', 'delete'], /Did you mean `petstore api DELETE pets\/7`\?/],
    ['a method beyond the seven as a word', ['PURGE', 'pets'], /another method needs -X.*`petstore api -X PURGE pets`/],
    [
      '--dry-run curl with a space',
      ['pets', '--dry-run', 'curl'],
      /--dry-run takes its value only after =.*`petstore api pets --dry-run=curl`/,
    ],
    ['--input with GET', ['-X', 'GET', 'pets', '--input', '-'], /a GET request has none/],
    ['--paginate with POST', ['POST', 'pets', '--paginate'], /--paginate follows the pages of a GET/],
    ['--paginate with -i', ['pets', '--paginate', '-i'], /--paginate and -i do not go together/],
    ['--max-pages without --paginate', ['pets', '--max-pages', '3'], /--max-pages needs --paginate/],
    ['two readers of stdin', ['pets', '--input', '-', '-F', 'a=@-'], /would both read stdin/],
    ['an --output it cannot honour', ['pets', '-o', 'tsv'], /--output tsv does not apply/],
    [
      '--input of a missing file',
      ['POST', 'pets', '--input', '/nonexistent/body.json'],
      /cannot read --input .*no such file/,
    ],
    ['-F @ of a missing file', ['pets', '-F', 'note=@/nonexistent/n.txt'], /cannot read -F note=@/],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const server = await start();
      const r = await api(server, args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(unwrapped(r.stderr)).toMatch(message);
      expect(server.requests).toHaveLength(0);
      const j = await api(server, [...args, '--json']);
      expect(j.code).toBe(2);
      expect(lastJson(j.stderr)).toMatchObject({ code: 'usage', status: 0 });
      expect(server.requests).toHaveLength(0);
    });
  }

  it('a refused path sends nothing to the embedded sandbox either', async () => {
    const r = await runMain(['--env', 'sandbox', 'api', '../../etc'], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('climbs above');
  });
});

describe.concurrent('method and fields', () => {
  it('every method RFC 9110 defines for a resource, as the first word in any case; another only with -X', async () => {
    const server = await start(answer({ status: 200, body: {} }));
    const seven = ['get', 'Head', 'POST', 'put', 'patch', 'DELETE', 'options'];
    for (const method of seven) expect((await api(server, [method, 'pets/1'])).code, method).toBe(0);
    expect((await api(server, ['-X', 'PURGE', 'pets/1'])).code).toBe(0);
    expect(server.requests.map((q) => q.method)).toEqual([...seven.map((m) => m.toUpperCase()), 'PURGE']);
  });

  it('METHOD as an argument (any case), and the same -X beside it', async () => {
    const server = await start(answer({ status: 200, body: {} }));
    expect((await api(server, ['delete', 'pets/1'])).code).toBe(0);
    expect((await api(server, ['PUT', 'pets/1', '-X', 'put'])).code).toBe(0);
    expect((await api(server, ['-X', 'PATCH', 'pets/1'])).code).toBe(0);
    expect(server.requests.map((q) => q.method)).toEqual(['DELETE', 'PUT', 'PATCH']);
  });

  it('a field makes it a POST with a JSON body: -f strings, -F typed, int64 exact', async () => {
    const server = await start(answer({ status: 201, raw: `{"id":${BIG},"name":"Rex","categoryId":${BIG}}` }));
    const r = await api(server, [
      'pets',
      '-f',
      'name=Rex',
      '-f',
      'raw=5',
      '-F',
      `categoryId=${BIG}`,
      '-F',
      'min=-9223372036854775808',
      '-F',
      'beyond=9223372036854775808',
      '-F',
      'ok=true',
      '-F',
      'off=false',
      '-F',
      'none=null',
      '-F',
      'word=a=b',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.method).toBe('POST');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[0]!.body).toBe(
      `{"name":"Rex","raw":"5","categoryId":${BIG},"min":-9223372036854775808,"beyond":"9223372036854775808","ok":true,"off":false,"none":null,"word":"a=b"}`,
    );
    expect(r.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":${BIG}}`);
  });

  it('with GET (-X GET) the fields go to the query string', async () => {
    const server = await start();
    const r = await api(server, ['-X', 'GET', 'pets', '-F', 'limit=5', '-f', 'status=sold', '-F', 'x=null']);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.url).toBe('/v1/pets?status=sold&limit=5&x=');
    expect(server.requests[0]!.body).toBe('');
  });

  it('-F key=@file and key=@- read a file and stdin, as text', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'name.txt'), 'Kiwi');
    const server = await start(answer({ status: 201, body: {} }));
    const r = await api(server, ['pets', '-F', `name=@${join(dir, 'name.txt')}`, '-F', 'note=@-'], {
      input: 'from stdin\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.body).toBe('{"name":"Kiwi","note":"from stdin\\n"}');
  });

  it('--input FILE is the raw body (POST by default), fields go to the query string', async () => {
    const dir = tempDir();
    const body = `{ "name" : "Rex",\n  "categoryId": ${BIG} }\n`;
    writeFileSync(join(dir, 'pet.json'), body);
    const server = await start(answer({ status: 201, body: {} }));
    const r = await api(server, ['pets', '--input', join(dir, 'pet.json'), '-f', 'dryRun=1']);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/pets?dryRun=1', body });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('--input - reads stdin; -H sets other headers, Content-Type and Accept included', async () => {
    const server = await start(answer({ status: 200, body: {} }));
    const r = await api(
      server,
      ['PUT', 'pets/3', '--input', '-', '-H', 'Content-Type: text/plain', '-H', 'X-Trace:  t-1 ', '-H', 'Accept: */*'],
      { input: 'plain body' },
    );
    expect(r.code, r.stderr).toBe(0);
    const q = server.requests[0]!;
    expect(q).toMatchObject({ method: 'PUT', url: '/v1/pets/3', body: 'plain body' });
    expect(q.headers).toMatchObject({ 'content-type': 'text/plain', 'x-trace': 't-1', accept: '*/*' });
    expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('-H with a Latin-1 value (up to U+00FF) sends it, one byte per character', async () => {
    const server = await start(answer({ status: 200, body: {} }));
    const r = await api(server, ['pets', '-H', 'X-Note: café ÿ']);
    expect(r.code, r.stderr).toBe(0);
    // node:http reads header bytes as Latin-1: the same characters arrived.
    expect(server.requests[0]!.headers['x-note']).toBe('café ÿ');
  });
});

describe.concurrent('the answer, printed as it is', () => {
  const hostile = 'Rex\u001b[2J\u202e\u0007';

  it('piped: the body byte for byte, int64 and spacing intact, no newline added', async () => {
    const raw = `[ {"id": ${BIG},"name":${JSON.stringify(hostile)}} ]`;
    const server = await start(answer({ status: 200, raw }));
    const r = await api(server, ['pets']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(raw);
    expect(r.stderr).toBe('');
  });

  it('piped: a body that is not JSON, control characters and all', async () => {
    const server = await start(answer({ status: 200, headers: { 'content-type': 'text/plain' }, raw: `a\u0001b\r\n` }));
    expect((await api(server, ['health'])).stdout).toBe('a\u0001b\r\n');
  });

  it('on a terminal: JSON indented, int64 exact, server text escaped', async () => {
    const server = await start(answer({ status: 200, raw: `[{"id":${BIG},"name":${JSON.stringify(hostile)}}]` }));
    const r = await api(server, ['pets'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`[\n  {\n    "id": ${BIG},\n    "name": "Rex\\u001b[2J\\u202e\\u0007"\n  }\n]\n`);
  });

  it('on a terminal: text that is not JSON, escaped, ending in a newline', async () => {
    const server = await start(
      answer({ status: 200, headers: { 'content-type': 'text/plain' }, raw: 'ok\u001b]0;x\u0007' }),
    );
    const r = await api(server, ['health'], { tty: true });
    expect(r.stdout).toBe('ok\\x1b]0;x\\x07\n');
  });

  it('-i: the status line and every header before the body, on stdout; piped as they are', async () => {
    const server = await start(
      answer({ status: 200, headers: { 'x-note': 'a b', link: '</v1/pets?page=2>; rel="next"' }, raw: '[]' }),
    );
    const r = await api(server, ['pets', '-i']);
    expect(r.code).toBe(0);
    const [head, body] = r.stdout.split('\n\n');
    expect(head!.split('\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toContain('\nx-note: a b');
    expect(head).toContain('\nlink: </v1/pets?page=2>; rel="next"');
    expect(head).toContain('\ncontent-type: application/json');
    expect(body).toBe('[]');
  });

  it('-i on a terminal escapes header values (a C1 control byte, as HTTP lets through)', async () => {
    const server = await start(answer({ status: 200, headers: { 'x-evil': 'a\u009b2Jb' }, raw: '{}' }));
    const r = await api(server, ['pets', '--include'], { tty: true });
    expect(r.stdout).toContain('x-evil: a\\x9b2Jb\n');

    expect(r.stdout).not.toMatch(/[\u0080-\u009f]/);
    const piped = await api(server, ['pets', '--include']);
    expect(piped.stdout).toContain('x-evil: a\u009b2Jb\n');
  });

  it('HEAD prints nothing but, with -i, the head', async () => {
    const server = await start(answer({ status: 200, raw: '' }));
    const r = await api(server, ['HEAD', 'pets', '-i']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200 OK\n[\s\S]*\n\n$/);
    expect(server.requests[0]!.method).toBe('HEAD');
  });

  it('a Deprecation or Sunset header gives one warning naming the request', async () => {
    const server = await start(
      answer({
        status: 200,
        headers: { deprecation: GET_PET_DEPRECATION.deprecation, sunset: GET_PET_DEPRECATION.sunset },
        raw: '{}',
      }),
    );
    const r = await api(server, ['pets/7']);
    expect(r.code).toBe(0);
    expect(unwrapped(r.stderr)).toContain(
      `warning: GET /v1/pets/7 is deprecated (since ${DEPRECATED_SINCE}) and will be removed on ${GET_PET_DEPRECATION.removal}`,
    );
  });
});

describe.concurrent('answers of 400 or more: the body on stdout, the error on stderr, the exit code by status', () => {
  it.each([
    [404, 5, 'not_found'],
    [400, 6, 'invalid_request'],
    [401, 4, 'unauthorized'],
    [409, 1, 'conflict'],
    [500, 1, 'internal'],
  ])('%i → exit %i', async (status, exit, code) => {
    const body = { code, message: `it failed (${status})`, status };
    const server = await start(answer({ status, body }));
    const r = await api(server, ['pets/99', '--retries', '0']);
    expect(r.code).toBe(exit);
    expect(r.stdout).toBe(JSON.stringify(body));
    expect(unwrapped(r.stderr)).toContain(`error: it failed (${status}) (${code}, HTTP ${status})`);
    if (status === 401) expect(unwrapped(r.stderr)).toContain('PETSTORE_API_KEY');
    const j = await api(server, ['pets/99', '--retries', '0', '--json']);
    expect(j.stdout).toBe(JSON.stringify(body));
    expect(lastJson(j.stderr)).toEqual(body);
  });

  it('a 404 that is not an API Error: exit 5, code invalid_response, the page on stdout, where paths start', async () => {
    const server = await start(
      answer({ status: 404, headers: { 'content-type': 'text/html' }, raw: '<h1>Not Found</h1>' }),
    );
    const r = await api(server, ['pest']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('<h1>Not Found</h1>');
    expect(unwrapped(r.stderr)).toContain('server answered 404 to /v1/pest, with a body that is not an API Error');
    expect(unwrapped(r.stderr)).toContain(`Paths are relative to ${server.baseUrl}/`);
    expect(lastJson((await api(server, ['pest', '--json'])).stderr)).toMatchObject({
      code: 'invalid_response',
      status: 404,
    });
  });
});

describe.concurrent('the retry policy, by method', () => {
  const unavailable = apiError(503, 'unavailable', 'later', { 'retry-after': '0' });
  const ok = answer({ status: 200, body: {} });

  it('PUT and DELETE are idempotent (RFC 9110): sent again after 503 and a reset', async () => {
    const put = await start(sequence(unavailable, unavailable, ok));
    const r = await api(put, ['PUT', 'pets/1', '-f', 'name=Rex']);
    expect(r.code, r.stderr).toBe(0);
    expect(count(put.requests, 'PUT')).toBe(3);
    expect(new Set(put.requests.map((q) => q.body))).toEqual(new Set(['{"name":"Rex"}']));
    const del = await start(sequence(reset(), ok));
    expect((await api(del, ['DELETE', 'pets/1'])).code).toBe(0);
    expect(count(del.requests, 'DELETE')).toBe(2);
  });

  it('a PUT is not sent again after a 500, nor beyond --retries', async () => {
    const boom = await start(apiError(500, 'internal', 'boom'));
    expect((await api(boom, ['PUT', 'pets/1'])).code).toBe(1);
    expect(boom.requests).toHaveLength(1);
    const down = await start(unavailable);
    expect((await api(down, ['PUT', 'pets/1', '--retries', '1'])).code).toBe(1);
    expect(down.requests).toHaveLength(2);
  });

  it('a POST after a reset connection is sent once: exit 3', async () => {
    const server = await start(reset());
    const r = await api(server, ['POST', 'pets', '-f', 'name=Rex', '--retries', '5', '--json']);
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'network' });
    expect(server.requests).toHaveLength(1);
  });

  it('PATCH and POST are not sent again after a 503', async () => {
    const server = await start(unavailable);
    expect((await api(server, ['PATCH', 'pets/1', '-f', 'status=sold'])).code).toBe(1);
    expect((await api(server, ['POST', 'pets', '-f', 'name=Rex'])).code).toBe(1);
    expect(server.requests.map((q) => q.method)).toEqual(['PATCH', 'POST']);
  });

  it('any method is sent again after a 429 once Retry-After has passed', async () => {
    const server = await start(
      sequence(apiError(429, 'rate_limited', 'slow down', { 'retry-after': '0' }), answer({ status: 201, body: {} })),
    );
    const r = await api(server, ['PATCH', 'pets/1', '-f', 'status=sold', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(count(server.requests, 'PATCH')).toBe(2);
    expect(r.stderr).toMatch(/^\* retry 1 of 2 after HTTP 429 in 0 s \(Retry-After\)$/m);
  });

  it('--timeout bounds the request: slow headers exit 3 (timeout)', async () => {
    const server = await start(slowHeaders(10_000));
    const r = await api(server, ['pets', '--timeout', '0.5', '--json']);
    expect(r.code).toBe(3);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'timeout' });
  });
});

describe.concurrent('--paginate', () => {
  async function paging(opts: PagingOptions): Promise<PagingServer> {
    const s = await startPagingServer(opts);
    others.push(s);
    return s;
  }

  it('three pages print as one array, exact bytes when piped', async () => {
    const server = await paging({ pages: 3, perPage: 2 });
    const r = await runMain(['api', 'pets', '--paginate'], { env: env(server.baseUrl) });
    expect(r.code, r.stderr).toBe(0);
    const pets = JSON.parse(r.stdout) as { id: number }[];
    expect(pets.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.stdout.match(/^\[/gm)).toHaveLength(1);
    expect(server.urls).toEqual(['/v1/pets', '/v1/pets?limit=2&page=2', '/v1/pets?limit=2&page=3']);
    expect(server.auth.every((a) => a === `Bearer ${KEY}`)).toBe(true);
  });

  it('int64 ids stay exact across pages, piped and on a terminal', async () => {
    const page =
      (n: number, next: boolean): Handler =>
      (_q, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(next ? { link: `</v1/pets?page=${n + 1}>; rel="next"` } : {}),
        });
        res.end(`[{"id":922337203685477580${n}}]`);
        return undefined;
      };
    const server = await start(sequence(page(1, true), page(2, true), page(3, false)));
    const piped = await api(server, ['pets', '--paginate']);
    expect(piped.stdout).toBe('[{"id":9223372036854775801},{"id":9223372036854775802},{"id":9223372036854775803}]\n');
    const other = await start(sequence(page(1, true), page(2, true), page(3, false)));
    const tty = await api(other, ['pets', '--paginate'], { tty: true });
    expect(tty.stdout).toBe(
      '[\n  {\n    "id": 9223372036854775801\n  },\n  {\n    "id": 9223372036854775802\n  },\n  {\n    "id": 9223372036854775803\n  }\n]\n',
    );
  });

  it('a next link to another origin is not followed: the array so far, exit 1', async () => {
    const other = await start();
    const server = await paging({
      pages: 3,
      perPage: 1,
      nextLink: () => `<${other.origin}/v1/pets?page=2>; rel="next"`,
    });
    const r = await runMain(['api', 'pets', '--paginate'], { env: env(server.baseUrl) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(unwrapped(r.stderr)).toContain(`points to another origin, ${other.origin}`);
    expect(other.requests).toHaveLength(0);
  });

  it('--max-pages stops with exit 1 (max_pages), the pages fetched printed as one array', async () => {
    const server = await paging({ pages: 5, perPage: 2 });
    const r = await runMain(['api', 'pets', '--paginate', '--max-pages', '2', '--json'], { env: env(server.baseUrl) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toHaveLength(4);
    expect(lastJson(r.stderr)).toMatchObject({
      code: 'max_pages',
      message: 'stopped at --max-pages 2; the server links to more, so the array printed is incomplete',
    });
    expect(server.urls).toHaveLength(2);
    // The hint is said in the text form only (stderr a terminal).
    const said = await runMain(['api', 'pets', '--paginate', '--max-pages', '2'], {
      env: env(server.baseUrl),
      tty: { stderr: true },
      columns: 200,
    });
    expect(said.stderr).toContain('Raise --max-pages (at most 10000).');
  });

  it('a later page that fails: the array so far is closed, the exit code is the failure’s', async () => {
    const server = await secondPageFails(apiError(404, 'not_found', 'page gone'));
    const r = await api(server, ['pets', '--paginate']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('[{"id":1}]\n');
    expect(unwrapped(r.stderr)).toContain('page gone (not_found, HTTP 404)');
  });

  it('a first page that is not an array prints as it is; with a next link that is exit 1', async () => {
    const server = await start(
      answer({ status: 200, headers: { link: '</v1/x?page=2>; rel="next"' }, raw: '{"a":1}' }),
    );
    const r = await api(server, ['x', '--paginate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"a":1}');
    expect(unwrapped(r.stderr)).toContain('page 1 is not a JSON array');
    expect(server.requests).toHaveLength(1);
  });

  it('a single page without a link is one array', async () => {
    const server = await start(answer({ status: 200, raw: '[]' }));
    const r = await api(server, ['pets', '--paginate']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
  });
});

describe.concurrent("--jq (gh api's rule: values one per line, strings raw)", () => {
  it('filters a JSON answer: strings raw, other values compact JSON, int64 exact', async () => {
    const server = await start(answer({ status: 200, raw: `[{"id":${BIG},"name":"Rex"},{"id":2,"name":"Whiskers"}]` }));
    const r = await api(server, ['pets', '--jq', '.[] | .name, .id']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Rex\n${BIG}\nWhiskers\n2\n`);
  });

  it('on a terminal a raw string from the server is escaped', async () => {
    const server = await start(answer({ status: 200, raw: '{"name":"Rex\\u001b[2Jgone"}' }));
    const r = await api(server, ['pets/1', '--jq', '.name'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('Rex');
  });

  it('a bad expression on a GET is exit 2 with nothing printed (the request may have left)', async () => {
    const { r } = await apiOnNewServer(['pets', '--jq', '.[] |']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('invalid --jq expression');
  });

  it.each([
    ['fails', ['pets/9', '--jq', '.[] |']],
    ['fails, with -i', ['pets/9', '-i', '--jq', '.[] |']],
  ])('a bad expression on a GET that %s is still exit 2: the answer is dropped', async (_what, args) => {
    const server = await start(answer({ status: 404, raw: '{"code":"not_found","message":"no","status":404}' }));
    const r = await api(server, args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('invalid --jq expression');
  });

  it('a bad expression on a GET with -i prints no head either', async () => {
    const { r } = await apiOnNewServer(['pets', '-i', '--jq', '.[] |']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it.each([['POST'], ['DELETE']])('a bad expression on a %s is exit 2 before anything is sent', async (method) => {
    const { server, r } = await apiOnNewServer([method, 'pets', '-f', 'name=X', '--jq', '.[] |', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid --jq expression');
    expect(server.requests).toHaveLength(0);
  });

  it('an answer of 400 or more prints as it is, unfiltered; the exit code follows the status', async () => {
    const server = await start(apiError(404, 'not_found', 'no pet 7'));
    const r = await api(server, ['pets/7', '--jq', '.message']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('a body that is not JSON: exit 1 (jq), nothing printed', async () => {
    const server = await start(answer({ status: 200, headers: { 'content-type': 'text/html' }, raw: '<html>' }));
    const r = await api(server, ['pets', '--jq', '.', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'jq' });
    expect(lastJson(r.stderr).message).toContain('content-type: text/html');
  });

  it('-i prints the head, then the filtered body', async () => {
    const server = await start(answer({ status: 200, headers: { 'x-trace': 'abc' }, raw: '{"name":"Rex"}' }));
    const r = await api(server, ['-i', 'pets/1', '--jq', '.name']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(.+\n)*x-trace: abc\n(.+\n)*\nRex\n$/);
  });

  it('a run-time error: what was printed before stays, exit 1 (jq)', async () => {
    const server = await start(answer({ status: 200, raw: '[{"name":"Rex"},"odd"]' }));
    const r = await api(server, ['pets', '--jq', '.[] | .name', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Rex\n');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'jq' });
  });

  it('--paginate: the filter runs once, on one array of every page', async () => {
    const server = await startPagingServer({ pages: 3, perPage: 2 });
    others.push(server);
    const r = await runMain(['api', 'pets', '--paginate', '--jq', 'length, (map(.id) | add)'], {
      env: env(server.baseUrl),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('6\n21\n');
    expect(server.urls).toHaveLength(3);
  });

  it('--paginate and a later page that fails: the filter does not run on the part (no count that looks whole)', async () => {
    const server = await secondPageFails(apiError(503, 'unavailable', 'down'));
    const r = await api(server, ['pets', '--paginate', '--retries', '0', '--jq', 'length']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    // --jq makes errors JSON objects, as --output json does.
    expect(lastJson(r.stderr)).toMatchObject({ code: 'unavailable', status: 503 });
  });

  it('--paginate past 32 MiB of pages: exit 1 (jq_input_too_large), nothing printed, no page fetched after', async () => {
    // Five pages of 7 MiB (each under the 10 MiB body cap); the fifth passes 32 MiB.
    const page = (n: number): Handler =>
      answer({
        status: 200,
        headers: { link: `</v1/pets?page=${n + 1}>; rel="next"` },
        raw: `[{"id":${n},"name":"${'x'.repeat(7 * 2 ** 20)}"}]`,
      });
    const server = await start(sequence(page(1), page(2), page(3), page(4), page(5), page(6)));
    const r = await api(server, ['pets', '--paginate', '--jq', 'length', '--json', '--timeout', '600']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'jq_input_too_large' });
    expect(server.requests).toHaveLength(5);
    // 35 MiB through the process: a loaded machine may take a minute; only a hang takes 5.
  }, 300_000);

  it('--fields and --output csv still do not apply to api', async () => {
    const { server, r } = await apiOnNewServer(['pets', '--fields', 'id']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fields applies only');
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('--verbose and PETSTORE_DEBUG=api', () => {
  const headers = {
    link: '</v1/pets?page=2>; rel="next"',
    deprecation: GET_PET_DEPRECATION.deprecation,
    sunset: GET_PET_DEPRECATION.sunset,
    'set-cookie': 'session=s3cr3t-cookie; HttpOnly',
    'x-evil': 'a\u009b2Jb',
  };

  const pet = '{"id":7,"name":"Rex","categoryId":1,"status":"available"}';

  // Every command, not only api: a write (createPet's 201) and getPet too.
  it.each([
    [['api', 'pets'], 200, '[]'],
    [['pets', 'list'], 200, '[]'],
    [['pets', 'create', '--name', 'Rex', '--category-id', '1'], 201, pet],
    [['pets', 'get', '7'], 200, pet],
  ])('%j --verbose: response headers after the status line, escaped, Set-Cookie redacted', async (words, code, raw) => {
    const server = await start(answer({ status: code, headers, raw }));
    const r = await runMain([...words, '--verbose'], { env: env(server.baseUrl), secrets: ['s3cr3t-cookie'] });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const lines = r.stderr.split('\n');
    const status = lines.findIndex((l) => new RegExp(`^< ${code} \\(\\d+ ms\\)$`).test(l));
    expect(status).toBeGreaterThan(0);
    const after = lines.slice(status + 1);
    expect(after).toContain('< link: </v1/pets?page=2>; rel="next"');
    expect(after).toContain(`< deprecation: ${GET_PET_DEPRECATION.deprecation}`);
    expect(after).toContain(`< sunset: ${GET_PET_DEPRECATION.sunset}`);
    expect(after).toContain('< set-cookie: <redacted>');
    expect(after).toContain('< x-evil: a\\x9b2Jb');
    expect(r.stderr).toContain('> authorization: Bearer ****7Lw2');

    expect(r.stderr).not.toMatch(/[\u0080-\u009f]/);
  });

  it('PETSTORE_DEBUG=api shows both bodies, credential fields and the key redacted', async () => {
    const server = await start(answer({ status: 201, raw: `{"id":${BIG},"token":"srv-t0ken-abc"}` }));
    const r = await runMain(['api', 'pets', '-f', 'name=Rex', '-f', 'password=hunter2-pw', '-f', `copy=${KEY}`], {
      env: env(server.baseUrl, { PETSTORE_DEBUG: 'api' }),
      secrets: ['hunter2-pw'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^> POST /m);
    expect(r.stderr).toContain('> {"name":"Rex","password":"<redacted>","copy":"****7Lw2"}');
    expect(r.stderr).toMatch(/^< 201 /m);
    expect(r.stderr).toContain(`< {"id":${BIG},"token":"<redacted>"}`);
    expect(r.stdout).toBe(`{"id":${BIG},"token":"srv-t0ken-abc"}`);
    expect(server.requests[0]!.body).toBe(`{"name":"Rex","password":"hunter2-pw","copy":"${KEY}"}`);
  });

  it('without PETSTORE_DEBUG=api, --verbose shows no body', async () => {
    const server = await start(answer({ status: 200, raw: '{"marker":"only-on-stdout"}' }));
    const r = await api(server, ['pets', '--verbose']);
    expect(r.stdout).toContain('only-on-stdout');
    expect(r.stderr).not.toContain('only-on-stdout');
  });
});

describe('the embedded sandbox', () => {
  const sandboxEnv = () => ({ env: { PETSTORE_CONFIG_DIR: tempDir() } });

  it('api pets?limit=3 prints three pets; -i shows its Link', async () => {
    const opts = sandboxEnv();
    const r = await runMain(['--env', 'sandbox', 'api', 'pets?limit=3'], opts);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    const i = await runMain(['--env', 'sandbox', 'api', '-i', 'pets?limit=3'], opts);
    expect(i.stdout).toMatch(/^link: <http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=3&cursor=[^>]+>; rel="next"$/m);
  });

  it('creates a pet with an int64 category, reads it back, and pages through everything', async () => {
    const opts = sandboxEnv();
    const made = await runMain(['--env', 'sandbox', 'api', 'pets', '-f', 'name=Big', '-F', `categoryId=${BIG}`], opts);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`"categoryId":${BIG}`);
    const id = /"id":(\d+)/.exec(made.stdout)![1]!;
    const got = await runMain(['--env', 'sandbox', 'api', `/pets/${id}`], opts);
    expect(got.stdout).toContain(`"categoryId":${BIG}`);
    const all = await runMain(['--env', 'sandbox', 'api', 'pets?limit=4', '--paginate'], opts);
    expect(all.code, all.stderr).toBe(0);
    const pets = JSON.parse(all.stdout) as unknown[];
    expect(pets).toHaveLength(11);
    expect(all.stdout).toContain(`"categoryId":${BIG}`);
  });

  it('a missing pet: the Error body on stdout, exit 5; a method the path does not allow: exit 1', async () => {
    const opts = sandboxEnv();
    const r = await runMain(['--env', 'sandbox', 'api', 'pets/424242'], opts);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'not_found', status: 404 });
    const d = await runMain(['--env', 'sandbox', 'api', 'DELETE', 'pets/1'], opts);
    expect(d.code).toBe(1);
    expect(JSON.parse(d.stdout)).toMatchObject({ code: 'method_not_allowed', status: 405 });
  });

  it('--verbose shows getPet’s Deprecation and Sunset headers', async () => {
    const r = await runMain(['--env', 'sandbox', 'api', 'pets/1', '--verbose'], sandboxEnv());
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`< deprecation: ${GET_PET_DEPRECATION.deprecation}`);
    expect(r.stderr).toContain(`< sunset: ${GET_PET_DEPRECATION.sunset}`);
  });
});

describe('proxies and TLS', () => {
  async function listen(server: Server): Promise<number> {
    others.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }

  it('goes through HTTPS_PROXY like every command, the proxy password masked in --verbose', async () => {
    // An API on the network (a name only the proxy knows, a certificate of the test CA, which
    // Node trusts through NODE_EXTRA_CA_CERTS at start-up: a process of its own).
    const fixture = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
    const target = await pool.start(answer({ status: 200, raw: '[]' }), {
      tls: { key: fixture('remote.key'), cert: fixture('remote.pem') },
    });
    const proxy = await startRecordingProxy({ hosts: { 'api.petstore.test': Number(new URL(target.origin).port) } });
    others.push(proxy);
    const withCreds = proxy.url.replace('http://', 'http://user:pr0xy-pw@');
    const r = await runCli(['api', 'pets', '--verbose'], {
      env: env('https://api.petstore.test/v1', {
        HTTPS_PROXY: withCreds,
        NODE_EXTRA_CA_CERTS: new URL('../fixtures/tls/ca.pem', import.meta.url).pathname,
      }),
      secrets: ['pr0xy-pw'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.seen).toEqual(['CONNECT api.petstore.test:443']);
    expect(proxy.auth[0]).toBe(`Basic ${Buffer.from('user:pr0xy-pw').toString('base64')}`);
    expect(target.requests.map((q) => q.url)).toEqual(['/v1/pets']);
    expect(r.stderr).toContain(`* HTTPS_PROXY http://***@127.0.0.1:${new URL(proxy.url).port}/`);
  });

  it('a self-signed certificate: exit 3, code tls, nothing printed', async () => {
    const fixture = (name: string): string => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
    const port = await listen(
      createHttpsServer({ key: fixture('self-signed.key'), cert: fixture('self-signed.pem') }, (_q, res) =>
        res.end('[]'),
      ),
    );
    const r = await runMain(['api', 'pets', '--json'], { env: env(`https://127.0.0.1:${port}/v1`) });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr)).toMatchObject({ code: 'tls' });
  });
});

/**
 * `Idempotency-Key` on every create (cli-contract.md "Bulk create"; IETF
 * draft-ietf-httpapi-idempotency-key-header) and what it makes safe:
 *
 * - one pet: a random key, new each run, kept when a 429 has it sent again; shown by
 *   `--dry-run`; named in every "may have been created" failure — a timeout, and a 201 whose
 *   body breaks the API (exit 1 `invalid_response`) — with the `petstore api` command that
 *   sends it again, where the environment declares `idempotencyKeys`;
 * - a bulk create: a key per record, from the run's identity and the record's index (two
 *   identical records on one line are two pets); `--force` makes new ones;
 * - `--resend-unknown`: the records a run left unknown, sent again with their keys, where
 *   the environment declares `idempotencyKeys` (the sandbox always), within 24 hours: each
 *   is created exactly once, whether its first request created it or not.
 *
 * Against real servers on 127.0.0.1: test servers that record the headers, a sandbox
 * behind a test server that loses answers on purpose. In-process (`runMain`).
 */
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import { freshConfig, inSandbox, lastJson, readConfig, remoteEnv } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { serverPool, type RecordedRequest, type TestServer } from '../../helpers/test-server.js';

const KEY = 'pst_idempotency_7Hq2Lw9Zx4';
const { start, closeAll } = serverPool();
const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  await closeAll();
  removeTempDirs();
});

/** A UUID (RFC 9562), the key of one pet. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The `Idempotency-Key` a request carried. */
const keyOf = (r: RecordedRequest): string => String(r.headers['idempotency-key']);

/** A server that creates what it is sent (ids from 100). */
function creating(): Promise<TestServer> {
  let id = 100;
  return start((req) =>
    req.method === 'POST'
      ? { status: 201, raw: JSON.stringify({ id: id++, ...(JSON.parse(req.body) as object) }) }
      : { status: 200, body: [] },
  );
}

/** A config folder whose production environment declares `idempotencyKeys` (or not). */
function configDir(idempotencyKeys: boolean): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ production: { idempotencyKeys } }), { mode: 0o600 });
  return dir;
}

describe('the setting NAME.idempotencyKeys', () => {
  it('config set stores a JSON boolean for any environment; false by default; the sandbox needs none', async () => {
    const { file, env } = freshConfig();
    expect((await runMain(['config', 'get', 'production.idempotencyKeys'], { env })).stdout).toBe('false\n');
    for (const [key, value] of [
      ['production.idempotencyKeys', 'true'],
      ['staging-eu.baseUrl', 'https://eu.example.com/v1'],
      ['staging-eu.idempotencyKeys', 'TRUE'],
    ]) {
      const set = await runMain(['config', 'set', key ?? '', value ?? ''], { env });
      expect(set.code, set.stderr).toBe(0);
    }
    expect(readConfig(file)).toMatchObject({
      production: { idempotencyKeys: true },
      environments: { 'staging-eu': { baseUrl: 'https://eu.example.com/v1', idempotencyKeys: true } },
    });
    const bad = await runMain(['config', 'set', 'staging.idempotencyKeys', 'yes'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid staging.idempotencyKeys "yes": must be true or false');
    const sandbox = await runMain(['config', 'set', 'sandbox.idempotencyKeys', 'true'], { env });
    expect(sandbox.code).toBe(2);
  });
});

describe('one pet', () => {
  it('carries a random Idempotency-Key, new each run', async () => {
    const srv = await creating();
    const env = remoteEnv(srv.baseUrl, KEY);
    for (let i = 0; i < 2; i++) {
      const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const keys = srv.requests.map(keyOf);
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(UUID);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('a 429 has it sent again with the same key', async () => {
    let first = true;
    const srv = await start((req) => {
      if (first) {
        first = false;
        return {
          status: 429,
          headers: { 'retry-after': '0' },
          body: { code: 'rate_limited', message: 'slow', status: 429 },
        };
      }
      return { status: 201, raw: JSON.stringify({ id: 1, ...(JSON.parse(req.body) as object) }) };
    });
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1'], {
      env: remoteEnv(srv.baseUrl, KEY),
    });
    expect(r.code, r.stderr).toBe(0);
    const [a, b] = srv.requests.map(keyOf);
    expect(a).toMatch(UUID);
    expect(b).toBe(a);
  });

  it('--dry-run shows the header, in JSON and in the curl command; nothing sent', async () => {
    const srv = await creating();
    const env = remoteEnv(srv.baseUrl, KEY);
    const json = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--dry-run'], { env });
    expect(json.code, json.stderr).toBe(0);
    const req = JSON.parse(json.stdout) as { headers: Record<string, string> };
    expect(req.headers['idempotency-key']).toMatch(UUID);
    const curl = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--dry-run=curl'], { env });
    expect(curl.code, curl.stderr).toBe(0);
    expect(curl.stdout).toMatch(/ -H 'idempotency-key: [0-9a-f-]{36}' /);
    expect(srv.requests).toEqual([]);
  });

  /** A server whose createPet answers 201 with a body that is not a Pet (no id). */
  const brokenCreate = (): Promise<TestServer> => start(() => ({ status: 201, raw: '{"name":"Rex","categoryId":1}' }));

  it('a 201 whose body breaks the API: exit 1 invalid_response, "may have been created", the key in the message and JSON', async () => {
    const srv = await brokenCreate();
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '-o', 'json'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: configDir(false) }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const err = lastJson(r.stderr);
    const key = keyOf(srv.requests[0] as RecordedRequest);
    expect(err).toMatchObject({ code: 'invalid_response', status: 201, idempotencyKey: key });
    expect(err.message).toMatch(/^server sent a Pet that does not match the API: .*; the pet may have been created/);
    expect(err.message).toContain(`(Idempotency-Key ${key})`);
  });

  it('for people: how to check; without idempotencyKeys, no command that sends it again', async () => {
    const srv = await brokenCreate();
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: configDir(false) }),
    });
    expect(r.code).toBe(1);
    const text = unwrapped(r.stderr);
    expect(text).toContain('the pet may have been created');
    expect(text).toContain(`Check with \`petstore pets list --all --jq '.[] | select(.name == "Rex")'\``);
    expect(text).toContain('production is not declared to honour Idempotency-Key');
    expect(text).not.toContain('api POST');
  });

  it('a timeout once the request was sent: exit 3, "may have been created" with its key', async () => {
    const srv = await start(() => new Promise(() => undefined));
    const r = await runMain(
      ['pets', 'create', '--name', 'Rex', '--category-id', '1', '--timeout', '0.3', '-o', 'json'],
      {
        env: remoteEnv(srv.baseUrl, KEY),
      },
    );
    expect(r.code).toBe(3);
    const err = lastJson(r.stderr);
    expect(err).toMatchObject({ code: 'timeout', idempotencyKey: keyOf(srv.requests[0] as RecordedRequest) });
    expect(err.message).toContain('the pet may have been created (Idempotency-Key ');
  });

  it('with idempotencyKeys, the hint gives the api command that sends it again; run twice, it creates one pet', async () => {
    const { sandbox, dir } = await servedSandbox();
    // The first answer lost: a 201 whose body is cut off, from a server in front of the sandbox.
    const front = await start(async (req) => {
      const answer = await forward(sandbox, req);
      return { status: answer.status, raw: answer.body.slice(0, -1) };
    });
    const config = configDir(true);
    const r = await runMain(['pets', 'create', '--name', 'Rex the 2nd', '--category-id', '9'], {
      env: remoteEnv(front.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: config }),
    });
    expect(r.code).toBe(1);
    // Never broken: inline between backquotes, or bare on a line of its own.
    const shown = /`petstore (api POST pets [^`]*)`|^ *petstore (api POST pets .*)$/m.exec(r.stderr);
    const command = shown?.[1] ?? shown?.[2];
    const key = keyOf(front.requests[0] as RecordedRequest);
    expect(command).toBe(`api POST pets -f 'name=Rex the 2nd' -F categoryId=9 -H 'Idempotency-Key: ${key}'`);
    // The command as pasted, against the sandbox itself: the pet created first, answered again.
    const words = [
      'api',
      'POST',
      'pets',
      '-f',
      'name=Rex the 2nd',
      '-F',
      'categoryId=9',
      '-H',
      `Idempotency-Key: ${key}`,
    ];
    const env = remoteEnv(sandbox.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: config });
    const again = [await runMain(words, { env }), await runMain(words, { env })];
    for (const a of again) expect(a.code, a.stderr).toBe(0);
    expect(again[0]?.stdout).toBe(again[1]?.stdout);
    const named = (await listIn(dir)).filter((l) => l.includes('Rex the 2nd'));
    expect(named).toHaveLength(1);
  });
});

/** A sandbox served in the test (its own data folder), closed when the file ends. */
async function servedSandbox(): Promise<{ sandbox: RunningSandbox; dir: string }> {
  const dir = tempDir();
  const sandbox = await startSandbox({ store: new SandboxStore(join(dir, 'sandbox.json')) });
  sandboxes.push(sandbox);
  return { sandbox, dir };
}

/** Sends `req` on to the sandbox, headers (the key, the Idempotency-Key) and body as they came. */
function forward(
  sandbox: RunningSandbox,
  req: RecordedRequest,
): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const url = new URL(req.url, sandbox.baseUrl);
  return new Promise((resolve, reject) => {
    const out = request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers as Record<string, string> }),
      );
    });
    out.on('error', reject);
    out.end(req.body);
  });
}

/** The pets of the sandbox data in `dir`, as `pets list --all` prints them. */
async function listIn(dir: string): Promise<string[]> {
  const r = await inSandbox(dir, ['pets', 'list', '--all', '--limit', '100']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trimEnd().split('\n');
}

describe('a bulk create', () => {
  it('a key per record, from the run and the record index: two identical records on one line are two pets', async () => {
    const srv = await creating();
    const dir = tempDir();
    const file = join(dir, 'twins.json');
    writeFileSync(file, '[{"name":"Twin","categoryId":1},{"name":"Twin","categoryId":1}]');
    const env = remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir });
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    const keys = srv.requests.map(keyOf);
    expect(keys).toHaveLength(2);
    expect(keys.map((k) => k.replace(/-\d+$/, '-N'))).toEqual([
      keys[0]?.replace(/-0$/, '-N'),
      keys[0]?.replace(/-0$/, '-N'),
    ]);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}-0$/);
    expect(keys[1]).toMatch(/^[0-9a-f]{32}-1$/);
  });

  it('the sandbox creates both of two identical records on one line', async () => {
    const dir = tempDir();
    const file = join(dir, 'twins.json');
    writeFileSync(file, '[{"name":"Twin","categoryId":1},{"name":"Twin","categoryId":1}]');
    const r = await inSandbox(dir, ['pets', 'create', '--from-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect((await listIn(dir)).filter((l) => l.includes('\tTwin\t'))).toHaveLength(2);
    // Sent again with --force after a complete run: new keys, so two more.
    const again = await inSandbox(dir, ['pets', 'create', '--from-file', file, '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect((await listIn(dir)).filter((l) => l.includes('\tTwin\t'))).toHaveLength(4);
  });

  it('--force after a complete run, and a run of an input created in full: new keys', async () => {
    const srv = await creating();
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n');
    const env = remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir });
    for (const flags of [[], ['--force'], []]) {
      const r = await runMain(['pets', 'create', '--from-file', file, ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const runs = [0, 2, 4].map((i) => srv.requests.slice(i, i + 2).map(keyOf));
    const ids = runs.map((keys) => keys[0]?.replace(/-0$/, ''));
    expect(new Set(ids).size).toBe(3);
  });
});

/**
 * A sandbox behind a test server that loses the answer of some records on purpose: for the
 * names in `createdThenLost` it forwards the request (the sandbox creates the pet) and then
 * resets the connection; for `lostBefore` it resets it without forwarding (nothing
 * created). Every other request is forwarded and answered.
 */
async function lossyFront(
  createdThenLost: string[],
  lostBefore: string[],
): Promise<{ front: TestServer; sandbox: RunningSandbox; dir: string }> {
  const { sandbox, dir } = await servedSandbox();
  const lose = { after: new Set(createdThenLost), before: new Set(lostBefore) };
  const front = await start(async (req, res) => {
    const name = req.method === 'POST' ? (JSON.parse(req.body) as { name: string }).name : '';
    if (lose.before.delete(name)) {
      res.destroy();
      return undefined;
    }
    const answer = await forward(sandbox, req);
    if (lose.after.delete(name)) {
      res.destroy();
      return undefined;
    }
    const headers = Object.fromEntries(
      Object.entries(answer.headers).filter(([k]) => ['link', 'idempotent-replayed', 'location'].includes(k)),
    );
    return { status: answer.status, headers, raw: answer.body };
  });
  return { front, sandbox, dir };
}

/** NDJSON of records `R1`..`Rn` in a new file. */
function input(n: number): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'pets.ndjson');
  writeFileSync(file, Array.from({ length: n }, (_, i) => `{"name":"R${i + 1}","categoryId":1}\n`).join(''));
  return { dir, file };
}

describe('--resend-unknown', () => {
  it('sends the unknown records again with their keys: each created exactly once, whether its first request created it or not', async () => {
    const { front, sandbox, dir: data } = await lossyFront(['R3'], ['R4']);
    const { dir, file } = input(10);
    const env = remoteEnv(front.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: configDirIn(dir, true) });
    const first = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], { env });
    expect(first.code).toBe(3);
    const account = lastJson(first.stderr) as ReturnType<typeof lastJson> & {
      unknown: { line: number }[];
      remainingFile: string;
    };
    expect(account.unknown.map((u) => u.line)).toEqual([3, 4]);
    const firstKeys = new Map(front.requests.map((r) => [(JSON.parse(r.body) as { name: string }).name, keyOf(r)]));
    // The same input without --resend-unknown is refused, and names the way.
    const refused = await runMain(['pets', 'create', '--from-file', file], { env });
    expect(refused.code).toBe(2);
    expect(unwrapped(refused.stderr)).toContain(`petstore pets create --from-file ${file} --resend-unknown`);
    front.requests.length = 0;
    const resent = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown', '-o', 'ndjson'], { env });
    expect(resent.code, resent.stderr).toBe(0);
    // Only the unknown records, each with the key it was first sent with.
    expect(front.requests.map((r) => [(JSON.parse(r.body) as { name: string }).name, keyOf(r)])).toEqual([
      ['R3', firstKeys.get('R3')],
      ['R4', firstKeys.get('R4')],
    ]);
    expect(
      resent.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { name: string }).name),
    ).toEqual(['R3', 'R4']);
    expect(lastJson(resent.stderr).message).toBe(
      'sent again 2 records that may have been created: 2 created (1 had been created before: the server answered with the pet it made then)',
    );
    // Then the records never sent, from the remaining file: every record exactly once.
    const rest = await runMain(['pets', 'create', '--from-file', account.remainingFile], { env });
    expect(rest.code, rest.stderr).toBe(0);
    const names = (await listIn(data))
      .map((l) => l.split('\t')[1])
      .filter((n) => n?.startsWith('R') === true && n !== 'Rex');
    expect(names.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `R${i + 1}`).sort());
    // Nothing left: the input counts as created in full.
    const again = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown'], { env });
    expect(again.code).toBe(2);
    expect(unwrapped(again.stderr)).toContain('Every record of it was created.');
  });

  it('where the environment does not declare idempotencyKeys: exit 2 naming the setting, nothing sent', async () => {
    const { front, sandbox } = await lossyFront([], ['R2']);
    const { dir, file } = input(3);
    const env = remoteEnv(front.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: configDirIn(dir, false) });
    expect((await runMain(['pets', 'create', '--from-file', file], { env })).code).toBe(3);
    front.requests.length = 0;
    const r = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown'], { env });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      'production is not declared to honour them (production.idempotencyKeys); nothing was sent',
    );
    expect(unwrapped(r.stderr)).toContain('petstore config set production.idempotencyKeys true');
    expect(front.requests).toEqual([]);
  });

  it('more than 24 hours after the records were sent: exit 2 saying why, nothing sent', async () => {
    const { front, sandbox } = await lossyFront(['R1'], []);
    const { dir, file } = input(2);
    const env = remoteEnv(front.baseUrl, sandbox.apiKey, { PETSTORE_CONFIG_DIR: configDirIn(dir, true) });
    // The run's clock, hours after the first run (the sandbox keeps its keys by its own clock).
    const sent = Date.parse('2026-11-28T09:00:00Z');
    const later = (hours: number) => () => new Date(sent + hours * 3600_000);
    const first = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1'], { env, now: later(0) });
    expect(first.code).toBe(3);
    front.requests.length = 0;
    const r = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown'], { env, now: later(24.01) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      'were first sent at 2026-11-28 09:00 UTC, more than 24 hours ago: the server may have forgotten their Idempotency-Keys',
    );
    expect(front.requests).toEqual([]);
    // Within the day it is sent again.
    const ok = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown'], { env, now: later(23.9) });
    expect(ok.code, ok.stderr).toBe(0);
    expect(front.requests).toHaveLength(1);
  });

  it('with nothing unknown, with --force, without --from-file: exit 2, nothing sent', async () => {
    const srv = await creating();
    const { dir, file } = input(2);
    const env = remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: configDirIn(dir, true) });
    const none = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown'], { env });
    expect(none.code).toBe(2);
    expect(unwrapped(none.stderr)).toContain('left records whose outcome is unknown; nothing was sent');
    const both = await runMain(['pets', 'create', '--from-file', file, '--resend-unknown', '--force'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--force and --resend-unknown cannot be used together');
    const alone = await runMain(['pets', 'create', '--name', 'A', '--category-id', '1', '--resend-unknown'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--resend-unknown works with --from-file only');
    expect(srv.requests).toEqual([]);
  });
});

/** Writes a config whose production declares `idempotencyKeys` (or not) into `dir`; returns `dir`. */
function configDirIn(dir: string, idempotencyKeys: boolean): string {
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ production: { idempotencyKeys } }), { mode: 0o600 });
  return dir;
}

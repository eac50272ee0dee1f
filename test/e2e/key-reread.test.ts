/**
 * A key command's key read again after a 401 (cli-contract.md "Environments": once per run,
 * and once more after a 401, at most once a minute; a changed key then used for the rest of
 * the run), end to end: a test server on 127.0.0.1 that switches the key it accepts mid-run,
 * and a real key command script that prints a file the test rewrites. A single command,
 * `pets watch`, `petstore mcp` and a bulk create keep going with the new key; the same key
 * printed again, or a second rotation within a minute of the run's clock, ends with exit 4;
 * PETSTORE_API_KEY and the stored key are never read again.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileServers } from '../helpers/harness.js';
import { mcpEnv, serveMcp } from '../helpers/mcp-client.js';
import { registerSecret } from '../helpers/run-cli.js';
import { runMain, TEST_NOW } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { errorReply, type RecordedRequest, type TestServer } from '../helpers/test-server.js';

const KEYS = ['rotating-key-0123456789-FIRST', 'rotating-key-0123456789-SECOND', 'rotating-key-0123456789-THIRD'];
for (const k of KEYS) registerSecret(k);
const [FIRST, SECOND, THIRD] = KEYS as [string, string, string];

const { start } = fileServers();

/** A server that accepts one key at a time (`rotate` switches it) and keeps a list of pets. */
interface RotatingServer {
  server: TestServer;
  accepted: string;
  pets: { id: number; name: string; categoryId: number; status: string }[];
  /** The key each request carried, in order (`none` without one). */
  keysSent: () => string[];
}

/** A key command printing `key.txt` and counting its runs in `runs.log`, and the helpers to read them. */
function keyCommand(initial: string): { command: string; setKey: (k: string) => void; runs: () => number } {
  const dir = tempDir();
  const keyFile = join(dir, 'key.txt');
  const runsFile = join(dir, 'runs.log');
  writeFileSync(keyFile, `${initial}\n`);
  writeFileSync(runsFile, '');
  const script = join(dir, 'print-key.sh');
  writeFileSync(script, `#!/bin/sh\necho run >> '${runsFile}'\ncat '${keyFile}'\n`);
  chmodSync(script, 0o755);
  return {
    command: script,
    setKey: (k) => writeFileSync(keyFile, `${k}\n`),
    runs: () => readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).length,
  };
}

/**
 * Starts a rotating server; `onRequest` may rotate before the request is judged (so the
 * request that meets the rotation is refused).
 */
async function rotatingServer(onRequest?: (req: RecordedRequest, s: RotatingServer) => void): Promise<RotatingServer> {
  let nextId = 100;
  const state: RotatingServer = {
    server: undefined as unknown as TestServer,
    accepted: FIRST,
    pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }],
    keysSent: () => state.server.requests.map((r) => keyName(r.headers.authorization)),
  };
  state.server = await start((req) => {
    onRequest?.(req, state);
    if (req.headers.authorization !== `Bearer ${state.accepted}`) return errorReply(401, 'unauthorized', 'bad key');
    if (req.method === 'POST') {
      const pet = {
        id: nextId++,
        status: 'available',
        ...(JSON.parse(req.body) as { name: string; categoryId: number }),
      };
      state.pets.push(pet);
      return { status: 201, body: pet };
    }
    return { status: 200, body: state.pets };
  });
  return state;
}

/** `first`, `second`, `third` or what else a request's authorization header was. */
function keyName(auth: string | undefined): string {
  const i = KEYS.findIndex((k) => auth === `Bearer ${k}`);
  return i === 0 ? 'first' : i === 1 ? 'second' : i === 2 ? 'third' : (auth ?? 'none');
}

/** A config folder whose production environment is `baseUrl` with `command` as its apiKeyCommand. */
async function configured(baseUrl: string, command: string): Promise<Record<string, string>> {
  const dir = tempDir();
  const env = { PETSTORE_CONFIG_DIR: dir, HOME: dir };
  expect((await runMain(['config', 'set', 'production.baseUrl', baseUrl], { env })).code).toBe(0);
  expect((await runMain(['config', 'set', 'production.apiKeyCommand', command], { env })).code).toBe(0);
  return env;
}

describe.concurrent('a key command run again after a 401', () => {
  it('a single command: the refused request is sent again with the new key, exit 0', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer((_req, s) => {
      if (s.accepted === FIRST) {
        s.accepted = SECOND;
        cmd.setKey(SECOND);
      }
    });
    const env = await configured(srv.server.baseUrl, cmd.command);
    const r = await runMain(['pets', 'list', '--output', 'json', '--verbose'], { env, secrets: KEYS });
    expect(r.code, r.stderr).toBe(0);
    // --verbose says why it was sent again, and masks the new key as it masked the old.
    expect(r.stderr).toContain('* 401: the key command printed another key; sending again with it');
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(srv.keysSent()).toEqual(['first', 'second']);
    expect(cmd.runs()).toBe(2);
  });

  it('a command that prints the refused key again: exit 4 after one re-run, not sent again', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer();
    srv.accepted = SECOND;
    const env = await configured(srv.server.baseUrl, cmd.command);
    const r = await runMain(['pets', 'list'], { env, secrets: KEYS });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('production.apiKeyCommand was refused');
    expect(srv.keysSent()).toEqual(['first']);
    expect(cmd.runs()).toBe(2);
  });

  it('a new key refused too: exit 4, the command not run a third time', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer((_req, s) => {
      if (s.accepted === FIRST) {
        s.accepted = THIRD;
        cmd.setKey(SECOND);
      }
    });
    const env = await configured(srv.server.baseUrl, cmd.command);
    const r = await runMain(['pets', 'list'], { env, secrets: KEYS });
    expect(r.code, r.stderr).toBe(4);
    expect(srv.keysSent()).toEqual(['first', 'second']);
    expect(cmd.runs()).toBe(2);
  });

  it('a key from PETSTORE_API_KEY or the stored key is never read again: exit 4 at the first 401', async () => {
    const cmd = keyCommand(SECOND);
    const srv = await rotatingServer();
    srv.accepted = SECOND;
    const env = await configured(srv.server.baseUrl, cmd.command);
    const fromVariable = await runMain(['pets', 'list'], { env: { ...env, PETSTORE_API_KEY: FIRST }, secrets: KEYS });
    expect(fromVariable.code, fromVariable.stderr).toBe(4);
    expect(cmd.runs()).toBe(0);
    expect((await runMain(['config', 'unset', 'production.apiKeyCommand'], { env })).code).toBe(0);
    const login = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: FIRST });
    expect(login.code, login.stderr).toBe(0);
    const stored = await runMain(['pets', 'list'], { env, secrets: KEYS });
    expect(stored.code, stored.stderr).toBe(4);
    expect(srv.keysSent()).toEqual(['first', 'first']);
    expect(cmd.runs()).toBe(0);
  });

  /** A watch whose server rotates the key at the requests `rotations` name; ended once the last rotation's pet is printed. */
  async function watchThroughRotations(rotations: { at: number; key: string; advanceMs: number }[]) {
    const cmd = keyCommand(FIRST);
    let offset = 0;
    const srv = await rotatingServer((_req, s) => {
      const n = s.server.requests.length;
      for (const rot of rotations) {
        if (n === rot.at) {
          s.accepted = rot.key;
          cmd.setKey(rot.key);
          offset += rot.advanceMs;
          // A new pet with the new key: the walk after the rotation has an event to print.
          s.pets.push({ id: 10 + n, name: `After${n}`, categoryId: 1, status: 'available' });
        }
      }
    });
    const env = await configured(srv.server.baseUrl, cmd.command);
    const controller = new AbortController();
    const base = new Date(TEST_NOW).getTime();
    const last = rotations.at(-1)!;
    const run = runMain(['pets', 'watch', '--interval', '1', '--output', 'ndjson'], {
      env,
      secrets: KEYS,
      signal: controller.signal,
      now: () => new Date(base + offset),
      onOutput: (_stream, text) => {
        if (text.includes(`After${last.at}`)) controller.abort();
      },
    });
    return { r: await run, srv, cmd };
  }

  it('pets watch keeps running through a rotation, and its next walk succeeds with the new key', async () => {
    const { r, srv, cmd } = await watchThroughRotations([{ at: 3, key: SECOND, advanceMs: 0 }]);
    // Ended by the test (as Ctrl-C) once the walk after the rotation printed its new pet.
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('"After3"');
    expect(srv.keysSent().slice(0, 4)).toEqual(['first', 'first', 'first', 'second']);
    expect(new Set(srv.keysSent().slice(3))).toEqual(new Set(['second']));
    expect(cmd.runs()).toBe(2);
  });

  it('pets watch: a second rotation a minute later (the run clock) reads the key again', async () => {
    const { r, cmd } = await watchThroughRotations([
      { at: 2, key: SECOND, advanceMs: 0 },
      { at: 5, key: THIRD, advanceMs: 60_000 },
    ]);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('"After5"');
    expect(cmd.runs()).toBe(3);
  });

  it('pets watch: a second rotation within a minute ends with exit 4, the command run twice in all', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer((_req, s) => {
      const n = s.server.requests.length;
      const key = n === 2 ? SECOND : n === 4 ? THIRD : undefined;
      if (key !== undefined) {
        s.accepted = key;
        cmd.setKey(key);
      }
    });
    const env = await configured(srv.server.baseUrl, cmd.command);
    // The run's clock stands still: every 401 comes within the same minute.
    const r = await runMain(['pets', 'watch', '--interval', '1', '--output', 'ndjson'], { env, secrets: KEYS });
    expect(r.code, r.stderr).toBe(4);
    expect(cmd.runs()).toBe(2);
    expect(srv.keysSent()).toEqual(['first', 'first', 'second', 'second']);
  });

  it('a bulk create: the records refused with the old key are sent again with the new one, each created once', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer((req, s) => {
      if (req.method === 'POST' && s.server.requests.length === 4 && s.accepted === FIRST) {
        s.accepted = SECOND;
        cmd.setKey(SECOND);
      }
    });
    const env = await configured(srv.server.baseUrl, cmd.command);
    const dir = tempDir();
    const state = join(dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    const file = join(dir, 'pets.ndjson');
    const names = Array.from({ length: 30 }, (_, i) => `P${i + 1}`);
    writeFileSync(file, names.map((n, i) => `{"name":"${n}","categoryId":${i + 1}}\n`).join(''));
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '4', '--output', 'ndjson'], {
      env: { ...env, PETSTORE_STATE_DIR: state },
      secrets: KEYS,
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(cmd.runs()).toBe(2);
    // Each record created once, printed once, in input order; none left to send.
    expect(
      srv.pets
        .slice(1)
        .map((p) => p.name)
        .sort(),
    ).toEqual([...names].sort());
    const printed = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { name: string }).name);
    expect(printed).toEqual(names);
    // A record refused with the old key went again with the new one, the same request (its
    // Idempotency-Key, when it has one): never twice with one key, never dropped.
    const posts = srv.server.requests.filter((q) => q.method === 'POST');
    const paths: string[][] = [];
    for (const name of names) {
      const sent = posts.filter((q) => (JSON.parse(q.body) as { name: string }).name === name);
      paths.push(sent.map((q) => keyName(q.headers.authorization)));
      expect(new Set(sent.map((q) => q.headers['idempotency-key'])).size).toBe(1);
    }
    for (const p of paths) expect([['first'], ['first', 'second'], ['second']]).toContainEqual(p);
    expect(paths.filter((p) => p.length === 2).length).toBeGreaterThan(0);
    // The run's record agrees: complete, with no remaining file beside the input.
    const records = readdirSync(state).filter((f) => f.endsWith('.json'));
    expect(records).toHaveLength(1);
    expect((JSON.parse(readFileSync(join(state, records[0]!), 'utf8')) as { state: string }).state).toBe('complete');
    expect(readdirSync(dir)).toEqual(['pets.ndjson', 'state']);
  });

  it('petstore mcp: a call refused after a rotation is answered with the new key, and so are the next', async () => {
    const cmd = keyCommand(FIRST);
    const srv = await rotatingServer();
    const env = mcpEnv();
    const cfg = await configured(srv.server.baseUrl, cmd.command);
    Object.assign(env, { PETSTORE_CONFIG_DIR: cfg.PETSTORE_CONFIG_DIR });
    const served = await serveMcp(['mcp'], env);
    try {
      const first = await served.client.callTool({ name: 'list_pets', arguments: {} });
      expect(first.isError, JSON.stringify(first)).not.toBe(true);
      srv.accepted = SECOND;
      cmd.setKey(SECOND);
      const second = await served.client.callTool({ name: 'list_pets', arguments: {} });
      expect(second.isError, JSON.stringify(second)).not.toBe(true);
      const third = await served.client.callTool({ name: 'list_pets', arguments: {} });
      expect(third.isError, JSON.stringify(third)).not.toBe(true);
      expect(cmd.runs()).toBe(2);
      const sent = srv.keysSent();
      expect(sent.slice(-3)).toEqual(['first', 'second', 'second']);
      for (const frame of served.transport.frames) for (const k of KEYS) expect(frame).not.toContain(k);
      for (const k of KEYS) expect(served.transport.stderr).not.toContain(k);
    } finally {
      await served.transport.close();
      await served.transport.exit;
    }
  });
});

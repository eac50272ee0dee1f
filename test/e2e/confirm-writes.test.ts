/**
 * The question of `NAME.confirmWrites` on a real terminal (tmux; cli-contract.md
 * "Environments": "every write to it asks on a terminal"): it names the environment, the
 * host and what will be sent, defaults to No, and the answer decides whether the 127.0.0.1
 * test server receives anything — for `pets create` (after the values it asked for), a
 * bulk create (once for the whole file) and `api` with a write method; `api GET` never
 * asks. A key typed before the question is shown is not its answer. The matrix off a terminal is test/commands/confirm-writes.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_confirm_tty_0123';
const pool = serverPool();
const sessions: TmuxSession[] = [];
afterAll(async () => {
  for (const t of sessions) t.kill();
  await pool.closeAll();
  removeTempDirs();
});

/** A limit for a hang: a loaded machine draws the screen late, never wrongly. */
const SCREEN_MS = 60_000;

/** A server that creates what it is sent (id 42) and lists nothing. */
function shop(): Promise<TestServer> {
  return pool.start((req) =>
    req.method === 'POST'
      ? { status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) }
      : { status: 200, body: [] },
  );
}

/**
 * A terminal (200 columns: the question on one line) whose runs go to `server`, production
 * asking before writes; `env` is added to its runs' environment (a config folder of the
 * test's own in `PETSTORE_CONFIG_DIR`).
 */
async function terminal(server: TestServer, env: Record<string, string> = {}): Promise<TmuxSession> {
  const dir = env.PETSTORE_CONFIG_DIR ?? tempDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ production: { confirmWrites: true } }), { mode: 0o600 });
  const t = startTmux({
    width: 200,
    height: 40,
    env: remoteEnv(server.baseUrl, KEY, { ...env, PETSTORE_CONFIG_DIR: dir }),
  });
  sessions.push(t);
  await t.waitFor(/^[$#] $/m, { timeoutMs: SCREEN_MS });
  return t;
}

/**
 * Types `command` in `t`, waits for the question and answers it with `keys`: the screen
 * as it asked, the screen once the run exited, and its exit code.
 */
async function answer(
  t: TmuxSession,
  command: string,
  keys: string[],
): Promise<{ asked: string; screen: string; rc: number }> {
  t.sendLine(`${command}; echo "rc=$?"`);
  const asked = await t.waitFor(/Send to production.*\(y\/N\)/, { timeoutMs: SCREEN_MS });
  t.send(...keys);
  const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
  return { asked, screen, rc: Number(/^rc=(\d+)/m.exec(screen)?.[1]) };
}

describe.concurrent('confirmWrites on a terminal', () => {
  it('pets create asks, naming the environment, host and pet; No by default: exit 2, nothing sent', async () => {
    const server = await shop();
    const t = await terminal(server);
    const host = new URL(server.origin).host;
    const { asked, screen, rc } = await answer(t, 'petstore pets create --name Rex --category-id 1', ['Enter']);
    expect(asked).toContain(`? Send to production (${host}): create the pet {"name":"Rex","categoryId":1}? (y/N)`);
    expect(server.requests).toEqual([]);
    expect(screen).toContain('{"name":"Rex","categoryId":1}? No');
    expect(rc).toBe(2);
    expect(screen).toContain(`not confirmed: nothing was sent to production (${host})`);
    expect(server.requests).toEqual([]);
  }, 240_000);

  it('answered yes: the pet is sent once', async () => {
    const server = await shop();
    const t = await terminal(server);
    const { screen, rc } = await answer(t, 'petstore pets create --name Rex --category-id 1', ['y', 'Enter']);
    expect(rc).toBe(0);
    expect(screen).toMatch(/^42\s+Rex\s+1/m);
    expect(server.requests.map((r) => [r.method, r.body])).toEqual([['POST', '{"name":"Rex","categoryId":1}']]);
  }, 240_000);

  it('--yes on a terminal is the answer given in advance: nothing asked, sent once', async () => {
    const server = await shop();
    const t = await terminal(server);
    t.sendLine('petstore --yes pets create --name Rex --category-id 1; echo "rc=$?"');
    const screen = await t.waitFor(/rc=\d+/, { timeoutMs: SCREEN_MS });
    expect(screen).toContain('rc=0');
    expect(screen).not.toMatch(/\(y\/N\)/);
    expect(server.requests.map((r) => [r.method, r.body])).toEqual([['POST', '{"name":"Rex","categoryId":1}']]);
  }, 240_000);

  it('Ctrl-C at the question: exit 130, nothing sent', async () => {
    const server = await shop();
    const t = await terminal(server);
    const { rc } = await answer(t, 'petstore pets create --name Rex --category-id 1', ['C-c']);
    expect(rc).toBe(130);
    expect(server.requests).toEqual([]);
  }, 240_000);

  it('a y typed before the question is shown is not its answer: the question waits, and n then sends nothing', async () => {
    const server = await shop();
    const t = await terminal(server);
    const gate = join(tempDir(), 'go');
    // The run starts only once the test has typed ahead and seen the terminal echo it.
    t.sendLine(
      `while [ ! -e '${gate}' ]; do sleep 0.05; done; petstore pets create --name Rex --category-id 1; echo "rc=$?"`,
    );
    t.send('y', 'Enter');
    await t.waitFor(/^y$/m, { timeoutMs: SCREEN_MS });
    writeFileSync(gate, '');
    // Taken as the answer, the y would have sent the pet and ended the run with rc=0.
    await t.waitFor(/Send to production.*\(y\/N\)/, { timeoutMs: SCREEN_MS });
    t.send('n', 'Enter');
    const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^rc=2\s*$/m);
    expect(screen).toContain('{"name":"Rex","categoryId":1}? No');
    expect(server.requests).toEqual([]);
  }, 240_000);

  it('asks after the values pets create asked for, showing the pet they make', async () => {
    const server = await shop();
    const t = await terminal(server);
    t.sendLine('petstore pets create --name Kiwi -s sold; echo "rc=$?"');
    await t.waitFor(/Category id:/, { timeoutMs: SCREEN_MS });
    t.type('4');
    t.send('Enter');
    const asked = await t.waitFor(/Send to production.*\(y\/N\)/, { timeoutMs: SCREEN_MS });
    expect(asked).toContain('create the pet {"name":"Kiwi","categoryId":4,"status":"sold"}?');
    expect(server.requests).toEqual([]);
    t.send('y', 'Enter');
    const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(server.requests).toHaveLength(1);
  }, 240_000);

  it('pets create --from-file asks once for the whole file, naming how many records and the file', async () => {
    const server = await shop();
    const t = await terminal(server);
    const file = join(tempDir(), 'new-pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n{"name":"C","categoryId":1}\n');
    const { asked, screen, rc } = await answer(t, `petstore pets create --from-file ${file}`, ['y', 'Enter']);
    expect(asked).toContain(`create 3 pets from "${file}"? (y/N)`);
    expect(screen.match(/Send to production/g)).toHaveLength(1);
    expect(rc).toBe(0);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { name: string }).name)).toEqual(['A', 'B', 'C']);
  }, 240_000);

  it('pets create --from-file declined: exit 2, nothing sent', async () => {
    const server = await shop();
    const t = await terminal(server);
    const file = join(tempDir(), 'new-pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n');
    const { rc } = await answer(t, `petstore pets create --from-file ${file}`, ['n', 'Enter']);
    expect(rc).toBe(2);
    expect(server.requests).toEqual([]);
  }, 240_000);

  it('api POST asks, showing the method, the URL and the body; declined: nothing sent', async () => {
    const server = await shop();
    const t = await terminal(server);
    const { asked, rc } = await answer(t, 'petstore api POST /pets -f name=Rex -F categoryId=1', ['Enter']);
    expect(asked).toContain(`POST ${server.baseUrl}/pets with 29 bytes: {"name":"Rex","categoryId":1}? (y/N)`);
    expect(rc).toBe(2);
    expect(server.requests).toEqual([]);
  }, 240_000);

  it('api GET never asks', async () => {
    const server = await shop();
    const t = await terminal(server);
    t.sendLine('petstore api /pets; echo "rc=$?"');
    const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(screen).not.toContain('Send to');
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
  }, 240_000);
});

/**
 * The question race (cli-contract.md "Bulk create": "a run takes the record's lock first,
 * then judges what was sent, then asks the `confirmWrites` question, then sends"): a bulk
 * create asks holding its run's lock, so no other run of the same file sends between its
 * judgement and its answer, and a run that finds another sending, or one stopped partway,
 * is refused before it asks.
 */
describe('a bulk create asks holding its lock', () => {
  /** 30 records in a file of a folder that is also the runs' config and state folder. */
  function setUp(): { dir: string; file: string; env: Record<string, string> } {
    const dir = tempDir();
    const file = join(dir, 'race.ndjson');
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `{"name":"R${i + 1}","categoryId":1}\n`).join(''));
    return { dir, file, env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_STATE_DIR: join(dir, 'state') } };
  }

  const posted = (server: TestServer): string[] =>
    server.requests.filter((r) => r.method === 'POST').map((r) => (JSON.parse(r.body) as { name: string }).name);
  const everyRecordOnce = Array.from({ length: 30 }, (_, i) => `R${i + 1}`);

  it('while it waits at the question, another run of the file is refused at once; yes then sends each record once', async () => {
    const server = await shop();
    const { file, env } = setUp();
    const t = await terminal(server, env);
    t.sendLine(`petstore pets create --from-file ${file}; echo "rc=$?"`);
    await t.waitFor(/Send to production.*\(y\/N\)/, { timeoutMs: SCREEN_MS });
    // A script sends the same file meanwhile, as one that would complete, then as one that
    // would stop partway (the server refusing its third record).
    for (const reply of ['created', 'refused'] as const) {
      if (reply === 'refused')
        server.handle(() => ({ status: 400, body: { code: 'bad', message: 'no', status: 400 } }));
      const other = await runCli(['--yes', 'pets', 'create', '--from-file', file, '-o', 'ndjson'], {
        env: remoteEnv(server.baseUrl, KEY, env),
      });
      expect(other.code, other.stderr).toBe(2);
      expect(lastJson(other.stderr)).toMatchObject({ code: 'already_sent' });
      expect(lastJson(other.stderr).message).toContain('is being sent to production now, by another petstore');
    }
    expect(posted(server)).toEqual([]);
    server.handle((req) => ({ status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) }));
    t.send('y', 'Enter');
    const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(posted(server)).toEqual(everyRecordOnce);
  }, 240_000);

  it('a run of the file that is sending, or that stopped partway, is refused before the question', async () => {
    const server = await shop();
    const { file, env } = setUp();
    // The script's run sends, its requests held by the server until the terminal's run is refused.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.handle(async (req) => {
      await held;
      return { status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) };
    });
    const sending = runCli(['--yes', 'pets', 'create', '--from-file', file], {
      env: remoteEnv(server.baseUrl, KEY, env),
    });
    const t = await terminal(server, env);
    await until(() => server.requests.length > 0);
    t.sendLine(`petstore pets create --from-file ${file}; echo "rc=$?"`);
    let screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^rc=2\s*$/m);
    expect(unwrapped(screen)).toContain('is being sent to production now, by another petstore');
    expect(screen).not.toContain('(y/N)');
    release();
    expect((await sending).code).toBe(0);
    expect(posted(server)).toEqual(everyRecordOnce);
    // Then a run of a second file that stopped partway: the third record refused.
    const second = setUp();
    server.requests.length = 0;
    server.handle((req) =>
      (JSON.parse(req.body) as { name: string }).name === 'R3'
        ? { status: 400, body: { code: 'bad', message: 'no', status: 400 } }
        : { status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) },
    );
    const stopped = await runCli(['--yes', 'pets', 'create', '--from-file', second.file, '--concurrency', '1'], {
      env: remoteEnv(server.baseUrl, KEY, second.env),
    });
    expect(stopped.code).toBe(6);
    t.sendLine('clear');
    t.sendLine(
      `PETSTORE_STATE_DIR=${second.env.PETSTORE_STATE_DIR ?? ''} petstore pets create --from-file ${second.file}; echo "second=$?"`,
    );
    // A marker of its own: the first run's rc= stays on the screen until `clear` has run.
    screen = await t.waitFor(/^second=\d+\s*$/m, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/^second=2\s*$/m);
    expect(unwrapped(screen)).toContain('and that run stopped partway');
    expect(screen).not.toContain('(y/N)');
    expect(posted(server)).toEqual(['R1', 'R2', 'R3']);
  }, 240_000);
});

/** Resolves once `cond` holds (checked every 10 ms); a limit for a hang only. */
async function until(cond: () => boolean): Promise<void> {
  const limit = Date.now() + SCREEN_MS;
  while (!cond()) {
    if (Date.now() > limit) throw new Error('not seen in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('confirmWrites follows the base URL on a terminal', () => {
  it("staging selected by PETSTORE_ENV, at production's URL from PETSTORE_BASE_URL: asks as production; No sends nothing, yes sends once", async () => {
    const server = await shop();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ production: { baseUrl: server.baseUrl, confirmWrites: true } }),
      { mode: 0o600 },
    );
    const t = startTmux({
      width: 200,
      height: 40,
      env: remoteEnv(`${server.baseUrl}/`, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_ENV: 'staging' }),
    });
    sessions.push(t);
    await t.waitFor(/^[$#] $/m, { timeoutMs: SCREEN_MS });
    const host = new URL(server.origin).host;
    for (const [round, keys, rc, sent] of [
      [1, ['Enter'], 2, 0],
      [2, ['y', 'Enter'], 0, 1],
    ] as const) {
      t.sendLine(`petstore pets create --name Rex --category-id 1; echo "rc${round}=$?"`);
      // An answered question shows its answer in place of (y/N): the one shown is this round's.
      const asked = await t.waitFor(/Send to staging.*\(y\/N\)/, { timeoutMs: SCREEN_MS });
      expect(asked).toContain(`env: staging (${host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY)`);
      expect(asked).toContain(`? Send to staging (${host}, production's base URL): create the pet`);
      expect(server.requests).toHaveLength(0);
      t.send(...keys);
      const screen = await t.waitFor(new RegExp(`^rc${round}=\\d+\\s*$`, 'm'), { timeoutMs: SCREEN_MS });
      expect(screen).toMatch(new RegExp(`^rc${round}=${rc}\\s*$`, 'm'));
      expect(server.requests).toHaveLength(sent);
    }
  }, 240_000);
});

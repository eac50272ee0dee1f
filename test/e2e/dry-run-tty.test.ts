/**
 * `pets create --dry-run` on a terminal (tmux): what the flags leave out is asked for, then
 * the request is printed; no `confirmWrites` question follows and nothing is sent. And the
 * curl form pasted into bash on a terminal, `PETSTORE_API_KEY` exported: the server
 * receives the key, and no process's command line shows it while the request is under way.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool } from '../helpers/test-server.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_dry_run_tty_0123';
const { start: startServer, closeAll } = serverPool();
const sessions: TmuxSession[] = [];
afterAll(async () => {
  for (const t of sessions) t.kill();
  await closeAll();
  removeTempDirs();
});

/** A limit for a hang, many times what a quiet machine needs: CI's cores may be busy. */
const SCREEN_MS = 60_000;

it('asks for the name and category id, prints the request, asks nothing more and sends nothing', async () => {
  const server = await startServer();
  const dir = tempDir();
  // Writes to production ask first: a dry run writes nothing, so it must not ask.
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ production: { confirmWrites: true } }), { mode: 0o600 });
  const t = startTmux({ width: 100, height: 40, env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }) });
  sessions.push(t);
  await t.waitFor(/^[$#] $/m, { timeoutMs: SCREEN_MS });
  t.sendLine('petstore pets create --dry-run; echo "rc=$?"');
  await t.waitFor(/Name:/, { timeoutMs: SCREEN_MS });
  t.type('Rex');
  t.send('Enter');
  await t.waitFor(/Category id:/, { timeoutMs: SCREEN_MS });
  t.type('9223372036854775807');
  t.send('Enter');
  await t.waitFor(/Status:/, { timeoutMs: SCREEN_MS });
  t.send('Enter');
  const screen = await t.waitFor(/^rc=\d+\s*$/m, { timeoutMs: SCREEN_MS, history: true });
  expect(screen).toMatch(/^rc=0\s*$/m);
  expect(screen).toContain('"authorization": "Bearer $PETSTORE_API_KEY"');
  expect(screen).toContain('"body": "{\\"name\\":\\"Rex\\",\\"categoryId\\":9223372036854775807');
  expect(screen).not.toMatch(/\(y\/N\)/);
  expect(screen).not.toContain(KEY);
  expect(server.requests).toEqual([]);
}, 240_000);

/** Every process's command line this user can read (`/proc/PID/cmdline`, arguments joined by spaces). */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return lines;
}

it('the curl form pasted into bash: the server receives the key, and no command line shows it meanwhile', async () => {
  // The server holds the request until the command lines have been read: curl is running then.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = await startServer(async (req) => {
    await held;
    return { status: 201, raw: `{"id":42,${req.body.slice(1)}` };
  });
  const dry = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--dry-run=curl'], {
    env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: tempDir() }),
  });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).not.toContain(KEY);
  const t = startTmux({
    width: 200,
    height: 40,
    command: 'bash --norc --noprofile',
    env: { PETSTORE_API_KEY: KEY, PS1: '$ ' },
  });
  sessions.push(t);
  await t.waitFor(/[$#] $/m, { timeoutMs: SCREEN_MS });
  t.type(dry.stdout.trimEnd());
  t.send('Enter');
  const deadline = Date.now() + SCREEN_MS;
  while (server.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(server.requests).toHaveLength(1);
  const seen = [...commandLines(), execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })];
  expect(seen.some((l) => l.includes('curl'))).toBe(true);
  expect(seen.filter((l) => l.includes(KEY))).toEqual([]);
  release();
  const screen = await t.waitFor(/"id":42/, { timeoutMs: SCREEN_MS });
  expect(screen).toContain('{"id":42,"name":"Rex","categoryId":1}');
  expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
}, 240_000);

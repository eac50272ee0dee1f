/**
 * `pets create --dry-run` on a terminal (tmux): what the flags leave out is asked for, then
 * the request is printed; no `confirmWrites` question follows and nothing is sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
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

/**
 * `pets watch` where the process or the terminal is the point: a closed stdout ends it
 * with exit 0, SIGINT and SIGTERM with 130 and 143; on a real terminal (tmux, 60 and 80
 * columns) its table is redrawn in place, fits the width, marks a new pet, and stays on
 * the screen with the cursor shown again after Ctrl-C. Against the embedded sandbox of a
 * fresh data folder, changed by another run between walks.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { inSandbox } from '../helpers/harness.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { hasTmux, tmuxPool } from '../helpers/tmux.js';

const tmux = tmuxPool();
afterAll(() => {
  tmux.killAll();
  removeTempDirs();
});

/** A sandbox data folder, seeded. */
async function sandbox(): Promise<string> {
  const dir = tempDir();
  expect((await inSandbox(dir, ['pets', 'list', '--limit', '1'])).code).toBe(0);
  return dir;
}

const WATCH = ['--env', 'sandbox', 'pets', 'watch', '--interval', '1'];

describe.concurrent('pets watch as a process', () => {
  it('a closed stdout ends the watch with exit 0 at its next event', async () => {
    const dir = await sandbox();
    const run = spawnCli(WATCH, { env: { PETSTORE_CONFIG_DIR: dir }, closeStdoutAfterLines: 1 });
    await run.until(() => run.stdout().includes('"added"'));
    // The next change is the next write, which finds the pipe closed.
    expect((await inSandbox(dir, ['pets', 'create', '--name', 'Zed', '--category-id', '3'])).code).toBe(0);
    const end = await run.exited;
    expect(end.code, run.stderr()).toBe(0);
    expect(run.stderr()).toBe('');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s ends the watch with exit %i', async (signal, code) => {
    const dir = await sandbox();
    const run = spawnCli(WATCH, { env: { PETSTORE_CONFIG_DIR: dir } });
    await run.until(() => run.stdout().split('\n').length > 10);
    run.child.kill(signal);
    const end = await run.exited;
    expect(end.code).toBe(code);
  });
});

describe.skipIf(!hasTmux()).concurrent('pets watch on a terminal', () => {
  it.each([60, 80])('at %i columns: a table redrawn in place, still on screen after Ctrl-C', async (width) => {
    const dir = await sandbox();
    const t = tmux.start({ width, height: 20, env: { PETSTORE_CONFIG_DIR: dir } });
    t.sendLine(`petstore ${WATCH.join(' ')}; echo "EXIT=$?"`);
    const first = await t.waitFor(/updated \d\d:\d\d:\d\d · .* · 10 pets · every 1 s/, { timeoutMs: 60_000 });
    expect(first).toMatch(/^ {2}ID +NAME +CATEGORY +STATUS$/m);
    expect(execFileSync('tmux', ['-L', t.socket, 'display', '-p', '#{cursor_flag}'], { encoding: 'utf8' }).trim()).toBe(
      '0',
    );
    expect((await inSandbox(dir, ['pets', 'create', '--name', 'Zed the newest pet', '--category-id', '3'])).code).toBe(
      0,
    );
    const changed = await t.waitFor(/1 change · 11 pets/, { timeoutMs: 60_000 });
    // The new pet is marked, and nothing is wider than the terminal.
    expect(changed).toMatch(/^\* \d+ +Zed/m);
    for (const line of changed.split('\n').filter((l) => !l.includes('petstore '))) {
      expect(line.length, line).toBeLessThanOrEqual(width);
    }
    // Redrawn in place: one table on the screen and in the history, not one per walk.
    const history = t.capture({ history: true });
    expect(history.match(/ID +NAME/g)).toHaveLength(1);
    expect(history.match(/updated /g)).toHaveLength(1);
    t.send('C-c');
    const after = await t.waitFor(/EXIT=130/, { timeoutMs: 60_000 });
    expect(after).toMatch(/ID +NAME +CATEGORY +STATUS/);
    expect(after).toMatch(/updated \d\d:\d\d:\d\d/);
    expect(execFileSync('tmux', ['-L', t.socket, 'display', '-p', '#{cursor_flag}'], { encoding: 'utf8' }).trim()).toBe(
      '1',
    );
  });

  it('a terminal narrowed while it watches gets a frame of its new width, one table on the screen', async () => {
    const dir = await sandbox();
    const name = 'A pet whose name needs more room than sixty columns';
    expect((await inSandbox(dir, ['pets', 'create', '--name', name, '--category-id', '3'])).code).toBe(0);
    const t = tmux.start({ width: 80, height: 20, env: { PETSTORE_CONFIG_DIR: dir } });
    t.sendLine(`petstore ${WATCH.join(' ')} --fields id,name`);
    const wide = await t.waitFor(/updated \d\d:\d\d:\d\d · .* · 11 pets/, { timeoutMs: 60_000 });
    expect(wide).toContain(name);
    execFileSync('tmux', ['-L', t.socket, 'resize-window', '-t', 'main', '-x', '60', '-y', '20']);
    const narrowed = await t.waitFor(
      (screen) =>
        /updated /.test(screen) &&
        screen
          .split('\n')
          .filter((l) => !l.includes('petstore '))
          .every((l) => l.length <= 60),
      { timeoutMs: 60_000 },
    );
    expect(narrowed).toContain('A pet whose name needs');
    expect(narrowed).not.toContain(name);
    expect(narrowed.match(/ID +NAME/g)).toHaveLength(1);
    expect(narrowed.match(/updated /g)).toHaveLength(1);
    t.send('C-c');
  });
});

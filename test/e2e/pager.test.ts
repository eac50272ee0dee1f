/**
 * The pager (cli-contract.md "Output"): a table longer than the screen on a terminal goes
 * through PETSTORE_PAGER, else PAGER, else `less -FRX`; never when stdout is not a terminal;
 * PETSTORE_PAGER=cat and `--no-pager` turn it off (empty counts as unset); a pager that quits early is not an error.
 * In-process with a stub pager that records what it was given; in tmux for `less` itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePagingTerminals, remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { hasTmux } from '../helpers/tmux.js';

const KEY = 'pk_test_pager_0123456789';
const { paging, tmux } = filePagingTerminals();

/** A server with `pages` pages of 20 pets, and the environment to reach it. */
async function setup(pages: number, extra: Record<string, string> = {}) {
  const server = await paging.start({ pages, perPage: 20 });
  const dir = tempDir();
  return {
    dir,
    // No colour, so lines compare as text.
    env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, NO_COLOR: '1', ...extra }),
  };
}

describe.concurrent('a table longer than the screen', () => {
  it('goes through PETSTORE_PAGER on a terminal: the pager gets the whole table, stdout nothing', async () => {
    const { dir, env } = await setup(3);
    const paged = join(dir, 'paged.txt');
    const r = await runMain(['pets', 'list', '--all'], {
      env: { ...env, PETSTORE_PAGER: `cat > '${paged}'`, PAGER: 'false' },
      tty: true,
      rows: 24,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const lines = readFileSync(paged, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS$/);
    expect(lines).toHaveLength(61);
  });

  it('PAGER when PETSTORE_PAGER is unset', async () => {
    const { dir, env } = await setup(2);
    const paged = join(dir, 'paged.txt');
    const r = await runMain(['pets', 'list', '--all'], {
      env: { ...env, PAGER: `cat > '${paged}'` },
      tty: true,
      rows: 24,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(paged, 'utf8').split('\n')).toHaveLength(42);
  });

  it.each([
    ['PETSTORE_PAGER=cat', { PETSTORE_PAGER: 'cat' }],
    ['PAGER=cat', { PAGER: 'cat' }],
  ])('%s turns paging off: the table goes straight to stdout', async (_name, pagerEnv) => {
    const { env } = await setup(2, { PAGER: 'false' });
    const r = await runMain(['pets', 'list', '--all'], { env: { ...env, ...pagerEnv }, tty: true, rows: 24 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(41);
  });

  it('an empty PETSTORE_PAGER counts as unset, as every variable does: PAGER applies', async () => {
    const { dir, env } = await setup(2);
    const paged = join(dir, 'paged.txt');
    const r = await runMain(['pets', 'list', '--all'], {
      env: { ...env, PETSTORE_PAGER: '', PAGER: `cat > '${paged}'` },
      tty: true,
      rows: 24,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(paged, 'utf8').trimEnd().split('\n')).toHaveLength(41);
  });

  it('never when stdout is not a terminal (the tab-separated form, or -o table piped)', async () => {
    const { dir, env } = await setup(2);
    const paged = join(dir, 'paged.txt');
    const pagerEnv = { ...env, PETSTORE_PAGER: `cat > '${paged}'` };
    const tsv = await runMain(['pets', 'list', '--all'], { env: pagerEnv, rows: 24 });
    const table = await runMain(['pets', 'list', '--all', '-o', 'table'], { env: pagerEnv, rows: 24 });
    expect(tsv.stdout.split('\n')).toHaveLength(41);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME/);
    expect(existsSync(paged)).toBe(false);
  });

  it('not for a table that fits, nor for json', async () => {
    const { dir, env } = await setup(1);
    const paged = join(dir, 'paged.txt');
    const pagerEnv = { ...env, PETSTORE_PAGER: `cat > '${paged}'` };
    const fits = await runMain(['pets', 'list', '--limit', '10'], { env: pagerEnv, tty: true, rows: 24 });
    const json = await runMain(['pets', 'list', '--all', '--json'], { env: pagerEnv, tty: true, rows: 5 });
    expect(fits.stdout.split('\n')[0]).toMatch(/^ID\s+NAME/);
    expect(json.stdout.startsWith('[')).toBe(true);
    expect(existsSync(paged)).toBe(false);
  });

  it('--no-pager turns it off on a terminal: the table goes straight to stdout', async () => {
    const { dir, env } = await setup(2);
    const paged = join(dir, 'paged.txt');
    const pagerEnv = { ...env, PETSTORE_PAGER: `cat > '${paged}'` };
    const after = await runMain(['pets', 'list', '--all', '--no-pager'], { env: pagerEnv, tty: true, rows: 24 });
    const before = await runMain(['--no-pager', 'pets', 'list', '--all'], { env: pagerEnv, tty: true, rows: 24 });
    for (const r of [after, before]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[0]).toMatch(/^ID\s+NAME/);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(41);
    }
    expect(existsSync(paged)).toBe(false);
  });

  it('a pager that does not exist: the shell says so, and the table is written as it is', async () => {
    const { env } = await setup(2);
    const r = await runMain(['pets', 'list', '--all'], {
      env: { ...env, PETSTORE_PAGER: 'no-such-pager-here' },
      tty: { stdout: true },
      rows: 24,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(41);
  });

  it('a pager that quits before reading everything is not an error (exit 0, nothing on stderr)', async () => {
    const { dir, env } = await setup(100);
    const paged = join(dir, 'paged.txt');
    const r = await runMain(['pets', 'list', '--all'], {
      env: { ...env, PETSTORE_PAGER: `head -1 > '${paged}'` },
      tty: { stdout: true },
      rows: 24,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(paged, 'utf8')).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS\n$/);
  });
});

describe.skipIf(!hasTmux())('less in a real terminal', () => {
  it('opens for a long --all table at 80x24; q returns to the shell with exit 0', async () => {
    const { env } = await setup(3);
    const t = tmux.start({ env: { ...env, PAGER: '', PETSTORE_PAGER: 'less -FRX' }, width: 80, height: 24 });
    t.sendLine('petstore pets list --all; echo "rc=$?"');
    // less shows the top of the table and waits, with its prompt on the last line.
    const screen = await t.waitFor((s) => /^ID\s+NAME/m.test(s) && /^:\s*$/m.test(s));
    expect(screen).not.toContain('rc=');
    t.send('q');
    expect(await t.waitFor(/rc=\d+/)).toMatch(/rc=0/);
  });

  it("Ctrl-C while less shows the table is less's: petstore waits for it, q ends both with exit 0", async () => {
    const { env } = await setup(3);
    const t = tmux.start({ env: { ...env, PAGER: '', PETSTORE_PAGER: 'less -FRX' }, width: 80, height: 24 });
    t.sendLine('petstore pets list --all; echo "rc=$?"');
    await t.waitFor((s) => /^ID\s+NAME/m.test(s) && /^:\s*$/m.test(s));
    t.send('C-c');
    // Well past petstore's one-second stop: the pager is still there, no prompt came back.
    await new Promise((r) => setTimeout(r, 1500));
    expect(t.capture()).not.toContain('rc=');
    t.send('q');
    expect(await t.waitFor(/rc=\d+/)).toMatch(/rc=0/);
  });
});

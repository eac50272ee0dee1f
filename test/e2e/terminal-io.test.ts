/**
 * Io owns the terminal (cli-contract.md "Output", "Errors and exit codes"): in a real
 * terminal (tmux), Ctrl-C during a long paged `pets list --all` stops fetching, hands what
 * was fetched to the pager, waits for the person to quit it and only then exits 130 with a
 * note that the list is incomplete — never leaving `less` behind on the terminal; with
 * less than a screenful, the partial table and the same note. `--verbose --all` keeps the
 * progress line off the request lines.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { filePagingTerminals, remoteEnv } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-config.js';
import { hasTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_terminal_io_0123456789';
const { paging, tmux } = filePagingTerminals();

/**
 * A paging server option that answers pages 1..n and never page n+1: the run waits there,
 * with exactly n pages fetched, until Ctrl-C. With a delay per page above the progress
 * line's 100 ms redraw limit, the line then says "fetched n pages" (every count is drawn).
 */
function holdAfter(n: number): { override: (page: number) => boolean } {
  return { override: (page) => page > n };
}

async function terminal(
  server: { pages: number; perPage: number; delayMs: number; override?: (page: number) => boolean },
  size: { width: number; height: number },
  extra: Record<string, string> = {},
): Promise<TmuxSession> {
  const s = await paging.start(server);
  const dir = tempDir();
  const t = tmux.start({
    env: remoteEnv(s.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, NO_COLOR: '1', TERM: 'xterm', PAGER: '', ...extra }),
    ...size,
  });
  return t;
}

/** The commands running on the terminal of `t`'s window (its shell among them). */
function processesOnTerminal(t: TmuxSession): string[] {
  const tty = execFileSync('tmux', ['-L', t.socket, 'display-message', '-p', '-t', 'main', '#{pane_tty}'], {
    encoding: 'utf8',
  }).trim();
  const out = execFileSync('ps', ['-t', tty, '-o', 'comm='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.trim() !== '');
}

describe.skipIf(!hasTmux())('Ctrl-C during a long pets list --all on a terminal', () => {
  it('with less: waits for the person to quit the pager, then exits 130 saying the list is incomplete; no less left', async () => {
    // Ctrl-C goes while page 13 is awaited, 12 fetched (60 pets): more than a screenful, so
    // the pager is petstore's from here on. The server holds page 13, so no timing decides
    // how many pages there are when Ctrl-C lands.
    const t = await terminal({ pages: 10_000, perPage: 5, delayMs: 150, ...holdAfter(12) }, { width: 80, height: 24 });
    t.sendLine('petstore pets list --all --max-pages 10000; echo "rc=$?"');
    await t.waitFor(/fetched 12 pages/, { timeoutMs: 60_000 });
    t.send('C-c');
    // less shows the pets fetched so far and waits, with its prompt on the last line.
    await t.waitFor((s) => /^ID\s+NAME/m.test(s) && /^:\s*$/m.test(s), { timeoutMs: 60_000 });
    // Well past the contract's one second: petstore still waits for the pager. (This wait
    // can only let a wrong early exit go unseen on a slow machine, never fail a right run.)
    await new Promise((r) => setTimeout(r, 1500));
    expect(t.capture()).not.toContain('rc=');
    t.send('q');
    const screen = await t.waitFor(/rc=\d+/, { timeoutMs: 60_000 });
    expect(screen).toMatch(/rc=130/);
    expect(screen).toMatch(/the list is incomplete: [\d,]+ pets from [\d,]+ pages/);
    // The shell has its terminal back: nothing of petstore's is left on it.
    expect(processesOnTerminal(t).filter((c) => c !== 'sh' && c !== 'ps')).toEqual([]);
    t.sendLine('echo hi');
    expect(await t.waitFor(/^hi$/m)).toMatch(/^hi$/m);
  }, 240_000);

  it('with less than a screenful: the pets fetched so far, then the note, exit 130', async () => {
    // The server holds page 6: Ctrl-C goes with 5 pets fetched, less than the 40 rows,
    // however late a loaded machine draws the screen (a window of page counts to catch
    // could be missed and the walk would run on past a screenful).
    const t = await terminal({ pages: 10_000, perPage: 1, delayMs: 150, ...holdAfter(5) }, { width: 80, height: 40 });
    t.sendLine('petstore pets list -L 1 --all --max-pages 10000; echo "rc=$?"');
    await t.waitFor(/fetched 5 pages/, { timeoutMs: 60_000 });
    t.send('C-c');
    const screen = await t.waitFor(/rc=\d+/, { timeoutMs: 60_000 });
    expect(screen).toMatch(/rc=130/);
    expect(screen).toMatch(/^ID\s+NAME/m);
    const fetched = /the list is incomplete: ([\d,]+) pets? from ([\d,]+) pages?/.exec(screen);
    expect(fetched, screen).not.toBeNull();
    const rows = screen.split('\n').filter((l) => /^\d+\s+pet-/.test(l));
    expect(rows).toHaveLength(Number(fetched?.[1]?.replaceAll(',', '')));
    expect(processesOnTerminal(t).filter((c) => c !== 'sh' && c !== 'ps')).toEqual([]);
  }, 240_000);
});

describe.skipIf(!hasTmux())('--verbose --all on a terminal', () => {
  it.each([60, 80, 120])(
    'at %i columns, every request and answer line starts a line of its own',
    async (width) => {
      const t = await terminal({ pages: 6, perPage: 20, delayMs: 120 }, { width, height: 40 });
      // stdout to a file: the terminal shows stderr alone.
      t.sendLine('petstore pets list --all --verbose > /dev/null; echo "rc=$?"');
      const screen = await t.waitFor(/rc=\d+/, { history: true, timeoutMs: 60_000 });
      expect(screen).toMatch(/rc=0/);
      expect(screen.match(/^> GET /gm)).toHaveLength(6);
      // The progress line was erased before each line, never left in front of one.
      expect(screen).not.toMatch(/fetched [\d,]+ pages?, [\d,]+ pets…./);
      for (const line of screen.split('\n')) if (line.includes('> GET')) expect(line).toMatch(/^> GET /);
    },
    120_000,
  );
});

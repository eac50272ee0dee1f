/**
 * Help in a real 80x30 terminal (cli-contract.md "Output"): a command's own flags on the
 * first screen, only the global flags that act on it; help longer than the screen through
 * the pager (`less -FRX`, or a stand-in that marks every line it shows), never with
 * `--no-pager` nor when piped; the shim's fast path serves `--help` only where it fits the
 * screen (80x30 does), and the bundle pages it where it does not. In tmux, through the built CLI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { hasTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const sessions: TmuxSession[] = [];
afterAll(() => {
  for (const t of sessions) t.kill();
  removeTempDirs();
});

/** A stand-in pager: what it shows, every line marked. */
const MARKING_PAGER = "sed 's/^/PAGED| /'";
/** How long the screen may take: a limit for a hang, not a wait (a busy machine draws late). */
const SCREEN_MS = 60_000;

/** A terminal of `width` x `height` whose pager is `pager`. */
function terminal(pager: string, width = 80, height = 30): TmuxSession {
  const t = startTmux({
    width,
    height,
    env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_PAGER: pager, PAGER: '', NO_COLOR: '1' },
  });
  sessions.push(t);
  return t;
}

/** The screen's lines petstore printed, the commands typed at the prompt left out. */
function printed(screen: string): string[] {
  return screen.split('\n').filter((l) => !/^[$#] /.test(l));
}

describe.skipIf(!hasTmux())('help in an 80x30 terminal', () => {
  it('`help pets create` opens less on its first screen: usage and every own flag; q returns with exit 0', async () => {
    const t = terminal('less -FRX');
    t.sendLine('clear; petstore help pets create; echo "rc=$?"');
    // less waits, its prompt on the last line.
    const screen = await t.waitFor((s) => s.includes('Usage: petstore pets create') && /^:\s*$/m.test(s), {
      timeoutMs: SCREEN_MS,
    });
    expect(screen).not.toContain('rc=');
    for (const flag of [
      '--name',
      '--category-id',
      '--status',
      '--from-file',
      '--concurrency',
      '--dry-run',
      '--force',
    ]) {
      expect(screen).toContain(flag);
    }
    t.send('q');
    expect(await t.waitFor(/rc=\d+/, { timeoutMs: SCREEN_MS })).toMatch(/rc=0/);
  });

  it('`help pets create --no-pager` and `help pets create | cat` are not paged', async () => {
    const t = terminal(MARKING_PAGER);
    t.sendLine('clear; petstore help pets create --no-pager; echo "rc=$?"');
    const direct = await t.waitFor(/rc=\d+/, { history: true, timeoutMs: SCREEN_MS });
    expect(direct).toMatch(/rc=0/);
    expect(direct).toContain('Usage: petstore pets create');
    expect(direct).not.toContain('PAGED|');
    t.sendLine('clear; petstore help pets create | cat; echo "piped=$?"');
    const piped = await t.waitFor(/piped=\d+/, { history: true, timeoutMs: SCREEN_MS });
    expect(piped).toMatch(/piped=0/);
    expect(piped).not.toContain('PAGED|');
    expect(piped).toContain('--concurrency');
    // The same stand-in pages it without either.
    t.sendLine('clear; petstore help pets create; echo "paged=$?"');
    const paged = await t.waitFor(/paged=\d+/, { history: true, timeoutMs: SCREEN_MS });
    expect(paged).toContain('PAGED| Usage: petstore pets create');
  });

  it('`sandbox serve --help` fits: own flags, examples, then global flags with no record flag, not paged', async () => {
    const t = terminal(MARKING_PAGER);
    t.sendLine('clear; petstore sandbox serve --help; echo "rc=$?"');
    const screen = await t.waitFor(/rc=\d+/, { timeoutMs: SCREEN_MS });
    expect(screen).toMatch(/rc=0/);
    // The whole help is on the screen, first line included.
    const lines = printed(screen);
    expect(lines[0]).toBe('Usage: petstore sandbox serve [flags]');
    expect(screen).not.toContain('PAGED|');
    const own = screen.indexOf('Flags:');
    const global = screen.indexOf('Global flags:');
    expect(screen.indexOf('Examples:')).toBeGreaterThan(own);
    expect(global).toBeGreaterThan(screen.indexOf('Examples:'));
    expect(own).toBeGreaterThan(-1);
    expect(global).toBeGreaterThan(own);
    for (const flag of ['--port', '--host', '--allow-remote']) {
      expect(screen.indexOf(flag)).toBeGreaterThan(own);
      expect(screen.indexOf(flag)).toBeLessThan(global);
    }
    for (const flag of ['--jq', '--fields', '--timeout', '--yes']) expect(screen).not.toContain(flag);
  });

  it('`sandbox serve --help` on a 20-row screen is paged', async () => {
    const t = terminal(MARKING_PAGER, 80, 20);
    t.sendLine('clear; petstore sandbox serve --help; echo "rc=$?"');
    const screen = await t.waitFor(/rc=\d+/, { history: true, timeoutMs: SCREEN_MS });
    expect(screen).toContain('PAGED| Usage: petstore sandbox serve');
  });

  it('`petstore --help`: printed at 80x30, where it fits; paged at 80x20, where it does not', async () => {
    const small = terminal(MARKING_PAGER, 80, 20);
    small.sendLine('clear; petstore --help; echo "rc=$?"');
    const paged = await small.waitFor(/rc=\d+/, { history: true, timeoutMs: SCREEN_MS });
    expect(paged).toMatch(/rc=0/);
    expect(paged).toContain('PAGED| Usage: petstore [flags] [command]');
    const screen = terminal(MARKING_PAGER, 80, 30);
    // The exit code without a newline: the prompt shares its row, and 29 lines of help fit above.
    screen.sendLine(`clear; petstore --help; printf 'rc=%s ' "$?"`);
    const whole = await screen.waitFor(/rc=\d+ /, { timeoutMs: SCREEN_MS });
    expect(whole).toMatch(/rc=0 /);
    expect(printed(whole)[0]).toBe('Usage: petstore [flags] [command]');
    expect(whole).not.toContain('PAGED|');
  });
});

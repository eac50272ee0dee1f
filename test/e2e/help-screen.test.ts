/**
 * Help on a real 80x30 screen (cli-contract.md "Output"): `petstore --help` and every
 * group's `--help` (read from the tree, so a new group is covered) fit the screen whole,
 * every command of the group on it, and start no pager; a leaf that fits (`pets list`)
 * shows its own flags and the global flags that act on it; `help flags` and `help
 * environment` are paged there (longer than the screen). In tmux, through the built CLI,
 * with a stand-in pager that marks every line it shows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { commandTree } from '../helpers/command-tree.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { hasTmux, tmuxPool } from '../helpers/tmux.js';

const pool = tmuxPool();
afterAll(() => {
  pool.killAll();
  removeTempDirs();
});

/** A stand-in pager: what it shows, every line marked. */
const MARKING_PAGER = "sed 's/^/PAGED| /'";
/** How long the screen may take: a limit for a hang, not a wait (a busy machine draws late). */
const SCREEN_MS = 60_000;

const TREE = await commandTree();
/** The root and every group (a command with verbs), with the names of their commands. */
const GROUPS = [
  { words: [] as string[], subcommands: TREE.filter((c) => c.words.length === 1).map((c) => c.words[0] ?? '') },
  ...TREE.filter((c) => c.subcommands.length > 0),
];

/**
 * Runs `petstore ARGS` on a cleared 80x30 screen and returns the screen once it has
 * ended: its exit code is printed without a newline (`rc=0`), so the prompt shares that
 * row and help of 29 lines is seen whole, as a person sees it.
 */
async function onScreen(args: string): Promise<string[]> {
  const t = pool.start({
    width: 80,
    height: 30,
    env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_PAGER: MARKING_PAGER, PAGER: '', NO_COLOR: '1' },
  });
  t.sendLine(`clear; petstore ${args}; printf 'rc=%s ' "$?"`);
  const screen = await t.waitFor(/rc=\d+ /, { timeoutMs: SCREEN_MS });
  t.kill();
  return screen.replace(/\n+$/, '').split('\n');
}

describe.skipIf(!hasTmux())('help on an 80x30 screen', () => {
  it('the tree has the groups the contract names', () => {
    expect(GROUPS.map((g) => g.words.join(' '))).toEqual(
      expect.arrayContaining(['', 'pets', 'env', 'config', 'auth', 'sandbox']),
    );
  });

  it.each(GROUPS.map((g) => [['petstore', ...g.words].join(' '), g] as const))(
    '`%s --help`: whole on the first screen, every command visible, no pager',
    async (_name, group) => {
      const lines = await onScreen([...group.words, '--help'].join(' '));
      expect(lines.at(-1)).toMatch(/^rc=0 /);
      // The first line of the help is the first row of the screen: nothing scrolled off.
      expect(lines[0]).toMatch(new RegExp(`^Usage: petstore ${group.words.map((w) => `${w} `).join('')}\\[flags\\]`));
      expect(lines.join('\n')).not.toContain('PAGED|');
      const listed = lines.map((l) => /^ {2}([\w-]+) /.exec(l)?.[1]);
      for (const name of group.subcommands) expect(listed, name).toContain(name);
      expect(lines.at(-2)).toBe('Global flags: see `petstore help flags`');
    },
    120_000,
  );

  it('`pets list --help` fits: its own flags on the screen, not paged', async () => {
    const lines = await onScreen('pets list --help');
    expect(lines[0]).toBe('Usage: petstore pets list [flags]');
    const screen = lines.join('\n');
    expect(screen).not.toContain('PAGED|');
    for (const flag of ['--limit', '--status', '--all', '--max-pages', '--sort']) expect(screen).toContain(flag);
  }, 120_000);

  it.each(['help flags', 'help environment'])(
    '`%s` is longer than the screen: paged',
    async (args) => {
      const lines = await onScreen(args);
      expect(lines.join('\n')).toContain('PAGED| ');
      expect(lines.at(-1)).toMatch(/^rc=0 /);
    },
    120_000,
  );
});

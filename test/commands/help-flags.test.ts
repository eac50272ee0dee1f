/**
 * Help in gh's order (cli-contract.md "Output"): usage, commands, the command's own flags
 * (on the first screen of 80x30), examples, then only the global flags that act on it (the
 * rule of `takesGlobalFlag`, from its traits), one line each, or the one line pointing to
 * `petstore help flags` where they would not fit, and always for the root and a group,
 * which fit an 80x30 screen with every command; `help flags` and `help environment` list
 * every global flag and every variable; `help --json` names the same flags. Help wraps at
 * the width, never inside a word. Help longer than the screen goes through the pager on a
 * terminal, never with `--no-pager` nor when stdout is not a terminal. In process
 * (runMain) with a stand-in pager that records what it was given; in a real terminal:
 * test/e2e/help-pager.test.ts and test/e2e/help-tmux.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takesGlobalFlag } from '../../src/commands/traits.js';
import { ENV_VARS } from '../../src/config/env-vars.js';
import { commandTree, rootFlags } from '../helpers/command-tree.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(removeTempDirs);

const TREE = await commandTree();
/** The global flags, without `--version` (the program's own). */
const GLOBALS = (await rootFlags()).filter((f) => f !== '--version');
/** The commands that run (not groups). */
const RUNS = TREE.filter((c) => c.subcommands.length === 0);

/** The lines of a help text: an 80x30 screen holds 29 of them, a row kept for the prompt. */
const SCREEN_LINES = 29;
/** The one line standing for the global flags. */
const POINTER = 'Global flags: see `petstore help flags`';

/** The lines of `help` (without the final newline's empty one). */
function linesOf(help: string): string[] {
  return help.replace(/\n$/, '').split('\n');
}

/**
 * A section of a help text: the lines under `title` up to the next blank line, and the
 * index of its title (-1 when absent).
 */
function block(help: string, title: string): { at: number; lines: string[] } {
  const lines = linesOf(help);
  const at = lines.indexOf(title);
  if (at === -1) return { at, lines: [] };
  const end = lines.findIndex((l, i) => i > at && l === '');
  return { at, lines: lines.slice(at + 1, end === -1 ? undefined : end) };
}

/** The long flag names a list of help lines names at its left (`  -e, --env <name>  ...`). */
function longNames(lines: string[]): string[] {
  return lines
    .map((l) => /^ {2}(?:-\w, )?(--[\w-]+)/.exec(l)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The names a `Commands:` list names at its left. */
function commandNames(lines: string[]): string[] {
  return lines.map((l) => /^ {2}([\w-]+)/.exec(l)?.[1]).filter((name): name is string => name !== undefined);
}

describe.concurrent('the layout of a command’s help (gh’s order)', () => {
  it('the tree has commands to check, and the global flags include --no-pager', () => {
    expect(RUNS.length).toBeGreaterThan(10);
    expect(GLOBALS).toEqual(expect.arrayContaining(['--env', '--jq', '--yes', '--no-pager']));
  });

  it.each(RUNS.map((c) => [c.words.join(' '), c] as const))(
    '`%s --help`: usage, own flags on the first screen, examples, then its global flags or the line for them',
    async (_name, cmd) => {
      const r = await runMain([...cmd.words, '--help'], { tty: true, columns: 80, rows: 200 });
      expect(r.code).toBe(0);
      const lines = linesOf(r.stdout);
      expect(lines[0]).toMatch(new RegExp(`^Usage: petstore ${cmd.words.join(' ')}\\b`));
      const own = block(r.stdout, 'Flags:');
      expect(longNames(own.lines)).toEqual([...cmd.flags, '--help']);
      // Its own flags end within the first screen.
      expect(own.at + own.lines.length).toBeLessThanOrEqual(SCREEN_LINES);
      const examples = lines.indexOf('Examples:');
      expect(examples).toBeGreaterThan(own.at);
      const expected = GLOBALS.filter((f) => takesGlobalFlag(cmd.traits, f));
      const global = block(r.stdout, 'Global flags:');
      if (global.at === -1) {
        // The one line, last; chosen because the list would not have fitted the screen.
        expect(lines.at(-1)).toBe(POINTER);
        expect(lines.length - 1 + 1 + expected.length).toBeGreaterThan(SCREEN_LINES);
      } else {
        expect(global.at).toBeGreaterThan(examples);
        expect(longNames(global.lines)).toEqual(expected);
        // One line each (no continuation line), the last lines of the help, which fits the screen.
        expect(global.lines).toHaveLength(expected.length);
        expect(global.at + global.lines.length).toBe(lines.length - 1);
        expect(lines.length).toBeLessThanOrEqual(SCREEN_LINES);
      }
    },
  );

  /** The root and every group, from the tree. */
  const GROUPS = [
    { words: [] as string[], subcommands: TREE.filter((c) => c.words.length === 1).map((c) => c.words[0] ?? '') },
    ...TREE.filter((c) => c.subcommands.length > 0),
  ];

  it.each(GROUPS.map((g) => [g.words.join(' ') || '(root)', g] as const))(
    '`%s --help` fits an 80x30 screen, lists every command, and points to `help flags`',
    async (_name, group) => {
      const r = await runMain([...group.words, '--help'], { tty: true, columns: 80, rows: 200 });
      expect(r.code).toBe(0);
      const lines = linesOf(r.stdout);
      expect(lines.length).toBeLessThanOrEqual(SCREEN_LINES);
      expect(lines[0]).toMatch(/^Usage: petstore /);
      const commands = block(r.stdout, 'Commands:');
      expect(commands.at).toBeGreaterThan(-1);
      expect(commandNames(commands.lines)).toEqual(expect.arrayContaining(group.subcommands));
      // Commands before flags; the global flags in one line, last.
      expect(block(r.stdout, 'Flags:').at).toBeGreaterThan(commands.at);
      expect(lines.at(-1)).toBe(POINTER);
      expect(r.stdout).not.toContain('Global flags:\n');
    },
  );

  it('`sandbox serve` and `auth login` list no record flags; `pets create` its own flags first', async () => {
    for (const words of [
      ['sandbox', 'serve'],
      ['auth', 'login'],
    ]) {
      const { lines: global } = block((await runMain([...words, '--help'])).stdout, 'Global flags:');
      expect(global.length).toBeGreaterThan(0);
      for (const flag of ['--jq', '--fields', '--fail-on-deprecated', '--yes', '--no-pager']) {
        expect(longNames(global), `${words.join(' ')} ${flag}`).not.toContain(flag);
      }
    }
    const create = (await runMain(['help', 'pets', 'create'])).stdout.split('\n');
    // Within the first screen of an 80x30 terminal, the prompt's row kept.
    const firstScreen = create.slice(0, SCREEN_LINES).join('\n');
    for (const flag of [
      '--name',
      '--category-id',
      '--status',
      '--from-file',
      '--concurrency',
      '--dry-run',
      '--force',
    ]) {
      expect(firstScreen).toContain(flag);
    }
  });

  it('`help flags` lists every flag the root has, with its full text', async () => {
    const r = await runMain(['help', 'flags']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const { lines } = block(r.stdout, 'Flags:');
    expect(longNames(lines)).toEqual(await rootFlags().then((f) => [...f, '--help']));
    expect(r.stdout).toContain('credentials redacted');
    expect(r.stdout).toContain('(default: 30)');
    expect(r.stdout).toContain('petstore help environment');
  });

  it('`help environment` lists every variable of the registry, in its order', async () => {
    const r = await runMain(['help', 'environment']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const names = linesOf(r.stdout)
      .map((l) => /^([A-Z][A-Z0-9_]+)\b/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined && n !== 'Environment');
    expect(names).toEqual(Object.keys(ENV_VARS));
    // Lower-case spellings read too are named.
    expect(r.stdout).toMatch(/^HTTPS_PROXY, https_proxy$/m);
  });

  it('no command is named like a topic, so `help flags` is never a command’s help', () => {
    const help = TREE.find((c) => c.words.join(' ') === 'help');
    const topics = Object.keys(help?.traits.topics ?? {});
    expect(topics).toEqual(['flags', 'environment']);
    expect(TREE.filter((c) => c.words.length === 1 && topics.includes(c.words[0] ?? ''))).toEqual([]);
  });

  it.each([60, 120])(
    'help at %i columns breaks no word: the same words as unwrapped, no line wider',
    async (columns) => {
      const asks = [[], ...TREE.map((c) => c.words), ['help', 'flags'], ['help', 'environment']];
      for (const words of asks) {
        const args =
          words[0] === 'help' && words.length === 2 && !TREE.some((c) => c.words.join(' ') === words.join(' '))
            ? words
            : [...words, '--help'];
        const [narrow, wide] = await Promise.all([
          runMain(args, { tty: true, columns, rows: 500 }),
          runMain(args, { tty: true, columns: 1000, rows: 500 }),
        ]);
        const name = args.join(' ');
        expect(narrow.code, name).toBe(0);
        // An example broken with a shell continuation gains its ` \`; nothing else differs.
        // The global flags' part is left out: whether they are listed depends on what fits.
        const wordsOf = (text: string): string[] =>
          text
            .slice(0, text.lastIndexOf('\nGlobal flags:') + 1 || undefined)
            .split(/\s+/)
            .filter((w) => w !== '' && w !== '\\');
        expect(wordsOf(narrow.stdout), name).toEqual(wordsOf(wide.stdout));
        for (const line of linesOf(narrow.stdout)) {
          // A line wider than the screen only for a word that is.
          if (line.length > columns) expect(line.trim().includes(' '), `${name}: ${line}`).toBe(false);
        }
      }
    },
    120_000,
  );

  it('docs/commands.md shows `petstore pets --help` as it prints', async () => {
    const docs = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    const shown = /```text\n\$ petstore pets --help\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(shown).toBe((await runMain(['pets', '--help'])).stdout);
  });

  it('docs/commands.md says which commands take which global flags, as help lists them', () => {
    const docs = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    const table = docs.slice(docs.indexOf('| global flags | commands |'));
    const rows = table.split('\n').slice(2);
    const documented = new Map<string, string[]>();
    for (const row of rows.slice(
      0,
      rows.findIndex((r) => !r.startsWith('|')),
    )) {
      const [flags = '', commands = ''] = row.split(/(?<!\\)\|/).slice(1, 3);
      // `pets list\|get` names `pets list` and `pets get`.
      const named = [...commands.matchAll(/`([^`]+)`/g)].flatMap(([, c = '']) => {
        const [first = '', ...more] = c.split('\\|');
        const noun = first.includes(' ') ? first.slice(0, first.lastIndexOf(' ') + 1) : '';
        return [first, ...more.map((verb) => noun + verb)];
      });
      const all = commands.includes('every command') ? RUNS.map((c) => c.words.join(' ')) : named;
      for (const [, flag = ''] of flags.matchAll(/`(?:-\w, )?(--[\w-]+)`/g)) documented.set(flag, all);
      // The rule's default: a flag it does not name acts on every command.
      if (flags.includes('any other')) documented.set('any other', all);
    }
    for (const flag of GLOBALS) {
      const acts = RUNS.filter((c) => takesGlobalFlag(c.traits, flag)).map((c) => c.words.join(' '));
      expect(new Set(documented.get(flag) ?? documented.get('any other')), flag).toEqual(new Set(acts));
    }
  });

  it('`help --json` names, for each command, the global flags its help lists (or its line stands for)', async () => {
    const r = await runMain(['help', '--json']);
    const doc = JSON.parse(r.stdout) as {
      globalFlags: { long: string }[];
      commands: { path: string[]; globalFlags: string[] }[];
    };
    expect(doc.globalFlags.map((f) => f.long)).toContain('--no-pager');
    for (const cmd of RUNS) {
      const listed = doc.commands.find((c) => c.path.join(' ') === cmd.words.join(' '));
      expect(listed?.globalFlags, cmd.words.join(' ')).toEqual(GLOBALS.filter((f) => takesGlobalFlag(cmd.traits, f)));
      const help = (await runMain([...cmd.words, '--help'])).stdout;
      const global = block(help, 'Global flags:');
      if (global.at !== -1) expect(listed?.globalFlags, cmd.words.join(' ')).toEqual(longNames(global.lines));
      else expect(help).toContain(POINTER);
    }
  });
});

/** A stand-in pager that writes what it is given to a file; the file, and the env that sets it. */
function recordingPager(): { file: string; env: Record<string, string> } {
  const file = join(tempDir(), 'paged.txt');
  return { file, env: { PETSTORE_PAGER: `cat > '${file}'`, PAGER: 'false', NO_COLOR: '1' } };
}

describe.concurrent('help longer than the screen', () => {
  it('goes through the pager on a terminal: `help pets create` at 80x30', async () => {
    const { file, env } = recordingPager();
    const r = await runMain(['help', 'pets', 'create'], { env, tty: true, columns: 80, rows: 30 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const paged = readFileSync(file, 'utf8');
    expect(paged.startsWith('Usage: petstore pets create')).toBe(true);
    expect(paged.split('\n').length).toBeGreaterThan(30);
    // What was paged is the help as printed off a terminal (both at 80 columns).
    expect(paged).toBe((await runMain(['help', 'pets', 'create'])).stdout);
  });

  it('`--help` goes the same way, and so does the root’s on a screen it does not fit', async () => {
    for (const [args, rows] of [
      [['pets', 'create', '--help'], 30],
      [['--help'], 20],
      [['help', 'environment'], 30],
    ] as const) {
      const { file, env } = recordingPager();
      const r = await runMain([...args], { env, tty: true, columns: 80, rows });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(readFileSync(file, 'utf8')).toMatch(/^(Usage: petstore|Environment variables)/);
    }
    // The root's help fits 80x30: written as it is.
    const { file, env } = recordingPager();
    const fits = await runMain(['--help'], { env, tty: true, columns: 80, rows: 30 });
    expect(fits.stdout.startsWith('Usage: petstore [flags] [command]')).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['after the words', ['help', 'pets', 'create', '--no-pager']],
    ['before them', ['--no-pager', 'pets', 'create', '--help']],
  ])('--no-pager (%s) writes it straight to the terminal', async (_where, args) => {
    const { file, env } = recordingPager();
    const r = await runMain(args, { env, tty: true, columns: 80, rows: 30 });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('Usage: petstore pets create')).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('never when stdout is not a terminal, nor for help that fits', async () => {
    const { file, env } = recordingPager();
    const piped = await runMain(['help', 'pets', 'create'], { env, rows: 30 });
    const fits = await runMain(['sandbox', 'serve', '--help'], { env, tty: true, columns: 80, rows: 30 });
    expect(piped.stdout.startsWith('Usage: petstore pets create')).toBe(true);
    expect(fits.stdout.startsWith('Usage: petstore sandbox serve')).toBe(true);
    expect(fits.stdout.split('\n').length).toBeLessThan(30);
    expect(existsSync(file)).toBe(false);
  });

  it('`sandbox serve --help` on a screen it does not fit is paged too', async () => {
    const { file, env } = recordingPager();
    const r = await runMain(['sandbox', 'serve', '--help'], { env, tty: true, columns: 80, rows: 20 });
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toContain('Usage: petstore sandbox serve');
  });

  it('a pager that cannot run: help is written as it is', async () => {
    const r = await runMain(['help', 'pets', 'create'], {
      env: { PETSTORE_PAGER: 'no-such-pager-here', NO_COLOR: '1' },
      tty: { stdout: true },
      rows: 30,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: petstore pets create');
  });
});

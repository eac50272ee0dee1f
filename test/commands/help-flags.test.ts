/**
 * A command's help that fits a screen (cli-contract.md "Output"): its own flags first, then
 * only the global flags that act on it (the rule of `takesGlobalFlag`, from its traits), one
 * line each; `help --json` names the same ones. Help longer than the screen goes through
 * the pager on a terminal, never with `--no-pager` nor when stdout is not a terminal. In
 * process (runMain) with a stand-in pager that records what it was given; in a real
 * terminal: test/e2e/help-pager.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takesGlobalFlag } from '../../src/commands/traits.js';
import { commandTree, rootFlags } from '../helpers/command-tree.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(removeTempDirs);

const TREE = await commandTree();
/** The global flags, without `--version` (the program's own). */
const GLOBALS = (await rootFlags()).filter((f) => f !== '--version');
/** The commands that run (not groups). */
const RUNS = TREE.filter((c) => c.subcommands.length === 0);

/** The sections of a help text: the lines under `Options:` and under `Global Options:`. */
function sections(help: string): { own: string[]; global: string[]; ownAt: number; globalAt: number } {
  const lines = help.split('\n');
  const block = (title: string): { at: number; lines: string[] } => {
    const at = lines.indexOf(title);
    if (at === -1) return { at, lines: [] };
    const end = lines.findIndex((l, i) => i > at && l === '');
    return { at, lines: lines.slice(at + 1, end === -1 ? undefined : end) };
  };
  const own = block('Options:');
  const global = block('Global Options:');
  return { own: own.lines, global: global.lines, ownAt: own.at, globalAt: global.at };
}

/** The long flag names a list of help lines names at its left (`  -e, --env <name>  ...`). */
function longNames(lines: string[]): string[] {
  return lines
    .map((l) => /^ {2}(?:-\w, )?(--[\w-]+)/.exec(l)?.[1])
    .filter((name): name is string => name !== undefined);
}

describe.concurrent('the global flags of a command’s help', () => {
  it('the tree has commands to check, and the global flags include --no-pager', () => {
    expect(RUNS.length).toBeGreaterThan(10);
    expect(GLOBALS).toEqual(expect.arrayContaining(['--env', '--jq', '--yes', '--no-pager']));
  });

  it.each(RUNS.map((c) => [c.words.join(' '), c] as const))(
    '`%s --help`: its own flags, then the global flags its traits take, one line each',
    async (_name, cmd) => {
      const r = await runMain([...cmd.words, '--help'], { tty: true, columns: 80 });
      expect(r.code).toBe(0);
      const { own, global, ownAt, globalAt } = sections(r.stdout);
      expect(ownAt).toBeGreaterThan(-1);
      expect(longNames(own)).toEqual([...cmd.flags, '--help']);
      const expected = GLOBALS.filter((f) => takesGlobalFlag(cmd.traits, f));
      expect(longNames(global)).toEqual(expected);
      if (expected.length > 0) expect(globalAt).toBeGreaterThan(ownAt);
      // One line each: no continuation line (one that starts with spaces only, then text).
      expect(global).toHaveLength(expected.length);
    },
  );

  it('`sandbox serve` and `auth login` list no record flags; `pets create` its own flags first', async () => {
    for (const words of [
      ['sandbox', 'serve'],
      ['auth', 'login'],
    ]) {
      const { global } = sections((await runMain([...words, '--help'])).stdout);
      expect(global.length).toBeGreaterThan(0);
      for (const flag of ['--jq', '--fields', '--fail-on-deprecated', '--yes', '--no-pager']) {
        expect(longNames(global), `${words.join(' ')} ${flag}`).not.toContain(flag);
      }
    }
    const create = (await runMain(['help', 'pets', 'create'])).stdout.split('\n');
    // Within the first screen of an 80x30 terminal, the prompt's row kept.
    const firstScreen = create.slice(0, 29).join('\n');
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

  it('the root’s help keeps every global flag with its full text, --no-pager included', async () => {
    const r = await runMain(['--help']);
    const { own } = sections(r.stdout);
    expect(longNames(own)).toEqual(expect.arrayContaining(GLOBALS));
    expect(r.stdout).toContain('--no-pager');
    expect(r.stdout).toContain('credentials redacted');
  });

  it('a group lists the global flags of the commands under it', async () => {
    const pets = sections((await runMain(['pets', '--help'])).stdout).global;
    expect(longNames(pets)).toEqual(expect.arrayContaining(['--jq', '--fields', '--yes', '--no-pager']));
    const sandbox = longNames(sections((await runMain(['sandbox', '--help'])).stdout).global);
    expect(sandbox).not.toContain('--jq');
    expect(sandbox).not.toContain('--timeout');
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

  it('`help --json` names, for each command, the global flags its help lists', async () => {
    const r = await runMain(['help', '--json']);
    const doc = JSON.parse(r.stdout) as {
      globalFlags: { long: string }[];
      commands: { path: string[]; globalFlags: string[] }[];
    };
    expect(doc.globalFlags.map((f) => f.long)).toContain('--no-pager');
    for (const cmd of RUNS) {
      const listed = doc.commands.find((c) => c.path.join(' ') === cmd.words.join(' '));
      const help = sections((await runMain([...cmd.words, '--help'])).stdout).global;
      expect(listed?.globalFlags, cmd.words.join(' ')).toEqual(longNames(help));
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

  it('`--help` goes the same way, and so does the root’s', async () => {
    for (const args of [['pets', 'create', '--help'], ['--help']]) {
      const { file, env } = recordingPager();
      const r = await runMain(args, { env, tty: true, columns: 80, rows: 30 });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(readFileSync(file, 'utf8')).toContain('Usage: petstore');
    }
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

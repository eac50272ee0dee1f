/**
 * `petstore help --json [COMMAND...]`: the command tree as one JSON document. Its text is
 * the golden file test/fixtures/help.json, byte for byte (`npm run golden` writes it again
 * after a change to the tree); every command and flag of the tree is in it, in the bash
 * completion script and in the man page, read from the program itself, never from a list
 * here. In-process (runMain); the built bundle's document once (runCli), as its JSON part
 * is loaded only when asked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderManPage } from '../../scripts/man/roff.js';
import { environmentVariables, exitCodes, manTree, programTree } from '../../scripts/man/sources.js';
import { ENV_VARS } from '../../src/config/env-vars.js';
import { FLAG_VALUES, isFieldList } from '../../src/base/flag-values.js';
import { commandTree, rootFlags, type TreeCommand } from '../helpers/command-tree.js';
import { runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs } from '../helpers/temp-config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const GOLDEN = join(root, 'test', 'fixtures', 'help.json');

/** The parts of the document these tests read. */
interface Doc {
  schemaVersion: number;
  flags: { long: string }[];
  globalFlags: { long: string }[];
  commands: { path: string[]; flags: { long: string }[]; [key: string]: unknown }[];
  exitCodes: { code: number; name: string }[];
  errorCodes: string[];
}

let tree: TreeCommand[];
let globals: string[];
let full: string;

beforeAll(async () => {
  [tree, globals] = await Promise.all([commandTree(), rootFlags()]);
  const r = await runMain(['help', '--json']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  full = r.stdout;
});
afterAll(() => removeTempDirs());

describe('help --json', () => {
  it('prints the golden file test/fixtures/help.json, byte for byte', () => {
    const golden = readFileSync(GOLDEN, 'utf8');
    expect(
      full,
      'help --json differs from test/fixtures/help.json: if the change to the tree is meant, run `npm run golden` and commit the file',
    ).toBe(golden);
  });

  it('is one JSON document with schemaVersion 1, exit codes and error codes', () => {
    const doc = JSON.parse(full) as Doc;
    expect(doc.schemaVersion).toBe(1);
    expect(doc.exitCodes).toContainEqual({ code: 2, name: 'usage' });
    expect(doc.exitCodes).toContainEqual({ code: 130, name: 'interrupted' });
    expect(doc.errorCodes).toEqual(expect.arrayContaining(['usage', 'config', 'internal']));
  });

  it.each([[['--json', 'help']], [['help', '--output', 'json']], [['--output=json', 'help']]])(
    '`petstore %j` prints the same document',
    async (args) => {
      const r = await runMain(args);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(full);
    },
  );

  it('no top-level command is a pet field, so `help --json WORD` never reads as --json FIELDS', () => {
    const words = tree.filter((c) => c.words.length === 1).map((c) => c.words[0] ?? '');
    expect(words).toContain('pets');
    expect(words.filter((w) => isFieldList(w))).toEqual([]);
  });

  it('`help --json pets list` is the same shape, with that command alone', async () => {
    const r = await runMain(['help', '--json', 'pets', 'list']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    const whole = JSON.parse(full) as Doc;
    expect(Object.keys(doc)).toEqual(Object.keys(whole));
    expect(doc.commands.map((c) => c.path.join(' '))).toEqual(['pets list']);
    expect(doc.commands[0]).toEqual(whole.commands.find((c) => c.path.join(' ') === 'pets list'));
    expect(doc.commands[0]).toMatchObject({
      operations: [{ id: 'listPets', method: 'GET', path: '/pets', deprecated: false, sunset: null }],
      writes: false,
      output: ['table', 'tsv', 'csv', 'json', 'ndjson'],
      recordFields: ['id', 'name', 'categoryId', 'status'],
    });
    expect(doc.commands[0]?.flags).toContainEqual(
      expect.objectContaining({ long: '--limit', short: '-L', type: 'integer', range: { min: 1, max: 100 } }),
    );
  });

  it('`help --json pets` holds the group and every command under it', async () => {
    const r = await runMain(['--json', 'help', 'pets']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    const under = tree.filter((c) => c.words[0] === 'pets').map((c) => c.words.join(' '));
    expect(doc.commands.map((c) => c.path.join(' '))).toEqual(under);
  });

  it('flags carry their ranges, defaults, variables and repetition; getPet its Sunset', () => {
    const doc = JSON.parse(full) as Doc;
    const flag = (path: string, long: string): unknown =>
      (path === '' ? doc.globalFlags : doc.commands.find((c) => c.path.join(' ') === path)?.flags)?.find(
        (f) => f.long === long,
      );
    expect(flag('', '--timeout')).toMatchObject({ type: 'number', range: { min: 0.001, max: 86400 }, default: 30 });
    expect(flag('', '--retries')).toMatchObject({ type: 'integer', range: { min: 0, max: 10 }, default: 2 });
    expect(flag('', '--base-url')).toMatchObject({ type: 'string', env: 'PETSTORE_BASE_URL' });
    expect(flag('', '--output')).toMatchObject({ type: 'enum', values: ['table', 'tsv', 'csv', 'json', 'ndjson'] });
    expect(flag('pets create', '--concurrency')).toMatchObject({ range: { min: 1, max: 32 }, default: 4 });
    expect(flag('pets create', '--category-id')).toMatchObject({ type: 'int64' });
    expect(flag('api', '--header')).toMatchObject({ short: '-H', repeatable: true });
    expect(flag('api', '--include')).toMatchObject({ type: 'boolean', repeatable: false });
    const get = doc.commands.find((c) => c.path.join(' ') === 'pets get');
    expect(get?.operations).toContainEqual({
      id: 'getPet',
      method: 'GET',
      path: '/pets/{petId}',
      deprecated: true,
      sunset: '2030-12-05',
    });
  });

  it('the flags the value table and the variables name are flags of the tree (a renamed flag fails here)', () => {
    const all = new Set([...globals, ...tree.flatMap((c) => c.flags)]);
    const named = [
      ...Object.keys(FLAG_VALUES),
      ...Object.values(ENV_VARS).flatMap((spec) => ('flag' in spec ? [spec.flag] : [])),
    ];
    expect(named).toContain('--base-url');
    expect(named.filter((flag) => !all.has(flag))).toEqual([]);
  });

  it('a command that prints no pets accepts neither --fields nor --jq, nor csv', () => {
    const doc = JSON.parse(full) as Doc;
    const status = doc.commands.find((c) => c.path.join(' ') === 'auth status');
    expect(status?.globalFlags).not.toContain('--fields');
    expect(status?.globalFlags).not.toContain('--jq');
    expect(status?.globalFlags).toContain('--env');
    expect(status?.output).not.toContain('csv');
    expect(status?.recordFields).toEqual([]);
  });

  it('an unknown command word is a usage error (exit 2), as for help without --json', async () => {
    const r = await runMain(['help', '--json', 'pets', 'lst']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ code: 'usage' });
    expect(r.stderr).toContain("unknown command 'lst'");
  });

  it('the built CLI prints the same document', async () => {
    const built = await runCli(['help', '--json']);
    expect(built.code).toBe(0);
    expect(built.stderr).toBe('');
    expect(built.stdout).toBe(full);
  });
});

/** `text` with roff's escaped hyphens (`\-`) as plain ones. */
const unroff = (text: string): string => text.replace(/\\-/g, '-');

/** Whether `words` (a list separated by blanks) holds `flag`. */
const hasWord = (list: string, flag: string): boolean => list.split(/\s+/).includes(flag);

describe('every command and flag of the tree is in help --json, completion and the man page', () => {
  let bash: string;
  let man: string;

  beforeAll(async () => {
    const r = await runMain(['completion', 'bash']);
    expect(r.code).toBe(0);
    bash = r.stdout;
    const page = {
      name: 'petstore',
      version: '0.0.0',
      date: '2026-01-01',
      tree: manTree(await programTree()),
      variables: environmentVariables(),
      exitCodes: exitCodes(root),
    };
    man = unroff(renderManPage(page));
  });

  it('the walk sees the tree and its flags', () => {
    expect(tree.find((c) => c.words.join(' ') === 'pets list')?.flags).toContain('--limit');
    expect(globals).toEqual(expect.arrayContaining(['--env', '--json', '--version']));
  });

  it('help --json', () => {
    const doc = JSON.parse(full) as Doc;
    const missing: string[] = [];
    for (const cmd of tree) {
      const entry = doc.commands.find((c) => c.path.join(' ') === cmd.words.join(' '));
      if (entry === undefined) missing.push(cmd.words.join(' '));
      for (const flag of cmd.flags) {
        if (!entry?.flags.some((f) => f.long === flag)) missing.push(`${cmd.words.join(' ')} ${flag}`);
      }
    }
    const top = [...doc.globalFlags, ...doc.flags].map((f) => f.long);
    missing.push(...globals.filter((flag) => !top.includes(flag)).map((flag) => `global ${flag}`));
    expect(missing).toEqual([]);
  });

  it('the bash completion script', () => {
    // Its table of command paths: `"pets list") ... flags="--limit ..." ;;`, one line each.
    const flagsOf = (words: string[]): string | undefined =>
      new RegExp(`^\\s*"${words.join(' ')}"\\) .*flags="([^"]*)"`, 'm').exec(bash)?.[1];
    const missing: string[] = [];
    for (const cmd of tree) {
      const offered = flagsOf(cmd.words);
      if (offered === undefined) missing.push(cmd.words.join(' '));
      for (const flag of cmd.flags) if (!hasWord(offered ?? '', flag)) missing.push(`${cmd.words.join(' ')} ${flag}`);
    }
    const atRoot = flagsOf([]) ?? '';
    missing.push(...globals.filter((flag) => !hasWord(atRoot, flag)).map((flag) => `global ${flag}`));
    expect(missing).toEqual([]);
  });

  it('the man page', () => {
    // A section per command (`.SS petstore pets list [options]`), up to the next one.
    const sectionOf = (words: string[]): string | undefined => {
      const start = man.indexOf(`\n.SS petstore ${words.join(' ')} `);
      if (start === -1) return undefined;
      const end = man.indexOf('\n.S', start + 1);
      return man.slice(start, end === -1 ? undefined : end);
    };
    const missing: string[] = [];
    for (const cmd of tree) {
      const section = sectionOf(cmd.words);
      if (section === undefined) missing.push(cmd.words.join(' '));
      for (const flag of cmd.flags) {
        if (!new RegExp(`\\\\fB${flag}\\\\fR`).test(section ?? '')) missing.push(`${cmd.words.join(' ')} ${flag}`);
      }
    }
    const globalSection = /\n\.SH GLOBAL OPTIONS\n[\s\S]*?(?=\n\.SH )/.exec(man)?.[0] ?? '';
    missing.push(
      ...globals
        .filter((flag) => !new RegExp(`\\\\fB${flag}\\\\fR`).test(globalSection))
        .map((flag) => `global ${flag}`),
    );
    expect(missing).toEqual([]);
  });
});

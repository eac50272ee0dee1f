/**
 * The man page the build generates (dist/man/petstore.1), as `man -l` (man-db) renders it
 * for a reader: every command of the program's tree with each of its flags in its own
 * section, every global flag, every environment variable, every exit code. What it must
 * hold is read from the program itself (commander's tree, `ExitCode`) and from the one list
 * of environment variables (src/config/env-vars.ts), never from a list in this test.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { beforeAll, describe, expect, it } from 'vitest';
import { environmentVariables, programTree } from '../../scripts/man/sources.js';
import { ExitCode } from '../../src/base/errors.js';
import { ENDING_SIGNALS } from '../../src/base/shutdown.js';

const PAGE = fileURLToPath(new URL('../../dist/man/petstore.1', import.meta.url));

let rendered: string;
let tree: CommandUnknownOpts;

beforeAll(async () => {
  // Wide enough that no line of the page wraps; runs of blanks are then one space.
  const r = spawnSync('man', ['-l', PAGE], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', MANWIDTH: '250', MANPAGER: 'cat' },
    encoding: 'utf8',
  });
  expect(r.error, 'man (Debian: man-db) is needed; scripts/ensure-test-tools.sh installs it').toBeUndefined();
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  rendered = r.stdout;
  tree = await programTree();
});

/** The rendered section that starts at the line `heading` (up to the next heading of its level). */
function section(heading: RegExp, next: RegExp): string {
  const lines = rendered.split('\n');
  const start = lines.findIndex((l) => heading.test(l));
  expect(start, `the page has a section ${String(heading)}`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && next.test(l));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

/** Every command below `cmd` that is not hidden, with its words. */
function commands(cmd: CommandUnknownOpts, words: string[] = []): { cmd: CommandUnknownOpts; words: string[] }[] {
  return cmd.commands
    .filter((c) => !(c as unknown as { _hidden: boolean })._hidden)
    .flatMap((c) => [{ cmd: c, words: [...words, c.name()] }, ...commands(c, [...words, c.name()])]);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The flags of `cmd` a reader types (long and short), hidden ones left out. */
const flagsOf = (cmd: CommandUnknownOpts): string[] =>
  cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((f) => f !== undefined));

describe('man petstore', () => {
  it('is the petstore page of this version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as {
      version: string;
    };
    expect(rendered).toMatch(/^PETSTORE\(1\)/);
    expect(rendered).toContain(`petstore ${version}`);
    expect(rendered).toMatch(/^NAME\n\s+petstore - /m);
  });

  it('lists every global flag under GLOBAL OPTIONS', () => {
    const global = section(/^GLOBAL OPTIONS$/, /^\S/);
    const flags = flagsOf(tree);
    expect(flags.length).toBeGreaterThan(5);
    for (const flag of [...flags, '--help']) expect(global).toMatch(new RegExp(`(^|[\\s,])${escape(flag)}\\b`, 'm'));
  });

  it('has a section for every command, holding each of its flags and arguments', () => {
    const all = commands(tree);
    expect(all.map((c) => c.words.join(' '))).toContain('pets list');
    const body = section(/^COMMANDS$/, /^\S/);
    for (const { cmd, words } of all) {
      const usage = `petstore ${words.join(' ')} ${cmd.usage()}`;
      const own = body.split('\n').findIndex((l) => l.trim() === usage);
      expect(own, `a section headed "${usage}"`).toBeGreaterThanOrEqual(0);
      const rest = body.split('\n').slice(own + 1);
      const end = rest.findIndex((l) => /^ {3}petstore /.test(l));
      const text = rest.slice(0, end === -1 ? undefined : end).join('\n');
      for (const flag of flagsOf(cmd)) expect(text, usage).toMatch(new RegExp(`(^|[\\s,])${escape(flag)}\\b`, 'm'));
      for (const arg of cmd.registeredArguments) expect(text, usage).toContain(arg.name());
    }
  });

  it('names every environment variable under ENVIRONMENT', () => {
    const envSection = section(/^ENVIRONMENT$/, /^\S/);
    const names = environmentVariables().flatMap((v) => v.names);
    expect(names).toContain('PETSTORE_API_KEY');
    for (const name of names) expect(envSection).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('explains every exit code under EXIT STATUS', () => {
    const exit = section(/^EXIT STATUS$/, /^\S/);
    // The signals' codes too (129 SIGHUP, 131 SIGQUIT): they are exit codes a script sees.
    const codes = new Set<number>([...Object.values(ExitCode), ...Object.values(ENDING_SIGNALS)]);
    for (const code of codes) expect(exit).toMatch(new RegExp(`^ +${code} +\\S`, 'm'));
  });

  it('writes flags with ASCII hyphens, unbroken, so a reader can search for them', () => {
    expect(rendered).not.toMatch(/[\u2010\u2011\u2212]/);
    expect(rendered).toContain('--max-pages');
  });

  it('prints Ctrl-\\ as a reader types it: the Markdown escape of docs/errors.md is not copied', () => {
    const exit = section(/^EXIT STATUS$/, /^\S/);
    expect(exit).toMatch(/^ +131 +ended by SIGQUIT \(Ctrl-\\ on a terminal\)$/m);
    expect(rendered).not.toContain('Ctrl-\\\\');
  });

  it('says the code cache works on every Node.js petstore runs on, as the shim writes it (bin/petstore.js)', () => {
    const files = section(/^FILES$/, /^\S/);
    expect(files).toContain('code cache');
    expect(files).toContain('every Node.js petstore runs on (20.19 and newer)');
    expect(files).not.toMatch(/Node(\.js)? *(>= *)?2[1-9]/);
  });
});

/**
 * What the man page is made of, each taken from where the CLI itself takes it, so the page
 * cannot disagree with the program: the command tree (commander's own, as `--help` prints
 * it), the environment variables (the registry in src/config/env-vars.ts), and the exit
 * codes (`ExitCode` in src/base/errors.ts, with the meanings docs/errors.md gives them). Used by the generator (generate.ts, at build time)
 * and by the test that reads the rendered page (test/e2e/man-page.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { EnvVars } from '../../src/config/env.js';
import { ENV_VARS, type EnvVarName, type EnvVarType } from '../../src/config/env-vars.js';
import { READ_BY, describeEnvVarType } from '../../src/config/env-vars-docs.js';
import { ExitCode } from '../../src/base/errors.js';
import { createIo } from '../../src/io/io.js';
import { buildProgram } from '../../src/program.js';

/** One flag: its term as help shows it (`-L, --limit <n>`) and its description. */
interface ManOption {
  term: string;
  description: string;
  long: string | undefined;
  short: string | undefined;
}

/** One command of the tree, root first. */
export interface ManCommand {
  /** Command words below the root (`['pets', 'list']`; `[]` for the root). */
  path: string[];
  /** `petstore pets list [options]` */
  usage: string;
  description: string;
  arguments: { term: string; description: string }[];
  /** Its own flags (not the inherited global ones), without `--help`. */
  options: ManOption[];
  /** The text its help prints after the lists (examples, notes), as printed at 80 columns. */
  after: string;
  commands: ManCommand[];
}

/** One environment variable (with its lower-case spelling when that is read too). */
export interface ManVariable {
  names: string[];
  /** Its meaning, the values it takes and what applies when it is unset, in plain text. */
  meaning: string;
}

/**
 * The program's command tree, built the way `main` builds it (src/program.ts) over streams
 * that go nowhere. Nothing runs: no command's action is called.
 */
export async function programTree(): Promise<CommandUnknownOpts> {
  const sink = (): PassThrough => new PassThrough().resume();
  const io = await createIo({ stdout: sink(), stderr: sink(), stdin: new PassThrough() }, new EnvVars({}), true);
  const built = buildProgram(io, () => {
    throw new Error('the man page generator runs no command');
  });
  return built.program;
}

/**
 * The help text `cmd` prints after its lists (its `addHelpText('after', ...)`), or '': its
 * own listeners alone, without the global flags every help ends with (the page lists them
 * once, in full, under GLOBAL OPTIONS).
 */
function afterText(cmd: CommandUnknownOpts): string {
  let printed = '';
  const write = (s: string): void => {
    printed += s;
  };
  // A Command is an EventEmitter; the extra typings leave that out.
  const emitter = cmd as unknown as {
    listeners(
      event: string,
    ): ((context: { error: boolean; command: CommandUnknownOpts; write: typeof write }) => void)[];
  };
  for (const listener of emitter.listeners('afterHelp')) listener({ error: false, command: cmd, write });
  return printed.replace(/^\n+|\n+$/g, '');
}

/** The tree as the man page shows it, from commander's own Help (the source of `--help`). */
export function manTree(root: CommandUnknownOpts): ManCommand {
  const toMan = (cmd: CommandUnknownOpts, path: string[]): ManCommand => {
    const help = cmd.createHelp();
    help.helpWidth = 80;
    return {
      path,
      usage: `${[root.name(), ...path].join(' ')} ${cmd.usage()}`.trim(),
      description: help.commandDescription(cmd),
      arguments: help.visibleArguments(cmd).map((a) => ({
        term: help.argumentTerm(a),
        description: help.argumentDescription(a),
      })),
      options: help
        .visibleOptions(cmd)
        .filter((o) => o.long !== '--help')
        .map((o) => ({
          term: help.optionTerm(o),
          description: help.optionDescription(o),
          long: o.long,
          short: o.short,
        })),
      after: afterText(cmd),
      commands: help.visibleCommands(cmd).map((sub) => toMan(sub, [...path, sub.name()])),
    };
  };
  return toMan(root, []);
}

/** Markdown table rows (`| a | b |`) of the section of `file` headed `heading`. */
function tableRows(file: string, heading: string): string[][] {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section "${heading}"`);
  const rows: string[][] = [];
  for (const line of text.slice(start + heading.length + 2).split('\n')) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(1); // the header row
}

/**
 * Markdown inline text as plain text: links become their text, code marks go, and a
 * backslash escape becomes the character it escapes (CommonMark 2.4: `Ctrl-\\` is
 * `Ctrl-\`), except inside a code span, which keeps its backslashes. A `\|` is a table
 * cell's pipe everywhere, code spans included (GFM tables).
 */
function plainText(markdown: string): string {
  return markdown
    .replace(/\\\|/g, '|')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part.slice(1, -1) : part.replace(/\\([!-/:-@[-`{-~])/g, '$1')))
    .join('');
}

/**
 * The environment variables petstore reads, from the registry the code reads them through
 * (src/config/env-vars.ts), as docs/commands.md lists them.
 */
export function environmentVariables(): ManVariable[] {
  return (Object.keys(ENV_VARS) as EnvVarName[]).map((name) => {
    const spec: {
      type: EnvVarType;
      default?: string;
      meaning: string;
      readBy?: keyof typeof READ_BY;
      lowercase?: true;
    } = ENV_VARS[name];
    const parts = [spec.meaning, ...(spec.readBy === undefined ? [] : [READ_BY[spec.readBy]])];
    parts.push(`Values: ${describeEnvVarType(spec.type)}.`);
    if (spec.default !== undefined) parts.push(`When unset: ${spec.default}.`);
    return {
      names: spec.lowercase === true ? [name, name.toLowerCase()] : [name],
      meaning: plainText(parts.join(' ')),
    };
  });
}

/**
 * Every exit code of `ExitCode` (src/base/errors.ts) with its meaning from docs/errors.md's
 * table ("Exit codes").
 * @throws Error naming a code the table does not explain.
 */
export function exitCodes(root: string): { code: number; meaning: string }[] {
  const meanings = new Map(
    tableRows(join(root, 'docs', 'errors.md'), '## Exit codes').map(([code = '', meaning = '']) => [
      Number(code),
      plainText(meaning),
    ]),
  );
  const codes = [...new Set<number>(Object.values(ExitCode))].sort((a, b) => a - b);
  return codes.map((code) => {
    const meaning = meanings.get(code);
    if (meaning === undefined) throw new Error(`docs/errors.md's table of exit codes does not explain exit ${code}`);
    return { code, meaning };
  });
}

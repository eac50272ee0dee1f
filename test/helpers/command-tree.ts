/**
 * The command tree as tests see it, read from the program itself (`buildProgram`), so a
 * test that covers "every command", "every command that prints pets" or "every command
 * that calls the API" covers a new command without being edited.
 */
import { PassThrough } from 'node:stream';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { traitsOf, type CommandTraits } from '../../src/commands/traits.js';
import { EnvVars } from '../../src/config/env.js';
import { createIo } from '../../src/io/io.js';
import { buildProgram } from '../../src/program.js';

/** One command of the tree. */
export interface TreeCommand {
  /** Its words below `petstore` (`['pets', 'list']`). */
  words: string[];
  /** The names of its subcommands, in the order help lists them; empty for a command that runs. */
  subcommands: string[];
  /** What it declared (`commands/traits.ts`). */
  traits: CommandTraits;
  /** The long names of its own flags that help lists, without `--help` (`['--limit', ...]`). */
  flags: string[];
  /** Its own options that help lists, without `--help`: their flag words as declared and their help. */
  options: { flags: string; description: string }[];
  /** The names of its positional arguments, in order (`['id']`). */
  arguments: string[];
}

/** The long names of the flags help lists for `cmd` itself, without `--help`. */
function flagsOf(cmd: CommandUnknownOpts): string[] {
  return cmd
    .createHelp()
    .visibleOptions(cmd)
    .map((o) => o.long ?? o.flags)
    .filter((long) => long !== '--help');
}

/** The options help lists for `cmd` itself, without `--help`: flag words and help text. */
function optionsOf(cmd: CommandUnknownOpts): { flags: string; description: string }[] {
  return cmd
    .createHelp()
    .visibleOptions(cmd)
    .filter((o) => o.long !== '--help')
    .map((o) => ({ flags: o.flags, description: o.description }));
}

/** The program, built as `main` builds it, over streams that go nowhere; nothing runs. */
async function program(): Promise<CommandUnknownOpts> {
  const io = await createIo(
    { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() },
    new EnvVars({}),
    true,
  );
  return buildProgram(io, () => {
    throw new Error('no command runs here');
  }).program;
}

/** The long names of the root's flags that help lists (the global flags and `--version`), without `--help`. */
export async function rootFlags(): Promise<string[]> {
  return flagsOf(await program());
}

/** Every command of the tree below the root that help lists, depth first, in the order help lists them. */
export async function commandTree(): Promise<TreeCommand[]> {
  const root = await program();
  // Hidden commands (`__complete-envs`, run by the completion scripts) are not for people:
  // help, completion and the man page leave them out, and so does the tree tests read.
  // (Help's list may add commander's implicit `help` of a group: only the commands declared count.)
  const visible = (cmd: CommandUnknownOpts): CommandUnknownOpts[] => {
    const listed = new Set(cmd.createHelp().visibleCommands(cmd));
    return cmd.commands.filter((c) => listed.has(c));
  };
  const walk = (cmd: CommandUnknownOpts, words: string[]): TreeCommand[] =>
    visible(cmd).flatMap((sub) => {
      const path = [...words, sub.name()];
      const node = {
        words: path,
        subcommands: visible(sub).map((c) => c.name()),
        traits: traitsOf(sub),
        flags: flagsOf(sub),
        options: optionsOf(sub),
        arguments: sub.registeredArguments.map((a) => a.name()),
      };
      return [node, ...walk(sub, path)];
    });
  return walk(root, []);
}

/** The subcommands of the command `words` (`['pets']` → `['list', 'create', 'get']`). */
export function subcommandsOf(tree: TreeCommand[], words: string[]): string[] {
  const node = tree.find((c) => c.words.join(' ') === words.join(' '));
  if (node === undefined) throw new Error(`no command ${words.join(' ')}`);
  return node.subcommands;
}

/** The commands that print pets (they take every record flag), reads before writes: `pets list`, `pets get`, … */
export function petPrinters(tree: TreeCommand[]): TreeCommand[] {
  const printers = tree.filter((c) => c.traits.recordFlags.includes('--fields'));
  return [...printers.filter((c) => c.traits.writes === false), ...printers.filter((c) => c.traits.writes !== false)];
}

/**
 * The examples of a command's help (`$ petstore pets get 7` → `['pets', 'get', '7']`), in
 * order, as argv: words split at spaces, single and double quotes honoured; an example with
 * a pipe or a redirection is left out (it is not one run of petstore).
 */
async function examplesOf(words: string[]): Promise<string[][]> {
  const { runMain } = await import('./run-main.js');
  const r = await runMain([...words, '--help'], { columns: 1000 });
  if (r.code !== 0) throw new Error(`${words.join(' ')} --help: exit ${r.code}: ${r.stderr}`);
  const section = r.stdout.split('Examples:')[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^\s*\$ petstore (.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined && !/[|<>]/.test(line.replace(/'[^']*'|"[^"]*"/g, '')))
    .map((line) => [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? ''));
}

/**
 * The command that calls `operationId` as its own (the first of its `operations` trait)
 * and the first example of its help: one run of that operation, with the arguments the help
 * shows.
 * @throws Error when no command declares the operation, or its help shows no example.
 */
export async function exampleRunOf(tree: TreeCommand[], operationId: string): Promise<string[]> {
  const command = tree.find((c) => c.traits.operations[0] === operationId);
  if (command === undefined) throw new Error(`no command calls ${operationId} as its own`);
  const [first] = await examplesOf(command.words);
  if (first === undefined) throw new Error(`${command.words.join(' ')} shows no example`);
  return first;
}

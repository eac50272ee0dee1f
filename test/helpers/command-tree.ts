/**
 * The command tree as tests see it, read from the program itself (`buildProgram`), so a
 * test that covers "every command", "every command that prints pets" or "every command
 * that calls the API" covers a new command without being edited.
 */
import { PassThrough } from 'node:stream';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { traitsOf, type CommandTraits } from '../../src/command-traits.js';
import { EnvVars } from '../../src/config/env.js';
import { createIo } from '../../src/io.js';
import { buildProgram } from '../../src/program.js';

/** One command of the tree. */
export interface TreeCommand {
  /** Its words below `petstore` (`['pets', 'list']`). */
  words: string[];
  /** The names of its subcommands, in the order help lists them; empty for a command that runs. */
  subcommands: string[];
  /** What it declared (`command-traits.ts`). */
  traits: CommandTraits;
}

/** Every command of the tree below the root, depth first, in the order help lists them. */
export async function commandTree(): Promise<TreeCommand[]> {
  const io = await createIo(
    { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() },
    new EnvVars({}),
    true,
  );
  const { program } = buildProgram(io, () => {
    throw new Error('no command runs here');
  });
  const walk = (cmd: CommandUnknownOpts, words: string[]): TreeCommand[] =>
    cmd.commands.flatMap((sub) => {
      const path = [...words, sub.name()];
      const node = { words: path, subcommands: sub.commands.map((c) => c.name()), traits: traitsOf(sub) };
      return [node, ...walk(sub, path)];
    });
  return walk(program, []);
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

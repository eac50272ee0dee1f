/**
 * Walks of the command tree, each written once: up from a command to the root (its path:
 * the words that name it, the root it belongs to) and down from a command through every
 * command below it. The program (help pointers, the record-flag refusal, settings copied
 * down the tree, the flags that take a value) and the commands that read the whole tree
 * (`help`, `completion`) use them.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** The commands from the root of `cmd`'s tree down to `cmd` (`[petstore, pets, create]`). */
function commandPath(cmd: CommandUnknownOpts): [CommandUnknownOpts, ...CommandUnknownOpts[]] {
  const path: [CommandUnknownOpts, ...CommandUnknownOpts[]] = [cmd];
  for (let node = cmd.parent; node !== null; node = node.parent) path.unshift(node);
  return path;
}

/** The words of `cmd` below the root (`['pets', 'create']`; `[]` for the root). */
export function commandWords(cmd: CommandUnknownOpts): string[] {
  return commandPath(cmd)
    .slice(1)
    .map((c) => c.name());
}

/** The root of the command tree `cmd` belongs to. */
export function rootOf(cmd: CommandUnknownOpts): CommandUnknownOpts {
  return commandPath(cmd)[0];
}

/** `cmd` and every command below it, each before its subcommands, in the tree's order. */
export function commandTree(cmd: CommandUnknownOpts): CommandUnknownOpts[] {
  return [cmd, ...cmd.commands.flatMap(commandTree)];
}

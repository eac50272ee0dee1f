/** `petstore help [COMMAND...]`: help for a command path (`petstore help pets list`). */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { rootOf } from '../runner.js';

/** Declares `help`. It needs no Context: it only walks the command tree. */
export function newHelpCommand() {
  return new Command('help')
    .description('show help for a command')
    .addArgument(new Argument('[command...]', 'command words, e.g. pets list'))
    .addHelpText(
      'after',
      `
Examples:
  $ petstore help pets list
  $ petstore help completion`,
    )
    .action((words, _flags, cmd) => {
      findCommand(rootOf(cmd), words).help();
    });
}

/**
 * Finds the command named by `words` under `root`. An unknown word is reported the way
 * commander reports it for `petstore pets lst` (the same message and "Did you mean"
 * suggestion, from commander's own code, and the same hint), since `petstore help pets
 * lst` is the same mistake.
 * @throws commander's `commander.unknownCommand` error (cli.ts makes it a UsageError, exit 2).
 */
function findCommand(root: CommandUnknownOpts, words: readonly string[]): CommandUnknownOpts {
  let cmd = root;
  for (const word of words) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    cmd = sub ?? unknownCommand(cmd, word);
  }
  return cmd;
}

/** Raises commander's own error for `word` unknown under `cmd`, with its suggestion. */
function unknownCommand(cmd: CommandUnknownOpts, word: string): never {
  // Commander reads the unknown word from `args`, as after parsing `petstore pets lst`.
  const unknown = cmd as unknown as { args: string[]; unknownCommand(): never };
  unknown.args = [word];
  return unknown.unknownCommand();
}

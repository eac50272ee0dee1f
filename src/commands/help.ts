/** `petstore help [COMMAND...]`: help for a command path (`petstore help pets list`). */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../errors.js';
import { rootOf } from './runner.js';

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
 * Finds the command named by `words` under `root`.
 * @throws UsageError naming the unknown word and listing the commands known at that level.
 */
function findCommand(root: CommandUnknownOpts, words: readonly string[]): CommandUnknownOpts {
  let cmd = root;
  for (const [i, word] of words.entries()) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) {
      const known = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      throw new UsageError(
        `unknown command ${JSON.stringify(words.slice(0, i + 1).join(' '))}`,
        `Commands${cmd === root ? '' : ` of \`${cmd.name()}\``}: ${known.join(', ')}.`,
      );
    }
    cmd = sub;
  }
  return cmd;
}

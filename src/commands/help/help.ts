/**
 * `petstore help [COMMAND...]`: help for a command path (`petstore help pets list`); with
 * the global `--json` (or `--output json`), the command tree as one JSON document (json.ts,
 * loaded only then).
 */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { withTraits } from '../traits.js';
import { rootOf, type Runner } from '../runner.js';

/**
 * Declares `help`. Text help needs no Context: it only walks the command tree. The JSON
 * document is written through the run's Io, as every command's output is.
 */
export function newHelpCommand(f: Runner) {
  return withTraits(new Command('help'), { formats: true })
    .description('show help for a command; with --json, the command tree as JSON')
    .addArgument(new Argument('[command...]', 'command words, e.g. pets list'))
    .addHelpText(
      'after',
      `
Examples:
  $ petstore help pets list
  $ petstore help completion
  $ petstore help --json pets list`,
    )
    .action(async (words, _flags, cmd) => {
      const root = rootOf(cmd);
      const target = findCommand(root, words);
      // `--json` is the global flag (cli-contract.md "Output"), so `petstore --json help`
      // and `petstore help --json` are the same; `--output json` too.
      const { json, output } = root.opts() as { json?: boolean; output?: string };
      if (json !== true && output !== 'json') {
        target.help();
        return;
      }
      await f.run(async (ctx) => {
        const { helpJsonText } = await import('./json.js');
        await ctx.io.out(helpJsonText(root, target));
        return 0;
      });
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

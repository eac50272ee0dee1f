/**
 * `petstore help [COMMAND...]`: help for a command path (`petstore help pets list`), or a
 * topic (`petstore help flags`: every global flag; `petstore help environment`: every
 * variable of the registry; topics.ts, loaded only then); with the global `--json` (or
 * `--output json`), the command tree as one JSON document (json.ts, loaded only then).
 */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../base/errors.js';
import { closestName } from '../../base/suggest.js';
import { withTraits } from '../traits.js';
import { rootOf, type Runner } from '../runner.js';

/**
 * The topics `help` prints besides a command's help (gh's `gh help environment`), each with
 * what it prints. No command is named like one (test/commands/help-flags.test.ts).
 */
const TOPICS: Readonly<Record<HelpTopic, string>> = {
  flags: 'every global flag, with its values and default',
  environment: 'every environment variable petstore reads',
};

/**
 * Declares `help`. Text help needs no Context: it only walks the command tree. The JSON
 * document is written through the run's Io, as every command's output is.
 */
export function newHelpCommand(f: Runner) {
  const topics = Object.entries(TOPICS).map(([name, what]) => `  ${name.padEnd(13)}${what}`);
  return withTraits(new Command('help'), { formats: true, topics: TOPICS })
    .description('show help for a command or a topic; with --json, the command tree as JSON')
    .summary('help for a command; `help flags`, `help environment`')
    .addArgument(new Argument('[command...]', 'command words, e.g. pets list; or a topic'))
    .addHelpText(
      'after',
      `
Topics:
${topics.join('\n')}

Examples:
  $ petstore help pets list
  $ petstore help flags
  $ petstore help --json pets list`,
    )
    .action(async (words, _flags, cmd) => {
      const root = rootOf(cmd);
      const topic = topicOf(words);
      // A topic is the whole document with --json: its `globalFlags` and `environment`.
      const target = topic === undefined ? findCommand(root, words) : root;
      // `--json` is the global flag (cli-contract.md "Output"), so `petstore --json help`
      // and `petstore help --json` are the same; `--output json` too.
      const { json, output } = root.opts() as { json?: boolean; output?: string };
      if (json !== true && output !== 'json') {
        if (topic === undefined) {
          target.help();
          return;
        }
        const { topicText } = await import('./topics.js');
        // Help's own way out (the held text cli.ts writes whole, paged when longer than the screen).
        root.configureOutput().writeOut?.(topicText(root, topic));
        return;
      }
      await f.run(async (ctx) => {
        const { helpJsonText } = await import('./json.js');
        await ctx.io.out(helpJsonText(root, target));
        return 0;
      });
    });
}

/** A help topic. */
type HelpTopic = 'flags' | 'environment';

/** The topic `words` name (`flags`, `environment`), if they are one word naming one. */
function topicOf(words: readonly string[]): HelpTopic | undefined {
  const [word, ...rest] = words;
  return rest.length === 0 && word !== undefined && Object.hasOwn(TOPICS, word) ? (word as HelpTopic) : undefined;
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

/**
 * Raises commander's own error for `word` unknown under `cmd`, with its suggestion; a first
 * word close to a topic (`help flag`, `help environmen`) is pointed at the topic instead,
 * which commander, knowing only commands, cannot suggest.
 * @throws UsageError (exit 2) naming the topic; else commander's `commander.unknownCommand`.
 */
function unknownCommand(cmd: CommandUnknownOpts, word: string): never {
  // The closest-name rule of environments (a prefix, or a few edits) serves topics as well.
  const topic = cmd.parent === null ? closestName(word, Object.keys(TOPICS)) : undefined;
  if (topic !== undefined)
    throw new UsageError(`unknown command '${word}'`, `Did you mean \`petstore help ${topic}\`?`);
  // Commander reads the unknown word from `args`, as after parsing `petstore pets lst`.
  const unknown = cmd as unknown as { args: string[]; unknownCommand(): never };
  unknown.args = [word];
  return unknown.unknownCommand();
}

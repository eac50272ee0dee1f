/**
 * The command tree (cli-contract.md "Commands", "Global flags"), composed from each
 * command's own declaration. Declarations are cheap; a command's run module is imported
 * only when it runs, so `--help` and usage errors never load the HTTP client, zod or the
 * table renderer.
 */
import { Command, Help, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';
import { newApiCommand } from './commands/api/api.js';
import { newAuthCommand } from './commands/auth/auth.js';
import { newCompletionCommand } from './commands/completion/completion.js';
import { newCompleteEnvsCommand } from './commands/completion/envs.js';
import { newConfigCommand } from './commands/config/config.js';
import { newEnvCommand } from './commands/env/env.js';
import { newHelpCommand } from './commands/help/help.js';
import { newMcpCommand } from './commands/mcp/mcp.js';
import { newPetsCommand } from './commands/pets/pets.js';
import { newVersionCommand } from './commands/version/version.js';
import type { Runner } from './commands/runner.js';
import { newSandboxCommand } from './commands/sandbox/sandbox.js';
import type { Context } from './context.js';
import { UsageError } from './base/errors.js';
import { commandTree, commandWords } from './commands/path.js';
import { takesGlobalFlag, traitsOf, type RecordFlag } from './commands/traits.js';
import { addGlobalOptions, globalFlagSummary, recordOnlyFlags, type GlobalFlags } from './global-options.js';
import type { Io } from './io/io.js';
import { wrapHelpText } from './text/wrap.js';
import { formatHelp, globalFlagsText, subcommandTerm, usageLine } from './commands/help/layout.js';

declare const __PETSTORE_VERSION__: string | undefined;
/** The version, injected at build time. */
const VERSION = typeof __PETSTORE_VERSION__ === 'string' ? __PETSTORE_VERSION__ : '0.0.0-dev';

/** The program and the exit code of the command that ran (undefined until one has). */
export interface Program {
  program: CommandUnknownOpts;
  exitCode: () => number | undefined;
  /**
   * The command words (`['pets']` for `petstore pets lst`, `[]` for the root) of the
   * command on which commander raised its own error, for pointing at the nearest help.
   */
  failedCommand: () => string[] | undefined;
  /** The command words of the command whose action is running (`['pets', 'create']`), once one is. */
  running: () => string[] | undefined;
  /**
   * The help (or version) commander wrote while it parsed, wrapped, and forgets it: held
   * rather than written, so that it is written whole, through the pager when it is longer
   * than the screen (cli.ts `writeHelp`). Undefined when there was none.
   */
  takeHelp: () => string | undefined;
}

/** Help width when stdout (or stderr, for help after an error) is not a terminal. */
const HELP_COLUMNS = 80;

/**
 * Builds the program. `makeContext` turns the parsed global flags into a command's
 * Context; commander's own output and errors flow through the run's Io and `cli.ts` (its
 * `exitOverride` makes it throw instead of exiting). `io` is the Io, or what gives it once
 * commander parses: `cli.ts` builds the tree first, since the Io's colour depends on argv,
 * read with the tree's flags that take a value.
 */
export function buildProgram(io: Io | (() => Io), makeContext: (flags: GlobalFlags) => Context): Program {
  const ioNow = typeof io === 'function' ? io : () => io;
  let exitCode: number | undefined;
  let failedCommand: string[] | undefined;
  let running: string[] | undefined;
  const root = addGlobalOptions(new Command('petstore'));
  const runner: Runner = {
    run: async (body) => {
      const ctx = makeContext(root.opts());
      // jq starts now, alongside the command's own start; a write's `connect` waits for its
      // verdict on the expression, so a bad one is refused before anything is sent, while a
      // read's request leaves at once (ConnectOptions.reads).
      const jq = ctx.globals.jq === undefined ? undefined : ctx.recordOutput();
      jq?.catch(() => undefined);
      const outcome = await body(ctx).then(
        (code) => ({ code }),
        (err: unknown) => ({ err }),
      );
      // A refused expression is the run's error whatever else happened (exit 2, nothing
      // printed): a read's answer, or its failure, that came first is dropped.
      const refused = await jq
        ?.then((output) => output.jq?.check())
        .then(
          () => undefined,
          (err: unknown) => (err instanceof UsageError ? err : undefined),
        );
      if (refused !== undefined) throw refused;
      if ('err' in outcome) throw outcome.err;
      exitCode = outcome.code;
    },
  };
  const help = configureHelpOutput(root, ioNow);
  root
    .hook('preAction', (_root, action) => {
      running = commandWords(action);
    })
    .showSuggestionAfterError(true)
    // Our own `help` command takes a command path (`petstore help pets list`).
    .helpCommand(false)
    .description('Administer the Pet Store API: list, create and look up animals.')
    .version(VERSION, '-V, --version', 'print the version')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore --env sandbox pets list --status available
  $ petstore pets list --json | jq '.[].name'
  $ petstore --env staging pets create --name Rex --category-id 1

Exit codes: 0 ok, 1 failure, 2 usage/config, 3 network/timeout, 4 auth, 5 not found, 6 rejected.`,
    )
    .addCommand(newPetsCommand(runner))
    .addCommand(newSandboxCommand(runner))
    .addCommand(newAuthCommand(runner))
    .addCommand(newConfigCommand(runner))
    .addCommand(newEnvCommand(runner))
    .addCommand(newApiCommand(runner))
    .addCommand(newMcpCommand(runner))
    .addCommand(newCompletionCommand(runner))
    .addCommand(newVersionCommand(VERSION, (s) => ioNow().outNow(s)))
    .addCommand(newHelpCommand(runner))
    // Run by the completion scripts at Tab time, not by people: out of help and completion.
    .addCommand(newCompleteEnvsCommand(runner), { hidden: true })
    .hook('preAction', (_root, action) => refuseRecordFlags(root, root.opts(), action));
  inheritSettings(root, (words) => (failedCommand ??= words));
  return {
    program: root,
    exitCode: () => exitCode,
    failedCommand: () => failedCommand,
    running: () => running,
    takeHelp: help.take,
  };
}

/**
 * Sets how `root` writes help: in gh's order (commands/help/layout.ts), wrapped at stdout's
 * width (80 when not a terminal), held until the parse is over (`take`, for cli.ts to write
 * it whole, paged when longer than the screen); each command's global flags those that act
 * on it, one line each, after its examples, or one line pointing to `petstore help flags`.
 */
function configureHelpOutput(root: CommandUnknownOpts, ioNow: () => Io): { take: () => string | undefined } {
  let help: string | undefined;
  const outWidth = (): number => ioNow().stdoutColumns ?? HELP_COLUMNS;
  // Commander writes help in parts (the lists, then each text added after them).
  const holdHelp = (s: string): void => {
    help = (help ?? '') + wrapHelpText(s, outWidth());
  };
  root
    .configureOutput({
      // Only help (and the version) comes this way: commander wraps its own lists at the
      // width, and the texts added after them (examples, notes) are wrapped here.
      writeOut: holdHelp,
      // Commander's only other text is the help it shows for a command word left out
      // (`petstore`, `petstore pets`): help asked for in the only way there is, so it goes
      // to stdout with exit 0, as gh and kubectl do (cli.ts).
      writeErr: holdHelp,
      // cli.ts prints the error (plain or JSON), so commander's own copy is dropped.
      outputError: () => undefined,
      getOutHelpWidth: outWidth,
      getErrHelpWidth: outWidth,
      getErrHasColors: () => false,
    })
    .configureHelp({
      formatHelp,
      subcommandTerm,
      commandUsage(cmd) {
        return usageLine(Help.prototype.commandUsage.call(this, cmd));
      },
      // A command's help also lists, after its examples, the global flags that act on it
      // (gh's INHERITED FLAGS), one line each (cli-contract.md "Output"): the last part of
      // every help, written by the root's `afterAll` text below.
      showGlobalOptions: true,
      visibleGlobalOptions(cmd) {
        // `--version` belongs to the program, not to every command.
        return Help.prototype.visibleGlobalOptions
          .call(this, cmd)
          .filter((o) => o.long !== '--version' && actsOn(cmd, o.long ?? o.flags))
          .map(summarised);
      },
      // Commander leaves descriptions unwrapped in less than 40 columns; at 60 columns that
      // is every description after a long flag.
      minWidthToWrap: 16,
    })
    .addHelpText('afterAll', ({ command }) => {
      const helper = command.createHelp();
      helper.prepareContext({ helpWidth: outWidth() });
      const held = help ?? '';
      return globalFlagsText(command, helper, held.split('\n').length - (held.endsWith('\n') ? 1 : 0));
    });
  return {
    take: () => {
      const text = help;
      help = undefined;
      return text;
    },
  };
}

/**
 * Whether the global flag `long` acts on `cmd` (`takesGlobalFlag`, from its traits); on a
 * group (`pets`), whether it acts on one of the commands under it.
 */
function actsOn(cmd: CommandUnknownOpts, long: string): boolean {
  const runs = commandTree(cmd).filter((c) => c.commands.length === 0);
  return runs.some((c) => takesGlobalFlag(traitsOf(c), long));
}

/**
 * A global flag as a command's help shows it: its one-line summary, without the choices
 * and default commander would add (they are in the root's help).
 */
function summarised(option: Option): Option {
  const summary = globalFlagSummary(option.long ?? option.flags);
  if (summary === undefined) return option;
  const copy = Object.create(Object.getPrototypeOf(option) as object) as Option;
  return Object.assign(copy, option, {
    description: summary,
    argChoices: undefined,
    defaultValue: undefined,
    envVar: undefined,
  });
}

/**
 * Refuses the flags that shape pet records (`recordOnlyFlags`) on a command whose traits do
 * not accept them (`config list`, `auth status`, `version`; `api` takes `--jq` alone, as gh
 * api does): a usage error, never silently ignored (cli-contract.md "Output"). The commands
 * it names are read from the tree: those that print pets, reads before writes.
 * @throws UsageError naming the flag and the command.
 */
function refuseRecordFlags(root: CommandUnknownOpts, flags: GlobalFlags, action: CommandUnknownOpts): void {
  const accepted = traitsOf(action).recordFlags;
  const given = recordOnlyFlags(flags).filter((f) => !accepted.includes(f));
  if (given.length === 0) return;
  const words = commandWords(action).join(' ');
  // The commands that run something (no subcommands), in tree order.
  const commands = commandTree(root).filter((c) => c.commands.length === 0);
  const takes = (flag: RecordFlag) => commands.filter((c) => traitsOf(c).recordFlags.includes(flag));
  const printers = takes('--fields').sort((a, b) => Number(writesAny(a)) - Number(writesAny(b)));
  const jqAlone = takes('--jq').filter((c) => !printers.includes(c));
  const alsoJq = jqAlone.map((c) => ` and to \`${commandWords(c).join(' ')}\``).join('');
  throw new UsageError(
    `${given.join(' and ')} ${given.length === 1 ? 'applies' : 'apply'} only to commands that print pets (${printers.map((c) => commandWords(c).join(' ')).join(', ')})${given.length === 1 && given[0] === '--jq' ? alsoJq : ''}, not to \`${words}\``,
    given.includes('--output csv') || given.includes('--jq')
      ? `For \`${words}\`, use --output tsv or --output json.`
      : undefined,
  );
}

/** Whether `cmd` may change the store (its `writes` trait is not `false`). */
function writesAny(cmd: CommandUnknownOpts): boolean {
  return traitsOf(cmd).writes !== false;
}

/**
 * Copies the root's settings (exitOverride, output, help and suggestion settings) down the
 * tree: commander copies them only into subcommands made with `.command()`, and ours are
 * built on their own and added with `.addCommand()`. Each command's exit override also
 * tells `onError` which command raised commander's error (its words).
 */
function inheritSettings(root: CommandUnknownOpts, onError: (words: string[]) => void): void {
  // A parent comes before its subcommands, so each copies settings its parent already has.
  for (const cmd of commandTree(root)) {
    if (cmd.parent !== null) cmd.copyInheritedSettings(cmd.parent);
    cmd.exitOverride((err) => {
      onError(commandWords(cmd));
      if (err.code === 'commander.unknownOption') pointElsewhere(cmd, err);
      throw err;
    });
  }
}

/**
 * For an unknown flag that `cmd` declares is another command's work (its `elsewhere`
 * trait: `pets list --watch`), replaces commander's suggestion, if any, with that command:
 * "(Did you mean `petstore pets watch`?)". The error stays commander's (exit 2).
 */
function pointElsewhere(cmd: CommandUnknownOpts, err: { message: string }): void {
  const flag = /unknown option '([^'=]+)/.exec(err.message)?.[1];
  const words = flag === undefined ? undefined : traitsOf(cmd).elsewhere?.[flag];
  if (words === undefined) return;
  err.message = `${err.message.split('\n')[0] ?? ''}\n(Did you mean \`petstore ${words}\`?)`;
}

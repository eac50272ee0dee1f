/**
 * The layout of `--help` (cli-contract.md "Output"), in gh's order: usage, the description,
 * commands (a group's verbs), the command's own flags, its arguments; then the texts a command
 * adds after its lists (examples, notes); then the global flags it accepts, one line each,
 * or the one line pointing to `petstore help flags` where the list would not fit the
 * screen. The root and the groups always take the one line: their help is for finding a
 * command, and must fit an 80x30 screen whole. Light on purpose: program.ts configures
 * every command's help with it at start-up.
 */
import type { CommandUnknownOpts, Help, Option } from '@commander-js/extra-typings';

/** The lines a help has before it no longer fits an 80x30 screen: 30 rows, one kept for the prompt. */
const HELP_SCREEN_LINES = 29;

/** The one line that stands for the global flags where they are not listed. */
const GLOBAL_FLAGS_POINTER = 'Global flags: see `petstore help flags`';

/** A section: its heading, its items (each already formatted), and the blank line after it. */
function section(helper: Help, heading: string, items: string[]): string[] {
  return helper.formatItemList(heading, items, helper);
}

/** The widest of `terms` in columns (0 for none). */
function widest(helper: Help, terms: readonly string[]): number {
  return Math.max(0, ...terms.map((t) => helper.displayWidth(t)));
}

/** The flags `cmd`'s help lists as its own: the root's are `--version` and `--help` (the others are the global flags). */
function ownOptions(cmd: CommandUnknownOpts, helper: Help): Option[] {
  const visible = helper.visibleOptions(cmd);
  return cmd.parent === null ? visible.filter((o) => o.long === '--version' || o.long === '--help') : visible;
}

/** Whether `cmd` is a group (or the root): a command with verbs under it, whose help is for finding one. */
function isGroup(cmd: CommandUnknownOpts): boolean {
  return cmd.parent === null || cmd.commands.length > 0;
}

/**
 * The part of `cmd`'s help commander prints before the texts added after it (`formatHelp`
 * of commander's Help, in gh's order): usage, description, commands, own flags, then the
 * arguments (after the flags: a leaf's flags stay on its first screen, and its usage line
 * already shows its arguments).
 * The terms of one help line up, a leaf's global flags (printed later) included, so that
 * its two lists read as one table.
 */
export function formatHelp(cmd: CommandUnknownOpts, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const args = helper.visibleArguments(cmd);
  const commands = helper.visibleCommands(cmd);
  const options = ownOptions(cmd, helper);
  const globals = isGroup(cmd) ? [] : helper.visibleGlobalOptions(cmd);
  const termWidth = widest(helper, [
    ...args.map((a) => helper.argumentTerm(a)),
    ...commands.map((c) => helper.subcommandTerm(c)),
    ...[...options, ...globals].map((o) => helper.optionTerm(o)),
  ]);
  const item = (term: string, description: string): string => helper.formatItem(term, termWidth, description, helper);
  const description = helper.commandDescription(cmd);
  return [
    `${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`,
    '',
    ...(description === '' ? [] : [helper.boxWrap(helper.styleCommandDescription(description), width), '']),
    ...section(
      helper,
      'Commands:',
      commands.map((c) => item(helper.styleSubcommandTerm(helper.subcommandTerm(c)), helper.subcommandDescription(c))),
    ),
    ...section(
      helper,
      'Flags:',
      options.map((o) => item(helper.styleOptionTerm(helper.optionTerm(o)), helper.optionDescription(o))),
    ),
    ...section(
      helper,
      'Arguments:',
      args.map((a) => item(helper.styleArgumentTerm(helper.argumentTerm(a)), helper.argumentDescription(a))),
    ),
  ].join('\n');
}

/**
 * The last part of `cmd`'s help, after its examples: the global flags that act on it
 * (commander's `visibleGlobalOptions`, as program.ts narrows and summarises them), one line
 * each, when the help then still fits the screen (`HELP_SCREEN_LINES`, counting the
 * `printed` lines before it); else, and always for the root and a group, the one line
 * pointing to `petstore help flags`.
 */
export function globalFlagsText(cmd: CommandUnknownOpts, helper: Help, printed: number): string {
  const pointer = `\n${GLOBAL_FLAGS_POINTER}`;
  if (isGroup(cmd)) return pointer;
  const globals = helper.visibleGlobalOptions(cmd);
  const termWidth = widest(helper, [
    ...helper.visibleArguments(cmd).map((a) => helper.argumentTerm(a)),
    ...[...ownOptions(cmd, helper), ...globals].map((o) => helper.optionTerm(o)),
  ]);
  const items = globals.map((o) =>
    helper.formatItem(helper.styleOptionTerm(helper.optionTerm(o)), termWidth, helper.optionDescription(o), helper),
  );
  const listed = ['', 'Global flags:', ...items].join('\n');
  const lines = listed.split('\n').length;
  return printed + lines <= HELP_SCREEN_LINES ? listed : pointer;
}

/** A subcommand as a group's list shows it: its name alone (gh's), its arguments being in its own usage line. */
export function subcommandTerm(cmd: CommandUnknownOpts): string {
  return cmd.name();
}

/** A command's usage line as help shows it: flags are called flags (`petstore pets list [flags]`). */
export function usageLine(usage: string): string {
  return usage.replace('[options]', '[flags]');
}

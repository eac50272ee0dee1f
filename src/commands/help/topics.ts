/**
 * The texts of `petstore help flags` and `petstore help environment` (gh's help topics):
 * every global flag, as the parser declares it on the root, with its values and default;
 * every variable of the registry (`config/env-vars.ts`, the one `help --json`'s
 * `environment` and the man page read). Loaded only when a topic is asked for; the text is
 * wrapped at the terminal's width where help is (program.ts).
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describeEnvVarType } from '../../config/env-vars-docs.js';
import { ENV_VARS, type EnvVarName, type EnvVarSpec } from '../../config/env-vars.js';

/** The text of the topic `topic`, for the program `root`, ending in a newline. */
export function topicText(root: CommandUnknownOpts, topic: 'flags' | 'environment'): string {
  return topic === 'flags' ? flagsText(root) : environmentText();
}

/**
 * Every flag of the root (the global flags, then `--version` and `--help`), in full: its
 * values, default and variable, as commander words them.
 */
function flagsText(root: CommandUnknownOpts): string {
  const helper = root.createHelp();
  helper.prepareContext({ helpWidth: root.configureOutput().getOutHelpWidth?.() ?? 80 });
  const options = helper.visibleOptions(root);
  const termWidth = Math.max(0, ...options.map((o) => helper.displayWidth(helper.optionTerm(o))));
  const items = options.map((o) =>
    helper.formatItem(helper.optionTerm(o), termWidth, helper.optionDescription(o), helper),
  );
  return [
    // One line a paragraph: help is wrapped at the terminal's width as it is written.
    "Global flags: accepted before or after the command words (`petstore --env staging pets list` or `petstore pets list --env staging`). A command's help lists those that act on it; the others are accepted and do nothing there, but --fields, --jq and --output csv, which a command that prints no pets refuses.",
    '',
    ...helper.formatItemList('Flags:', items, helper),
    'Environment variables: see `petstore help environment`',
    '',
  ].join('\n');
}

/** A registry text (Markdown: code in backquotes) as plain terminal text. */
function plain(text: string): string {
  return text.replace(/`/g, '');
}

/**
 * Every variable of the registry, in its order: its name (and its lower-case spelling when
 * that is read too), then, indented, its meaning, its values and what applies when unset.
 */
function environmentText(): string {
  const entries = (Object.keys(ENV_VARS) as EnvVarName[]).map((name) => {
    const spec: EnvVarSpec = ENV_VARS[name];
    const names = spec.lowercase === true ? `${name}, ${name.toLowerCase()}` : name;
    const by =
      spec.readBy === 'node' ? ' Read by Node itself.' : spec.readBy === 'shim' ? ' Read before the CLI loads.' : '';
    const unset = spec.default === undefined ? '' : ` When unset: ${plain(spec.default)}.`;
    return `${names}\n  ${plain(spec.meaning)}${by} Values: ${plain(describeEnvVarType(spec.type))}.${unset}\n`;
  });
  return [
    'Environment variables: a variable is set when it is defined and not empty; a flag given on the command line wins over the variable that does the same.',
    '',
    ...entries,
  ].join('\n');
}

/**
 * `completion bash|zsh|fish`: prints a shell completion script. The script is generated
 * from the commander tree (commands, subcommands, flags, and the choices commander holds
 * for flag values and arguments: `--status`, `--output`, config keys, shells) and from the
 * settings registry (the values of `config set` keys), so it cannot drift from the real
 * CLI. After `help`, the words are the tree's own (`help pets list`); a flag that takes a
 * file completes paths as files (a directory gets a `/` and no space).
 *
 * Environment names (`--env`, `env use`, `env remove`, `config set environment`) are not
 * fixed: the configured ones are asked of petstore at Tab time (`petstore __complete-envs`,
 * as gh's and kubectl's scripts call back into the program; cli-contract.md
 * "Environments"), in the shell's own environment (its PETSTORE_CONFIG_DIR); when that
 * gives nothing (petstore not on PATH), the built-in names.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { traitsOf } from '../traits.js';
import { BUILTIN_ENVIRONMENTS } from '../../config/environments.js';
import { settingChoices } from '../../config/keys.js';
import { COMPLETE_ENVS } from './envs.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../base/errors.js';

/** The values of an environment name: asked of petstore at Tab time. */
const ENVIRONMENTS = 'environments';

/** What a value may be: fixed choices, or the environment names. */
type Choices = readonly string[] | typeof ENVIRONMENTS;

/** Flags whose value is an environment name. */
const ENV_FLAGS = new Set(['--env']);
/** Settings whose value is an environment name (`config set environment NAME`). */
const ENV_SETTINGS = new Set(['environment']);

/** Flags whose value is a file path. */
const FILE_FLAGS = new Set(['--from-file', '--input']);
/** Flags whose value is a comma-separated list of their choices (`--fields id,name`). */
const LIST_FLAGS = new Set(['--fields']);

/** One flag as completion sees it. */
interface CompletionFlag {
  long: string | undefined;
  short: string | undefined;
  description: string;
  takesValue: boolean;
  values: Choices | undefined;
  file: boolean;
  /** The value is a comma-separated list of `values`. */
  list: boolean;
}

/** One command path (e.g. `pets list`) with what may follow it. */
interface CompletionNode {
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  /** Flags of this command (global flags are listed once, on the root). */
  flags: CompletionFlag[];
  /** Choices of its first argument (`completion <shell>`, `env use <name>`), if any. */
  argChoices: Choices | undefined;
  /** Choices of its second argument by its first (`config set environment` → the environments). */
  valueChoices?: Record<string, Choices>;
}

/** The completion model: every command path, root first; global flags apply everywhere. */
interface CompletionModel {
  name: string;
  nodes: CompletionNode[];
  globalFlags: CompletionFlag[];
}

const HELP_FLAG: CompletionFlag = {
  long: '--help',
  short: '-h',
  description: 'show help',
  takesValue: false,
  values: undefined,
  file: false,
  list: false,
};

function flagsOf(cmd: CommandUnknownOpts): CompletionFlag[] {
  return cmd.options
    .filter((o) => !o.hidden)
    .map((o) => ({
      long: o.long,
      short: o.short,
      description: o.description,
      takesValue: o.required || o.optional,
      values: o.long !== undefined && ENV_FLAGS.has(o.long) ? ENVIRONMENTS : o.argChoices,
      file: o.long !== undefined && FILE_FLAGS.has(o.long),
      list: o.long !== undefined && LIST_FLAGS.has(o.long),
    }));
}

/** Commands whose second argument's choices depend on the first, and where they come from. */
const VALUE_CHOICES: Record<string, () => Record<string, Choices>> = {
  'config set': () =>
    Object.fromEntries(
      Object.entries(settingChoices()).map(([key, values]) => [key, ENV_SETTINGS.has(key) ? ENVIRONMENTS : values]),
    ),
};

/** The commands below `cmd` that help lists: a hidden one (`__complete-envs`) is not offered. */
function visibleSubcommands(cmd: CommandUnknownOpts): CommandUnknownOpts[] {
  const visible = new Set(cmd.createHelp().visibleCommands(cmd));
  return cmd.commands.filter((c) => visible.has(c));
}

/** The choices of `cmd`'s first argument: the environments when it names one, else commander's. */
function argumentChoices(cmd: CommandUnknownOpts): Choices | undefined {
  return traitsOf(cmd).argument === 'environment' ? ENVIRONMENTS : cmd.registeredArguments[0]?.argChoices;
}

/**
 * Walks the commander tree into a completion model. `help` gets a node for every command
 * path (`help pets` offers `list create get`), since it takes the tree's words, and offers
 * its topics (`help flags`, `help environment`, from its traits) beside the top level.
 */
function completionModel(program: CommandUnknownOpts): CompletionModel {
  const nodes: CompletionNode[] = [];
  const helpNodes: CompletionNode[] = [];
  // `help`'s topics (`help flags`), offered after `help` beside the top-level commands.
  let topics: { name: string; description: string }[] = [];
  const visit = (cmd: CommandUnknownOpts, path: string[]): void => {
    const subs = visibleSubcommands(cmd);
    const isHelp = path.length === 1 && path[0] === 'help';
    if (isHelp)
      topics = Object.entries(traitsOf(cmd).topics ?? {}).map(([name, description]) => ({ name, description }));
    const subcommands = subs.map((c) => ({ name: c.name(), description: c.description() }));
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: isHelp ? [] : subcommands,
      flags: path.length === 0 ? [] : [...flagsOf(cmd), HELP_FLAG],
      argChoices: isHelp ? undefined : argumentChoices(cmd),
      valueChoices: VALUE_CHOICES[path.join(' ')]?.(),
    });
    if (!isHelp) {
      const words = subcommands.filter((s) => s.name !== 'help');
      helpNodes.push({
        path: ['help', ...path],
        description: cmd.description(),
        subcommands: words,
        flags: [HELP_FLAG],
        argChoices: undefined,
      });
    }
    for (const c of subs) visit(c, [...path, c.name()]);
  };
  visit(program, []);
  // `help` itself is the first of the help nodes (`help` alone offers the top level).
  const at = nodes.findIndex((n) => n.path.length === 1 && n.path[0] === 'help');
  const [root, ...helpRest] = helpNodes;
  const helpRoot =
    root === undefined || at === -1
      ? undefined
      : { ...root, description: nodes[at]?.description ?? '', subcommands: [...root.subcommands, ...topics] };
  if (at !== -1 && helpRoot !== undefined)
    nodes.splice(at, 1, helpRoot, ...helpRest.filter((n) => n.subcommands.length > 0));
  const globalFlags = [...flagsOf(program), HELP_FLAG];
  return { name: program.name(), nodes, globalFlags };
}

function names(f: CompletionFlag): string[] {
  return [f.long, f.short].filter((n): n is string => n !== undefined);
}

function shellWords(words: readonly string[]): string {
  return words.join(' ');
}

/** The bash function that prints the environment names: petstore's own, else the built-in ones. */
function environmentsFn(model: CompletionModel): string {
  return `__${model.name}_environments`;
}

/** Bash words (inside double quotes) for `values`: the fixed words, or the names asked of petstore. */
function bashWords(values: Choices, envFn: string): string {
  return values === ENVIRONMENTS ? `$(${envFn})` : shellWords(values);
}

/** The bash script: `source <(petstore completion bash)`. Also used by zsh through bashcompinit. */
function bashScript(model: CompletionModel): string {
  const all = [...model.globalFlags, ...model.nodes.flatMap((n) => n.flags)];
  const valueFlags = [...new Set(all.filter((f) => f.takesValue).flatMap(names))];
  const fn = `__${model.name}_complete`;
  const envFn = environmentsFn(model);
  const pathCases = model.nodes.flatMap((n) => n.subcommands.map((s) => `"${n.path.join(' ')}:${s.name}"`)).join('|');
  const valueCases: string[] = [];
  const seen = new Set<string>();
  for (const f of all) {
    if (!f.takesValue || f.long === undefined || seen.has(f.long)) continue;
    seen.add(f.long);
    const pattern = names(f).join('|');
    if (f.values !== undefined && f.values !== ENVIRONMENTS && f.list)
      // Completes the item after the last comma, keeping the ones before it; an item
      // already in the list is not offered, since the CLI refuses one named twice.
      valueCases.push(
        `    ${pattern}) given="\${cur%\${cur##*,}}"; for v in ${shellWords(f.values)}; do case ",$given" in *",$v,"*) ;; *) left="$left $v" ;; esac; done; COMPREPLY=($(compgen -P "$given" -W "$left" -- "\${cur##*,}")); return 0 ;;`,
      );
    else if (f.values !== undefined)
      valueCases.push(
        `    ${pattern}) COMPREPLY=($(compgen -W "${bashWords(f.values, envFn)}" -- "$cur")); return 0 ;;`,
      );
    // As file names: a directory gets its `/` and no space after it, names with spaces stay whole.
    else if (f.file)
      valueCases.push(
        `    ${pattern}) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;`,
      );
    else valueCases.push(`    ${pattern}) COMPREPLY=(); return 0 ;;`);
  }
  const globalWords = model.globalFlags.flatMap((f) => (f.long !== undefined ? [f.long] : []));
  // Words first (subcommands, argument choices); flags when the word starts with "-" or
  // nothing else can follow.
  const nodeCases = model.nodes.map((n) => {
    const flags = [
      ...n.flags.flatMap((f) => (f.long !== undefined ? [f.long] : [])),
      ...(n.path.length === 0 ? globalWords : globalWords.filter((w) => w !== '--help' && w !== '--version')),
    ];
    return `    "${n.path.join(' ')}") ${positionalWords(n, envFn)}; flags="${shellWords([...new Set(flags)])}" ;;`;
  });
  // The names are asked of the petstore being completed, with stderr and stdin closed to it:
  // it prints only names, one a line, and nothing at all goes to the terminal.
  return `# ${model.name} completion for bash. Load it with: source <(${model.name} completion bash)
${envFn}() {
  local names
  names="$("\${COMP_WORDS[0]}" ${COMPLETE_ENVS} 2>/dev/null </dev/null)"
  printf '%s\n' "\${names:-${BUILTIN_ENVIRONMENTS.join(' ')}}"
}
${fn}() {
  local cur prev at="" w i skip=0 words="" flags="" nargs=0 first="" given="" left="" v
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # "--status=so": bash splits at "=", so the flag is two words back.
  if [[ "$cur" == "=" ]]; then cur=""; prev="\${COMP_WORDS[COMP_CWORD-1]}";
  elif [[ "$prev" == "=" ]]; then prev="\${COMP_WORDS[COMP_CWORD-2]}"; fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      -*=*|=) ;;
      -*) case " ${valueFlags.join(' ')} " in *" $w "*) skip=1 ;; esac ;;
      *) if ((nargs == 0)); then case "$at:$w" in ${pathCases}) at="\${at:+$at }$w"; continue ;; esac; fi
         ((nargs == 0)) && first="$w"; nargs=$((nargs + 1)) ;;
    esac
  done
  case "$prev" in
${valueCases.join('\n')}
  esac
  # The command path so far ("pets list"): not \`path\`, which zsh ties to PATH.
  case "$at" in
${nodeCases.join('\n')}
  esac
  if [[ "$cur" == -* || -z "$words" ]]; then words="$flags"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  return 0
}
complete -F ${fn} ${model.name}
`;
}

/**
 * The bash words that may come next at node `n`, given `nargs` (the arguments after its
 * path so far) and `first` (the first of them): its subcommands, the choices of its first
 * argument, or of its second by the first.
 */
function positionalWords(n: CompletionNode, envFn: string): string {
  const first = [
    ...n.subcommands.map((s) => s.name),
    ...(n.argChoices === undefined ? [] : [bashWords(n.argChoices, envFn)]),
  ];
  const second = Object.entries(n.valueChoices ?? {}).map(
    ([key, values]) => `${key}) words="${bashWords(values, envFn)}" ;; `,
  );
  const then = second.length === 0 ? '' : ` elif ((nargs == 1)); then case "$first" in ${second.join('')}esac;`;
  return `if ((nargs == 0)); then words="${shellWords(first)}";${then} fi`;
}

/** The zsh script: zsh's bashcompinit runs the bash completion function. */
function zshScript(model: CompletionModel): string {
  return `# ${model.name} completion for zsh. Load it with: source <(${model.name} completion zsh)
autoload -U +X compinit && { (( \${+_comps} )) || compinit; }
autoload -U +X bashcompinit && bashcompinit
${bashScript(model).split('\n').slice(1).join('\n')}`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Fish's `-a` argument for `values`: the fixed words, or a command substitution fish runs at
 * Tab time: the names petstore prints, else (petstore not on PATH, or it failed) the built-in ones.
 */
function fishChoices(values: Choices, name: string): string {
  if (values !== ENVIRONMENTS) return fishQuote(values.join(' '));
  const builtins = `string split ' ' '${BUILTIN_ENVIRONMENTS.join(' ')}'`;
  return fishQuote(`(command -q ${name}; and ${name} ${COMPLETE_ENVS} 2>/dev/null </dev/null; or ${builtins})`);
}

function fishFlag(f: CompletionFlag, name: string): string {
  let s = '';
  if (f.long !== undefined) s += ` -l ${f.long.slice(2)}`;
  if (f.short !== undefined) s += ` -s ${f.short.slice(1)}`;
  if (f.values !== undefined) s += ` -x -a ${fishChoices(f.values, name)}`;
  else if (f.file) s += ' -r -F';
  else if (f.takesValue) s += ' -x';
  return s + ` -d ${fishQuote(f.description)}`;
}

/** The fish script: `petstore completion fish > ~/.config/fish/completions/petstore.fish`. */
function fishScript(model: CompletionModel): string {
  const c = model.name;
  const out = [
    `# ${c} completion for fish. Install: ${c} completion fish > ~/.config/fish/completions/${c}.fish`,
    `complete -c ${c} -f`,
  ];
  for (const f of model.globalFlags) out.push(`complete -c ${c}${fishFlag(f, c)}`);
  const subNames = (n: CompletionNode): string => n.subcommands.map((s) => s.name).join(' ');
  for (const n of model.nodes) {
    const cond =
      n.path.length === 0
        ? '__fish_use_subcommand'
        : n.path.map((p) => `__fish_seen_subcommand_from ${p}`).join('; and ') +
          (n.subcommands.length > 0 ? `; and not __fish_seen_subcommand_from ${subNames(n)}` : '');
    for (const s of n.subcommands)
      out.push(`complete -c ${c} -n ${fishQuote(cond)} -a ${s.name} -d ${fishQuote(s.description)}`);
    if (n.argChoices !== undefined) {
      // The first argument once: after a key, its values (below), not the keys again. The
      // environment names are not known here, so they are offered after one, too.
      const before =
        n.argChoices === ENVIRONMENTS ? cond : `${cond}; and not __fish_seen_subcommand_from ${n.argChoices.join(' ')}`;
      out.push(`complete -c ${c} -n ${fishQuote(before)} -a ${fishChoices(n.argChoices, c)}`);
    }
    for (const [key, values] of Object.entries(n.valueChoices ?? {}))
      out.push(
        `complete -c ${c} -n ${fishQuote(`${cond}; and __fish_seen_subcommand_from ${key}`)} -a ${fishChoices(values, c)}`,
      );
    if (n.path.length > 0)
      for (const f of n.flags)
        if (f.long !== '--help') out.push(`complete -c ${c} -n ${fishQuote(cond)}${fishFlag(f, c)}`);
  }
  return out.join('\n') + '\n';
}

/**
 * Prints the completion script of `shell` for the command tree `root`.
 * @returns exit code 0.
 */
export async function runCompletion(
  ctx: Context,
  root: CommandUnknownOpts,
  shell: 'bash' | 'zsh' | 'fish',
): Promise<number> {
  const model = completionModel(root);
  const script = shell === 'fish' ? fishScript(model) : shell === 'zsh' ? zshScript(model) : bashScript(model);
  await ctx.io.out(script);
  return ExitCode.ok;
}

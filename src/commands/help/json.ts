/**
 * `petstore help --json [COMMAND...]`: the command tree as one JSON document, made from the
 * same things help, completion and the man page are made from (commander's tree, each
 * command's traits, the flag value table of flag-values.ts, the registry of environment
 * variables, the operations of the spec, `ExitCode`, `ERROR_CODE_INFO` and the sandbox's
 * error codes), so it cannot tell a
 * different story. Loaded only when `help --json` runs. The shape is docs/commands.md's
 * "help": additions keep `schemaVersion` 1; a removal or a change of meaning raises it.
 */
import type { Argument, CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { PET_FIELDS, operationOf } from '../../client/constants.js';
import { commandWords } from '../path.js';
import { takesGlobalFlag, traitsOf, type CommandTraits, type RecordFlag } from '../traits.js';
import { envVarOfFlag } from '../../config/env-vars.js';
import { ERROR_CODES, ExitCode } from '../../base/errors.js';
import {
  FLAG_VALUES,
  OUTPUT_FORMATS,
  type FlagRange,
  type FlagValue,
  type OutputFormat,
} from '../../base/flag-values.js';
import { environmentDocs, errorsDoc, VALUE_TYPES, type EnvironmentDoc, type ErrorsDoc } from './sections.js';

/** The document's version: raised only when a key goes or changes meaning, never for an addition. */
const HELP_SCHEMA_VERSION = 1;

/** A flag's value type: `boolean` for a flag that takes none. */
type FlagType = 'boolean' | 'string' | 'enum' | FlagValue['type'];

/**
 * How a flag whose value may be left out is written: every form the parser takes, as
 * written, a placeholder in capitals standing for its `values` (`--json FIELDS`). Any
 * other way is not the flag's value: `--dry-run curl` is the flag, then an argument.
 */
interface ValueFormDoc {
  optional: true;
  forms: string[];
}

/** One flag. */
interface FlagDoc {
  long: string;
  short: string | null;
  description: string;
  type: FlagType;
  /** The values allowed (`enum`), or the items a list is made of (`list`). */
  values: string[] | null;
  range: FlagRange | null;
  default: number | boolean | null;
  /** The environment variable that does the same when the flag is not given. */
  env: string | null;
  required: boolean;
  repeatable: boolean;
  /** `null` for a flag with no value or one that follows it (`--limit 5`, `--limit=5`). */
  value: ValueFormDoc | null;
  /** The flags (long names) it cannot be given with (commander's `conflicts`). */
  conflicts: string[];
}

/** One positional argument. */
interface ArgumentDoc {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  values: string[] | null;
  /** `enum` (one of `values`), `int64` or `string`. */
  type: 'enum' | 'int64' | 'string';
}

/** One API operation a command calls (spec §4). */
interface OperationDoc {
  id: string;
  method: string;
  path: string;
  deprecated: boolean;
  /** The removal date (RFC 8594 `Sunset`) of a deprecated operation, `YYYY-MM-DD`. */
  sunset: string | null;
}

/** One command of the tree. */
interface CommandDoc {
  path: string[];
  summary: string;
  arguments: ArgumentDoc[];
  flags: FlagDoc[];
  /**
   * The long names of the global flags that act on it: those its help lists, or, where the
   * list would not fit the screen, stands for with a line pointing to `petstore help flags`.
   */
  globalFlags: string[];
  operations: OperationDoc[];
  writes: CommandTraits['writes'];
  /**
   * The `--output` formats that shape its stdout, each accepted; any other is refused
   * (exit 2). `[]` where `--output` does not act (not in `globalFlags`): there `-o` is
   * accepted, `csv` aside, and changes only the form of its messages.
   */
  output: OutputFormat[];
  /** The global record flags it accepts (`--fields`, `--json FIELDS`, `--jq`, `--output csv`); others refuse them. */
  recordFlags: RecordFlag[];
  /** Groups of its flags that go together: given one, the others are needed too (off a terminal: exit 2). */
  requiredTogether: string[][];
  recordFields: string[];
  examples: string[];
  subcommands: string[];
  /** The topics its argument takes besides command words (`help`: `flags`, `environment`); `[]` for none. */
  topics: string[];
}

/** The whole document. */
interface HelpDocument {
  schemaVersion: number;
  name: string;
  summary: string;
  examples: string[];
  /** The program's own flags (`--version`), not accepted after a command. */
  flags: FlagDoc[];
  globalFlags: FlagDoc[];
  commands: CommandDoc[];
  exitCodes: { code: number; name: string }[];
  errorCodes: string[];
  /** Every variable of the registry (`config/env-vars.ts`). */
  environment: EnvironmentDoc[];
  errors: ErrorsDoc;
  /** What each type named by `type` above means. */
  types: Record<string, string>;
}

/** The commands help lists under `cmd` (not hidden ones, not commander's implicit `help`). */
function visibleCommands(cmd: CommandUnknownOpts): CommandUnknownOpts[] {
  const listed = new Set(cmd.createHelp().visibleCommands(cmd));
  return cmd.commands.filter((c) => listed.has(c));
}

/** The flags help lists for `cmd` itself, without `--help`. */
function visibleFlags(cmd: CommandUnknownOpts): Option[] {
  return cmd
    .createHelp()
    .visibleOptions(cmd)
    .filter((o) => o.long !== '--help');
}

/**
 * One flag. A flag whose parser takes the value before it (commander's `(value,
 * previous)`) collects its values: it is repeatable.
 */
function flagDoc(option: Option, all: readonly Option[]): FlagDoc {
  const long = option.long ?? option.flags;
  const value: FlagValue | undefined = (FLAG_VALUES as Record<string, FlagValue>)[long];
  // `--json` is declared without a value; `prescan` gives it its FIELDS (its `forms`).
  const takesValue = option.required || option.optional || value?.forms !== undefined;
  const choices = option.argChoices === undefined ? (value?.values ?? null) : option.argChoices;
  const type: FlagType = !takesValue ? 'boolean' : (value?.type ?? (choices === null ? 'string' : 'enum'));
  const parser = (option as { parseArg?: (...args: unknown[]) => unknown }).parseArg;
  const env = envVarOfFlag(long);
  return {
    long,
    short: option.short ?? null,
    description: option.description,
    type,
    values: choices === null ? null : [...choices],
    range: value?.range ?? null,
    default: value?.default ?? (takesValue ? null : false),
    env: env ?? null,
    required: option.mandatory,
    repeatable: option.variadic || (parser !== undefined && parser.length >= 2),
    value: valueForms(option, value, choices),
    conflicts: conflictsOf(option, all),
  };
}

/**
 * The forms of a flag whose value may be left out: its own (`FlagValue.forms`), else, as
 * `prescan` reads commander's `[value]`, the bare flag and `--flag=VALUE` for each value.
 */
function valueForms(
  option: Option,
  value: FlagValue | undefined,
  choices: readonly string[] | null,
): ValueFormDoc | null {
  if (value?.forms !== undefined) return { optional: true, forms: [...value.forms] };
  if (!option.optional) return null;
  const long = option.long ?? option.flags;
  return { optional: true, forms: [long, ...(choices ?? ['VALUE']).map((v) => `${long}=${v}`)] };
}

/** The long names of the flags among `all` that `option` conflicts with (commander keeps their attribute names). */
function conflictsOf(option: Option, all: readonly Option[]): string[] {
  const names = (option as { conflictsWith?: string[] }).conflictsWith ?? [];
  return all.filter((o) => names.includes(o.attributeName())).map((o) => o.long ?? o.flags);
}

/** Arguments whose values are typed beyond their choices, by name (a name means the same on every command). */
const ARGUMENT_TYPES: Readonly<Record<string, ArgumentDoc['type']>> = {
  // `pets get ID`: an int64, parsed as `--category-id` is (spec §2).
  id: 'int64',
};

function argumentDoc(argument: Argument): ArgumentDoc {
  const values = argument.argChoices === undefined ? null : [...argument.argChoices];
  return {
    name: argument.name(),
    description: argument.description,
    required: argument.required,
    variadic: argument.variadic,
    values,
    type: ARGUMENT_TYPES[argument.name()] ?? (values === null ? 'string' : 'enum'),
  };
}

function operationDoc(id: CommandTraits['operations'][number]): OperationDoc {
  const { method, path, removal } = operationOf(id);
  return { id, method, path, deprecated: removal !== undefined, sunset: removal ?? null };
}

/** What commander hands a help listener. */
interface HelpContext {
  error: boolean;
  command: CommandUnknownOpts;
  write: (s: string) => void;
}

/**
 * The examples of `cmd`'s help: the `$ ` lines of the text added after its lists
 * (`addHelpText('after', ...)`), read from commander's own listeners without printing.
 */
function examplesOf(cmd: CommandUnknownOpts): string[] {
  let text = '';
  const write = (s: string): void => {
    text += s;
  };
  // A Command is an EventEmitter; the extra typings leave that out.
  const emitter = cmd as unknown as { listeners(event: string): ((context: HelpContext) => void)[] };
  for (const listener of emitter.listeners('afterHelp')) listener({ error: false, command: cmd, write });
  return text
    .split('\n')
    .map((line) => /^\s*\$ (.*\S)\s*$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
}

/**
 * The global flags that act on a command with `traits` (`takesGlobalFlag`): those its help
 * lists. The others are accepted and do nothing, but for the record flags (`--fields`,
 * `--jq`), which a command that prints no pets refuses.
 */
function acceptedGlobals(globals: FlagDoc[], traits: CommandTraits): string[] {
  return globals.map((f) => f.long).filter((long) => takesGlobalFlag(traits, long));
}

/**
 * The `--output` formats that shape a command's stdout: none where `--output` does not act
 * (`takesGlobalFlag`), else its declared `outputs`, else every format (`csv` only for one
 * that accepts `--output csv`).
 */
function outputsOf(traits: CommandTraits): OutputFormat[] {
  if (!takesGlobalFlag(traits, '--output')) return [];
  return OUTPUT_FORMATS.filter(
    (f) => (f !== 'csv' || traits.recordFlags.includes('--output csv')) && (traits.outputs?.includes(f) ?? true),
  );
}

function commandDoc(cmd: CommandUnknownOpts, globals: FlagDoc[]): CommandDoc {
  const traits = traitsOf(cmd);
  const subcommands = visibleCommands(cmd);
  const runs = subcommands.length === 0;
  const printsPets = traits.recordFlags.includes('--fields');
  const flags = visibleFlags(cmd);
  return {
    path: commandWords(cmd),
    summary: cmd.description(),
    arguments: cmd.registeredArguments.map(argumentDoc),
    flags: flags.map((o) => flagDoc(o, flags)),
    globalFlags: runs ? acceptedGlobals(globals, traits) : [],
    operations: traits.operations.map(operationDoc),
    writes: traits.writes,
    output: runs ? outputsOf(traits) : [],
    recordFlags: [...traits.recordFlags],
    requiredTogether: (traits.together ?? []).map((group) => [...group]),
    recordFields: printsPets ? [...PET_FIELDS] : [],
    examples: examplesOf(cmd),
    subcommands: subcommands.map((c) => c.name()),
    topics: Object.keys(traits.topics ?? {}),
  };
}

/**
 * The document for the tree of `root`, its commands limited to `target` and those below it
 * (every command when `target` is the root). Keys come in a fixed order, absent values are
 * `null` or `[]`, so the text is stable.
 */
function helpDocument(root: CommandUnknownOpts, target: CommandUnknownOpts): HelpDocument {
  const rootFlags = visibleFlags(root);
  // `--version` belongs to the program, not to every command (as help shows it).
  const globals = rootFlags.filter((o) => o.long !== '--version').map((o) => flagDoc(o, rootFlags));
  const all: CommandDoc[] = [];
  const commands: CommandDoc[] = [];
  const walk = (cmd: CommandUnknownOpts, inside: boolean): void => {
    for (const sub of visibleCommands(cmd)) {
      const included = inside || sub === target;
      const doc = commandDoc(sub, globals);
      all.push(doc);
      if (included) commands.push(doc);
      walk(sub, included);
    }
  };
  walk(root, target === root);
  return {
    schemaVersion: HELP_SCHEMA_VERSION,
    name: root.name(),
    summary: root.description(),
    examples: examplesOf(root),
    flags: rootFlags.filter((o) => o.long === '--version').map((o) => flagDoc(o, rootFlags)),
    globalFlags: globals,
    commands,
    exitCodes: Object.entries(ExitCode).map(([name, code]) => ({ code, name })),
    errorCodes: [...ERROR_CODES],
    // Of the whole tree, whatever `target` is: a variable's readers do not depend on the question.
    environment: environmentDocs(all),
    errors: errorsDoc(),
    types: { ...VALUE_TYPES },
  };
}

/** The document as printed: indented JSON, two spaces, a final newline. */
export function helpJsonText(root: CommandUnknownOpts, target: CommandUnknownOpts): string {
  return `${JSON.stringify(helpDocument(root, target), null, 2)}\n`;
}

/**
 * The global flags (cli-contract.md "Global flags"), declared on the root command and
 * accepted before or after the command words, each parsed by commander through the input
 * rules' own parsers, and `toGlobalOptions`, which turns them into the typed options every
 * command's Context carries; and `prescan`, the one reading of argv before commander's (what
 * the run needs before its flags are parsed, and `--json FIELDS` rewritten for commander).
 */
import { Option, type Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { PET_FIELDS, type PetField } from './client/constants.js';
import { commandTree } from './commands/path.js';
import { RECORD_FLAGS, type RecordFlag } from './commands/traits.js';
import type { EnvVars } from './config/env.js';
import { checkEnvName, type EnvName } from './config/environments.js';
import { checkBaseUrl } from './config/settings.js';
import { UsageError } from './base/errors.js';
import {
  FLAG_VALUES,
  OUTPUT_FORMATS,
  isFieldList,
  parseFields,
  parseJqExpression,
  parseOutput,
  parseRetries,
  parseTimeoutSeconds,
  type OutputFormat,
} from './base/flag-values.js';

/** Default `--timeout`, in seconds (cli-contract.md "Network behaviour"). */
const DEFAULT_TIMEOUT_SECONDS = FLAG_VALUES['--timeout'].default;
/** Default `--retries`. */
const DEFAULT_RETRIES = FLAG_VALUES['--retries'].default;

/** Declares the global flags on `program` (the root command). */
export function addGlobalOptions(program: Command) {
  return (
    program
      .addOption(
        new Option(
          '-e, --env <name>',
          'environment: production, staging, sandbox or a configured name (env PETSTORE_ENV; default: production)',
        ).argParser((v) => checkEnvName(v, '--env')),
      )
      .addOption(
        new Option('--base-url <url>', 'API base URL ending in /v1 (env PETSTORE_BASE_URL)').argParser((v) =>
          checkBaseUrl(v, '--base-url'),
        ),
      )
      .addOption(
        new Option('-o, --output <format>', 'output format (default: table on a terminal, tsv in a pipe)')
          .choices(OUTPUT_FORMATS)
          .argParser((v) => parseOutput(v)),
      )
      .addOption(
        new Option('--json', 'same as --output json; --json FIELDS also keeps only those fields (as --fields)'),
      )
      .addOption(
        // The choices are the items of the comma-separated list (for help and completion).
        new Option('--fields <list>', 'print only these pet fields, comma-separated, in this order')
          .choices(PET_FIELDS)
          .argParser((v) => parseFields(v)),
      )
      // What `--json FIELDS` becomes (prescan), so that its errors can name `--json`.
      .addOption(new Option('--json-fields <list>').hideHelp().argParser((v) => parseFields(v, '--json')))
      .addOption(
        new Option(
          '--jq <expression>',
          'filter the JSON output with jq (built in: no jq needed); implies --output json',
        ).argParser((v) => parseJqExpression(v)),
      )
      .addOption(new Option('--no-color', 'never colour output (also NO_COLOR)'))
      .addOption(
        new Option(
          '--timeout <seconds>',
          `deadline for the whole command, retries included (default: ${DEFAULT_TIMEOUT_SECONDS})`,
        ).argParser((v) => parseTimeoutSeconds(v)),
      )
      .addOption(
        new Option(
          '--retries <n>',
          `retries on transient failures, as the retry policy allows, 0-10 (default: ${DEFAULT_RETRIES})`,
        ).argParser((v) => parseRetries(v)),
      )
      .addOption(
        new Option('--verbose', 'print requests, responses and their headers on stderr (credentials redacted)'),
      )
      .addOption(
        new Option(
          '--fail-on-deprecated',
          'never call deprecated operations: pets get uses listPets (env PETSTORE_FAIL_ON_DEPRECATED=1)',
        ),
      )
      .addOption(
        new Option(
          '-q, --quiet',
          'no warnings or notes on stderr; errors, accounts and the environment a write went to are still shown',
        ),
      )
      .addOption(
        new Option(
          '--yes',
          'answer yes to a confirmation in advance (a write to an environment with confirmWrites; env remove)',
        ),
      )
      .addOption(new Option('--no-pager', 'never start a pager, for a table or help longer than the screen (as git)'))
  );
}

/**
 * The one line each global flag gets under a command's own flags (cli-contract.md
 * "Output": help shows them one line each); the full text stays in the root's help, the
 * man page and docs/commands.md. A flag without one here shows its full text.
 */
const GLOBAL_FLAG_SUMMARIES: Readonly<Record<string, string>> = {
  '--env': 'environment to use (env PETSTORE_ENV)',
  '--base-url': 'API base URL ending in /v1',
  '--output': 'output format (default: table, tsv in a pipe)',
  '--json': 'same as --output json',
  '--fields': 'only these fields: id,name,categoryId,status',
  '--jq': 'filter the JSON output with jq (built in)',
  '--no-color': 'never colour output',
  '--timeout': `deadline in seconds (default: ${DEFAULT_TIMEOUT_SECONDS})`,
  '--retries': `retries on transient failures (default: ${DEFAULT_RETRIES})`,
  '--verbose': 'print requests and responses on stderr',
  '--fail-on-deprecated': 'never call deprecated operations',
  '--quiet': 'no warnings or notes; errors and accounts stay',
  '--yes': 'answer yes to a confirmation in advance',
  '--no-pager': 'never start a pager',
};

/** The one-line summary of the global flag `long` under a command's own flags, or undefined for its full text. */
export function globalFlagSummary(long: string): string | undefined {
  return GLOBAL_FLAG_SUMMARIES[long];
}

/** The global flags as commander parsed them. */
export type GlobalFlags = ReturnType<ReturnType<typeof addGlobalOptions>['opts']>;

/** Global options after parsing (cli-contract.md "Global flags"). */
export interface GlobalOptions {
  /** `--env`, when given; otherwise resolution decides (`config/settings.ts`). */
  env: EnvName | undefined;
  /** `--base-url`, checked, when given. */
  baseUrl: string | undefined;
  output: OutputFormat;
  /** Whether `--output`/`--json` was given explicitly (or implied by `--jq`). */
  outputExplicit: boolean;
  /** `--fields` or `--json FIELDS`: the Pet fields printed, in order; undefined for all. */
  fields: readonly PetField[] | undefined;
  /** `--jq EXPR`: the jq expression the JSON output goes through (compiled before a write sends anything). */
  jq: string | undefined;
  /** The whole command's deadline in ms (`--timeout SECONDS`, default 30 s). */
  timeoutMs: number;
  /** How many times one request may be sent again, as the retry policy allows (`--retries`, default 2). */
  retries: number;
  verbose: boolean;
  /** What asked to keep off deprecated operations: the flag, the variable, or nothing. */
  failOnDeprecated: '--fail-on-deprecated' | 'PETSTORE_FAIL_ON_DEPRECATED' | undefined;
  noColor: boolean;
  /**
   * `--yes`: a confirmation is answered yes in advance, so a write to an environment with
   * `confirmWrites` is sent without a question, also where none can be asked
   * (cli-contract.md "Global flags"; the rule is `writeConsent`'s, confirm-writes.ts).
   */
  yes: boolean;
  /**
   * `--quiet`: warnings and notes are dropped; errors, accounts and the environment named
   * for a write are not (cli-contract.md "Global flags").
   */
  quiet: boolean;
}

/**
 * Turns the parsed flags (and `PETSTORE_FAIL_ON_DEPRECATED`) into GlobalOptions.
 * @throws UsageError when `--json` and `--output` ask for two different formats, when
 * `--json FIELDS` and `--fields` both name fields, and for `--jq` with a format that is
 * not JSON (cli-contract.md "Output").
 */
export function toGlobalOptions(flags: GlobalFlags, env: EnvVars): GlobalOptions {
  const json = flags.json === true || flags.jsonFields !== undefined;
  if (json && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(
      `--json and --output ${flags.output} ask for two different formats`,
      `Use one of them: --json (the same as --output json) or --output ${flags.output}.`,
    );
  }
  if (flags.jsonFields !== undefined && flags.fields !== undefined) {
    throw new UsageError(
      '--json FIELDS and --fields both name the fields to print',
      `Use one of them: --json ${flags.jsonFields.join(',')} is the same as --output json --fields ${flags.jsonFields.join(',')}.`,
    );
  }
  let output = json ? 'json' : flags.output;
  if (flags.jq !== undefined) {
    if (output !== undefined && output !== 'json' && output !== 'ndjson') {
      throw new UsageError(
        `--jq filters JSON, and --output ${output} is not JSON`,
        'Leave out --output (--jq prints JSON values, strings as plain text), or use --output ndjson to run the filter once per record.',
      );
    }
    output ??= 'json';
  }
  return {
    env: flags.env,
    baseUrl: flags.baseUrl,
    output: output ?? 'table',
    outputExplicit: output !== undefined,
    fields: flags.jsonFields ?? flags.fields,
    jq: flags.jq,
    timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_SECONDS * 1000,
    retries: flags.retries ?? DEFAULT_RETRIES,
    verbose: flags.verbose === true,
    failOnDeprecated:
      flags.failOnDeprecated === true
        ? '--fail-on-deprecated'
        : env.get('PETSTORE_FAIL_ON_DEPRECATED') === true
          ? 'PETSTORE_FAIL_ON_DEPRECATED'
          : undefined,
    noColor: !flags.color,
    yes: flags.yes === true,
    quiet: flags.quiet === true,
  };
}

/**
 * The flags given that apply only to commands printing pet records (`--fields`,
 * `--json FIELDS`, `--jq`, `--output csv`), as the user wrote them; empty when none.
 */
export function recordOnlyFlags(flags: GlobalFlags): RecordFlag[] {
  const given: Record<RecordFlag, boolean> = {
    '--fields': flags.fields !== undefined,
    '--json FIELDS': flags.jsonFields !== undefined,
    '--jq': flags.jq !== undefined,
    '--output csv': flags.output === 'csv',
  };
  return RECORD_FLAGS.filter((flag) => given[flag]);
}

/** What argv says before commander reads it (`prescan`). */
export interface Prescan {
  /**
   * argv as commander is to read it: gh's `--json FIELDS` (and `--json=FIELDS`) as the hidden
   * `--json-fields FIELDS`. The word after `--json` is a field list only when every
   * comma-separated item is a Pet field, so `petstore --json pets list` and
   * `pets get --json 5` keep their meaning; words after `--` and the values of flags that
   * take one are left alone.
   */
  argv: string[];
  /** The UsageError of the first `--json=LIST` naming something not a field, to be thrown once it can be said. */
  refused: UsageError | undefined;
  /**
   * `--no-color` is given: Io, and with it colour, is made before commander parses
   * (cli-contract.md "Output": `--no-color`).
   */
  noColor: boolean;
  /**
   * `--no-pager` is given: no pager starts, for a table or for help, whose text commander
   * writes before the command's own flags are read (cli-contract.md "Output").
   */
  noPager: boolean;
  /**
   * The output is JSON, as far as argv says (for the messages of a run whose flags do not
   * parse): `--output json|ndjson`, `--json` (with or without fields), or `--jq` (which
   * implies json unless `--output` says otherwise).
   */
  json: boolean;
  /** The word after `--json`, if any: the field list it was meant to be when commander refuses the word. */
  afterJson: string | undefined;
}

/**
 * Reads argv (without `node` and the script) once, before commander: what the run needs
 * before its flags are parsed (`noColor`, `json`, `afterJson`) and the argv commander parses.
 * `takesValue` says which flags take a value (`valueFlags`); without it no word is one (for a
 * caller that reads `noColor` alone, which does not depend on it). A flag whose value is
 * optional (`attached`) is written `--flag=` when given bare.
 */
export function prescan(argv: readonly string[], takesValue: (flag: string) => TakesValue = () => false): Prescan {
  const out: string[] = [];
  let refused: UsageError | undefined;
  const early: EarlyWords = {
    noColor: false,
    noPager: false,
    afterJson: undefined,
    sawJson: false,
    json: false,
    jq: false,
    other: false,
  };
  let options = true; // before the first `--`, whatever it is
  let operands = false; // after a `--` that is no flag's value
  let value = false; // the word is the value of the flag before it
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    const next = argv[i + 1];
    options &&= word !== '--';
    if (options) readEarlyWord(word, next, early);
    if (operands || value) {
      out.push(word);
      value = false;
    } else if (word.startsWith('--json=')) {
      const fields = jsonFields(word.slice('--json='.length));
      if (fields instanceof UsageError) refused ??= fields;
      else out.push('--json-fields', fields);
    } else if (word === '--json' && next !== undefined && isFieldList(next)) {
      out.push('--json-fields');
      value = true;
    } else {
      // A flag's value is never read as a flag (`--name --json`); `--flag=value` is one word.
      const takes = word.startsWith('-') && !word.includes('=') && takesValue(word);
      // A flag whose value is optional takes one only after `=` (`--dry-run=curl`), so the
      // word after a bare one stays what it is (`api --dry-run pets`): commander reads
      // `--flag=` as the flag with no value.
      out.push(takes === 'attached' ? `${word}=` : word);
      operands = word === '--';
      value = takes === true;
    }
  }
  const json = early.json || (early.jq && !early.other);
  return { argv: out, refused, noColor: early.noColor, noPager: early.noPager, json, afterJson: early.afterJson };
}

/**
 * What the words before the first `--` say, each read whether or not it is a flag's value
 * (as the run always read them): `--no-color`, `--no-pager`, the word after the first `--json`, and about
 * the output format, whether JSON is asked for (`--json`, `--output json`, `-ondjson`, ...),
 * another format is named, or `--jq` is given.
 */
interface EarlyWords {
  noColor: boolean;
  noPager: boolean;
  afterJson: string | undefined;
  sawJson: boolean;
  json: boolean;
  jq: boolean;
  other: boolean;
}

/** Notes in `seen` what `word` (followed by `next`) says. */
function readEarlyWord(word: string, next: string | undefined, seen: EarlyWords): void {
  seen.noColor ||= word === '--no-color';
  seen.noPager ||= word === '--no-pager';
  if (word === '--json' && !seen.sawJson) {
    seen.sawJson = true;
    seen.afterJson = next === '--' ? undefined : next;
  }
  const output = word === '--output' || word === '-o';
  seen.json ||=
    word === '--json' ||
    word.startsWith('--json=') ||
    ['--output=json', '--output=ndjson', '-ojson', '-ondjson'].includes(word) ||
    (output && (next === 'json' || next === 'ndjson'));
  seen.other ||= output || word.startsWith('--output=') || /^-o./.test(word);
  seen.jq ||= word === '--jq' || word.startsWith('--jq=');
}

/** `--json=LIST`'s list, checked and written as `--json-fields` takes it, or why it is refused. */
function jsonFields(list: string): string | UsageError {
  try {
    return parseFields(list, '--json').join(',');
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
}

/**
 * Whether a flag takes a value: `true` (the next word, or after `=`), `attached` (optional,
 * and then only after `=`: `--dry-run[=curl]`), or `false`.
 */
export type TakesValue = boolean | 'attached';

/** Every flag of the tree under `root` that takes a value (`--name`, `-L`, ...): the table `prescan` reads. */
export function valueFlags(root: CommandUnknownOpts): (flag: string) => TakesValue {
  const names = new Map<string, TakesValue>();
  for (const option of commandTree(root).flatMap((cmd) => cmd.options)) {
    if (!option.required && !option.optional) continue;
    const takes: TakesValue = option.required ? true : 'attached';
    if (option.long !== undefined) names.set(option.long, takes);
    if (option.short !== undefined) names.set(option.short, takes);
  }
  return (flag) => names.get(flag) ?? false;
}

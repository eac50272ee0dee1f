/**
 * The global flags (cli-contract.md "Global flags"), declared on the root command and
 * accepted before or after the command words, each parsed by commander through the input
 * rules' own parsers, and `toGlobalOptions`, which turns them into the typed options every
 * command's Context carries.
 */
import { Option, type Command } from '@commander-js/extra-typings';
import { PET_FIELDS, type PetField } from './client/constants.js';
import { RECORD_FLAGS, type RecordFlag } from './command-traits.js';
import type { EnvVars } from './config/env.js';
import { ENVIRONMENTS, type EnvName } from './config/environments.js';
import { checkBaseUrl, parseEnvName } from './config/settings.js';
import { UsageError } from './errors.js';
import {
  OUTPUT_FORMATS,
  isFieldList,
  parseFields,
  parseJqExpression,
  parseOutput,
  parseRetries,
  parseTimeoutSeconds,
  type OutputFormat,
} from './flag-values.js';

/** Default `--timeout`, in seconds (cli-contract.md "Network behaviour"). */
const DEFAULT_TIMEOUT_SECONDS = 30;
/** Default `--retries`. */
const DEFAULT_RETRIES = 2;

/** Declares the global flags on `program` (the root command). */
export function addGlobalOptions(program: Command) {
  return (
    program
      .addOption(
        new Option('-e, --env <name>', 'environment (env PETSTORE_ENV; default: production)')
          .choices(ENVIRONMENTS)
          .argParser((v) => parseEnvName(v, '--env')),
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
      // What `--json FIELDS` becomes (expandJsonFields), so that its errors can name `--json`.
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
  );
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
  /** `--jq EXPR`: the jq expression the JSON output goes through (compiled before anything is sent). */
  jq: string | undefined;
  /** The whole command's deadline in ms (`--timeout SECONDS`, default 30 s). */
  timeoutMs: number;
  /** How many times one request may be sent again, as the retry policy allows (`--retries`, default 2). */
  retries: number;
  verbose: boolean;
  /** What asked to keep off deprecated operations: the flag, the variable, or nothing. */
  failOnDeprecated: '--fail-on-deprecated' | 'PETSTORE_FAIL_ON_DEPRECATED' | undefined;
  noColor: boolean;
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

/**
 * Rewrites gh's `--json FIELDS` (and `--json=FIELDS`) as the hidden `--json-fields FIELDS`
 * before commander parses argv. The word after `--json` is a field list only when every
 * comma-separated item is a Pet field, so `petstore --json pets list` and
 * `pets get --json 5` keep their meaning. Words after `--` and the values of flags that
 * take one (`takesValue`) are left alone.
 * @throws UsageError for `--json=LIST` naming something that is not a field.
 */
export function expandJsonFields(argv: readonly string[], takesValue: (flag: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') return [...out, ...argv.slice(i)];
    if (a.startsWith('--json=')) {
      out.push('--json-fields', parseFields(a.slice('--json='.length), '--json').join(','));
    } else if (a === '--json' && argv[i + 1] !== undefined && isFieldList(argv[i + 1] ?? '')) {
      out.push('--json-fields', argv[++i] ?? '');
    } else {
      out.push(a);
      // A flag's value is never read as a flag (`--name --json`); `--flag=value` is one word.
      if (a.startsWith('-') && !a.includes('=') && takesValue(a) && i + 1 < argv.length) out.push(argv[++i] ?? '');
    }
  }
  return out;
}

/**
 * The global flags (cli-contract.md "Global flags"), declared on the root command and
 * accepted before or after the command words, each parsed by commander through the input
 * rules' own parsers, and `toGlobalOptions`, which turns them into the typed options every
 * command's Context carries.
 */
import { Option, type Command } from '@commander-js/extra-typings';
import { ENVIRONMENTS, checkBaseUrl, parseEnvName, type EnvName } from './config/settings.js';
import { UsageError } from './errors.js';
import { OUTPUT_FORMATS, parseOutput, parseRetries, parseTimeoutSeconds, type OutputFormat } from './input.js';

/** Default `--timeout`, in seconds (cli-contract.md "Network behaviour"). */
const DEFAULT_TIMEOUT_SECONDS = 30;
/** Default `--retries`. */
const DEFAULT_RETRIES = 2;

/** Declares the global flags on `program` (the root command). */
export function addGlobalOptions(program: Command) {
  return program
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
    .addOption(new Option('--json', 'same as --output json'))
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
    .addOption(new Option('--verbose', 'print requests, responses and their headers on stderr (credentials redacted)'))
    .addOption(
      new Option(
        '--fail-on-deprecated',
        'never call deprecated operations: pets get uses listPets (env PETSTORE_FAIL_ON_DEPRECATED=1)',
      ),
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
  /** Whether `--output`/`--json` was given explicitly. */
  outputExplicit: boolean;
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
 * @throws UsageError when `--json` and `--output` ask for two different formats.
 */
export function toGlobalOptions(flags: GlobalFlags, env: NodeJS.ProcessEnv): GlobalOptions {
  if (flags.json === true && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(
      `--json and --output ${flags.output} ask for two different formats`,
      `Use one of them: --json (the same as --output json) or --output ${flags.output}.`,
    );
  }
  const output = flags.json === true ? 'json' : flags.output;
  const fromEnv = env.PETSTORE_FAIL_ON_DEPRECATED;
  return {
    env: flags.env,
    baseUrl: flags.baseUrl,
    output: output ?? 'table',
    outputExplicit: output !== undefined,
    timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_SECONDS * 1000,
    retries: flags.retries ?? DEFAULT_RETRIES,
    verbose: flags.verbose === true,
    failOnDeprecated:
      flags.failOnDeprecated === true
        ? '--fail-on-deprecated'
        : fromEnv !== undefined && fromEnv !== '' && fromEnv !== '0' && fromEnv !== 'false'
          ? 'PETSTORE_FAIL_ON_DEPRECATED'
          : undefined,
    noColor: !flags.color,
  };
}

/**
 * The environments of cli-contract.md "Environments": the two remote APIs every install
 * knows, the embedded sandbox, and any name the user configures (`staging-eu`). A leaf
 * module, so the variable registry and the settings can name them without importing the
 * resolver.
 */
import { UsageError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';

/** The environments every install knows, configured or not. */
export const BUILTIN_ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;

/** The remote environments every install knows; their settings sit at the config file's top level. */
export const BUILTIN_REMOTES = ['production', 'staging'] as const;

/** The embedded sandbox's name. */
export const SANDBOX = 'sandbox';

/**
 * An environment name: one of `BUILTIN_ENVIRONMENTS` or a configured name that passed
 * `checkEnvName`.
 */
export type EnvName = string;

/** An environment other than the sandbox: production, staging or a configured name. */
export type RemoteEnvName = string;

/** The longest configurable name, in characters (cli-contract.md "Environments"). */
const ENV_NAME_MAX = 32;

/** The shape of a configurable name (cli-contract.md "Environments"). */
const ENV_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Names no user environment may take: the config file's own top-level keys
 * (`config set auth.baseUrl` must not reach the stored keys) and petstore's commands
 * (`petstore env use pets` would read as a command). test/unit/environments.test.ts checks
 * that every top-level command of the tree is here.
 */
export const RESERVED_ENV_NAMES: readonly string[] = [
  'environment',
  'environments',
  'auth',
  'api',
  'completion',
  'config',
  'env',
  'help',
  'mcp',
  'pets',
  'sandbox',
  'version',
];

/** True for production, staging and sandbox. */
export function isBuiltinEnvironment(name: string): boolean {
  return (BUILTIN_ENVIRONMENTS as readonly string[]).includes(name);
}

/**
 * Checks the shape of an environment name as typed (`--env`, `PETSTORE_ENV`, `env use`):
 * lower-case letters, digits and `-`, starting with a letter, at most `ENV_NAME_MAX`
 * characters. Whether it is configured is the resolver's question.
 * @throws UsageError naming `what` and the rule.
 */
export function checkEnvName(raw: string, what: string): EnvName {
  if (raw.length > ENV_NAME_MAX || !ENV_NAME.test(raw)) {
    throw new UsageError(
      `invalid ${what} ${quote(raw)}: an environment name is lower-case letters, digits and -, starting with a letter, at most ${ENV_NAME_MAX} characters`,
    );
  }
  return raw;
}

/**
 * Checks a name for a new environment (`config set NAME.baseUrl` creates one): a valid
 * shape, not reserved, not the sandbox (which has no settings).
 * @throws UsageError naming `what`.
 */
export function checkConfigurableName(raw: string, what: string): RemoteEnvName {
  checkEnvName(raw, what);
  if (raw === SANDBOX) {
    throw new UsageError(
      `invalid ${what}: the sandbox has no settings (it runs inside petstore, with its own URL and key)`,
    );
  }
  if (RESERVED_ENV_NAMES.includes(raw)) {
    throw new UsageError(
      `invalid ${what}: ${quote(raw)} is reserved (a config key or a petstore command) and cannot name an environment`,
    );
  }
  return raw;
}

/** True when `name` could name an environment a user configures (see `checkConfigurableName`). */
export function isConfigurableName(name: string): boolean {
  try {
    checkConfigurableName(name, 'environment');
    return true;
  } catch {
    return false;
  }
}

/**
 * The settings `petstore config get|set|unset` know (cli-contract.md "Commands":
 * `environment`, `<env>.baseUrl`, `<env>.apiKeyCommand`, for production, staging and any
 * environment the user adds; "Environments": `<env>.confirmWrites`; "Bulk create":
 * `<env>.idempotencyKeys`), with their checks.
 * API keys are deliberately not settings: they are stored by `auth login` only (read from a
 * prompt or stdin, never from argv, where every local user could see them), or printed by
 * an `apiKeyCommand` each run and never stored.
 */
import { UsageError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';
import { suggestCommand } from '../base/suggest.js';
import { shellSyntaxWords, splitCommandLine } from './command-line.js';
import {
  BUILTIN_ENVIRONMENTS,
  checkConfigurableName,
  checkEnvName,
  isConfigurableName,
  type RemoteEnvName,
} from './environments.js';
import { checkBaseUrl, lacksVersionSegment } from './settings.js';

/** One known setting. */
export interface SettingDef {
  key: string;
  description: string;
  /** The value used when the file has none (`config get` prints it, as gh does). */
  default?: string;
  /** The values it takes, when they are a fixed list (completed after `config set KEY`). */
  choices?: readonly string[];
  /**
   * Checks and normalises a value for `config set`; `warn` receives advice that does not
   * refuse the value.
   * @throws UsageError naming the key, the value and what is allowed.
   */
  parse(raw: string, warn: (message: string) => void): string;
  /** How the file holds the value: `boolean` settings are JSON booleans (`"confirmWrites": true`). */
  type?: 'boolean';
}

function baseUrlSetting(env: RemoteEnvName): SettingDef {
  const key = `${env}.baseUrl`;
  return {
    key,
    description: `base URL of the ${env} API, ending in /v1 (https, or http on a loopback host)`,
    parse: (raw, warn) => {
      const value = checkBaseUrl(raw, key);
      if (lacksVersionSegment(value)) {
        warn(
          `${key} ${quote(value)} does not end in the API's version segment /v1 (e.g. ${value}/v1); stored as given`,
        );
      }
      return value;
    },
  };
}

function keyCommandSetting(env: RemoteEnvName): SettingDef {
  const key = `${env}.apiKeyCommand`;
  return {
    key,
    description: `command that prints the ${env} API key, run without a shell (e.g. op read op://vault/item/key)`,
    parse: (raw, warn) => {
      const value = raw.trim();
      const words = shellSyntaxWords(splitCommandLine(value, key));
      if (words.length > 0) {
        warn(
          `${key} is run without a shell, so ${words.map((w) => quote(w)).join(', ')} reach the program as plain arguments; for shell syntax, store \`sh -c '...'\``,
        );
      }
      return value;
    },
  };
}

/** The values of a yes-or-no setting, as `config set` takes them and `config get` prints them. */
const BOOLEAN_VALUES = ['true', 'false'] as const;

/** A yes-or-no setting of `env`, off by default: `true` or `false`, any case, spaces trimmed. */
function booleanSetting(key: string, description: string): SettingDef {
  return {
    key,
    description,
    default: 'false',
    choices: BOOLEAN_VALUES,
    type: 'boolean',
    parse: (raw) => {
      const value = BOOLEAN_VALUES.find((v) => v === raw.trim().toLowerCase());
      if (value !== undefined) return value;
      throw new UsageError(`invalid ${key} ${quote(raw)}: must be true or false`);
    },
  };
}

function confirmWritesSetting(env: RemoteEnvName): SettingDef {
  return booleanSetting(
    `${env}.confirmWrites`,
    `true: every write to ${env} asks on a terminal, and is refused off one unless --yes`,
  );
}

/**
 * `NAME.idempotencyKeys`: the environment's server honours the `Idempotency-Key` header
 * (draft-ietf-httpapi-idempotency-key-header), so `pets create --from-file --resend-unknown`
 * may send a record whose outcome is unknown again with its key.
 */
function idempotencyKeysSetting(env: RemoteEnvName): SettingDef {
  return booleanSetting(
    `${env}.idempotencyKeys`,
    `true: the ${env} server honours Idempotency-Key (a repeated key creates nothing), so --resend-unknown may send unknown records again`,
  );
}

/** Every known setting, in the order `config list` shows them. */
export const SETTINGS: readonly SettingDef[] = [
  {
    key: 'environment',
    description: `environment used when neither --env nor PETSTORE_ENV is given: ${BUILTIN_ENVIRONMENTS.join(', ')} or a configured name`,
    default: 'production',
    choices: BUILTIN_ENVIRONMENTS,
    // Whether the name is configured is checked against the file, under its lock (`config set`).
    parse: (raw) => checkEnvName(raw, 'environment'),
  },
  baseUrlSetting('production'),
  baseUrlSetting('staging'),
  keyCommandSetting('production'),
  keyCommandSetting('staging'),
  confirmWritesSetting('production'),
  confirmWritesSetting('staging'),
  idempotencyKeysSetting('production'),
  idempotencyKeysSetting('staging'),
];

/** The settings every environment may have, by the last word of their key. */
const PER_ENVIRONMENT: Record<string, (env: RemoteEnvName) => SettingDef> = {
  baseUrl: baseUrlSetting,
  apiKeyCommand: keyCommandSetting,
  confirmWrites: confirmWritesSetting,
  idempotencyKeys: idempotencyKeysSetting,
};

/**
 * The setting `NAME.field` of an environment the user adds (`staging-eu.baseUrl`), or
 * undefined when `key` is not of that form.
 * @throws UsageError when NAME cannot name an environment (reserved, the sandbox, or of
 * another shape).
 */
function environmentSetting(key: string): SettingDef | undefined {
  const match = /^([^.]+)\.([^.]+)$/.exec(key);
  const make = match?.[2] === undefined ? undefined : PER_ENVIRONMENT[match[2]];
  if (match?.[1] === undefined || make === undefined) return undefined;
  return make(checkConfigurableName(match[1], `config key ${quote(key)}`));
}

/** The names of the known settings of production and staging (`config get|set|unset` complete these). */
export const SETTING_KEYS: readonly string[] = SETTINGS.map((s) => s.key);

/** The values of the settings that take a fixed list, by key (`environment`: the environments). */
export function settingChoices(): Record<string, readonly string[]> {
  return Object.fromEntries(SETTINGS.flatMap((s) => (s.choices === undefined ? [] : [[s.key, s.choices]])));
}

/**
 * The names of a JavaScript object's internals: as a part of a key they would reach the
 * object's prototype instead of a setting (`production.__proto__` is no field, and
 * `constructor.baseUrl` no environment the file could keep).
 */
const OBJECT_INTERNALS: readonly string[] = ['constructor', 'prototype', '__proto__'];

/**
 * Refuses a key with a part named like an object's internal (cli-contract.md "Commands",
 * `config`: refused as any part of a key).
 * @throws UsageError (exit 2) naming the part.
 */
function checkKeyParts(key: string): void {
  const part = key.split('.').find((p) => OBJECT_INTERNALS.includes(p));
  if (part === undefined) return;
  throw new UsageError(
    `invalid config key ${quote(key)}: ${quote(part)} cannot be part of a key (constructor, prototype and __proto__ are a JavaScript object's internals, not settings)`,
    'Run `petstore config list` to see every setting.',
  );
}

/** Names that look like an attempt to handle an API key through `config`. */
const KEY_LIKE = /(?:^|\.)(?:api[-_]?key|key|keys|token|secret|auth)(?:\.|$)/i;

/**
 * Finds a known setting by its exact name.
 * @throws UsageError (exit 2) for a part named constructor, prototype or __proto__, an API-key-like name (pointing at `auth login`) or an
 * unknown key (listing the known ones).
 */
export function findSetting(key: string, verb: 'get' | 'set' | 'unset'): SettingDef {
  checkKeyParts(key);
  const def = SETTINGS.find((s) => s.key === key) ?? environmentSetting(key);
  if (def !== undefined) return def;
  if (KEY_LIKE.test(key)) {
    // The environment is named even for production: a PETSTORE_ENV in the shell must not
    // send the pasted command elsewhere.
    const first = key.split('.')[0] ?? '';
    const reach = { env: isConfigurableName(first) ? first : 'production', envFlag: true };
    throw new UsageError(
      `API keys are not settings: \`petstore config ${verb}\` cannot ${verb === 'get' ? 'show' : 'change'} ${quote(key)}`,
      verb === 'get'
        ? 'Show the stored keys, masked, with `petstore auth status`.'
        : `Store a key with \`${suggestCommand('auth login', reach)}\` (prompt or --with-token), or set ${reach.env}.apiKeyCommand to a command that prints it; remove a stored key with \`${suggestCommand('auth logout', reach)}\`.`,
    );
  }
  throw new UsageError(
    `unknown config key ${quote(key)}: the known keys are environment and, for each environment NAME, ${Object.keys(
      PER_ENVIRONMENT,
    )
      .map((field) => `NAME.${field}`)
      .join(', ')}`,
    'Run `petstore config list` to see every setting and where it comes from.',
  );
}

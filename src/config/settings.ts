/**
 * Resolves which environment, base URL and API key a command uses, and where each came
 * from (cli-contract.md "Environments"):
 *
 * - environment: `--env` > `PETSTORE_ENV` > config `environment` > `production`;
 * - base URL: `--base-url` > `PETSTORE_BASE_URL` > config `<env>.baseUrl`;
 * - API key: `PETSTORE_API_KEY` > the key stored for that environment.
 *
 * The config store is loaded only when a value is not already decided by a flag or the
 * environment, so scripts that pass everything in the environment never read the file.
 */
import { AuthError, ConfigError, UsageError } from '../errors.js';
import { quote } from '../input.js';
import { isSendableKey } from '../mask.js';

/** The environments of the contract. */
export const ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;
/** An environment name. */
export type EnvName = (typeof ENVIRONMENTS)[number];

/** Where a setting came from. */
export type Source = 'flag' | 'env' | 'file' | 'default' | 'sandbox';

/** A value with its source. */
export interface Resolved<T> {
  value: T;
  source: Source;
  /** The flag, variable or config key that supplied it, e.g. `PETSTORE_ENV`. */
  from: string;
}

/** What the config store offers to resolution (implemented in `config/store.ts`). */
export interface ConfigReader {
  /** The config file's path. */
  readonly path: string;
  /** A setting by dotted key (`environment`, `production.baseUrl`, ...), or undefined. */
  getSetting(key: string): string | undefined;
  /** The API key stored for `env`, with the base URL it was stored for. */
  getKey(env: EnvName): { key: string; baseUrl: string | undefined } | undefined;
}

/** Loads the config store on demand (and at most once). */
export type LoadConfig = () => Promise<ConfigReader>;

/** The connection settings of one run. */
export interface Connection {
  environment: Resolved<EnvName>;
  baseUrl: Resolved<string>;
  apiKey: Resolved<string>;
}

/**
 * Parses an environment name.
 * @throws UsageError naming `what` when it is not one of production, staging, sandbox.
 */
export function parseEnvName(raw: string, what: string): EnvName {
  if ((ENVIRONMENTS as readonly string[]).includes(raw)) return raw as EnvName;
  throw new UsageError(`invalid ${what} ${quote(raw)}: must be one of ${ENVIRONMENTS.join(', ')}`);
}

/**
 * Picks the environment: `--env` > `PETSTORE_ENV` > config `environment` > production.
 * With `PETSTORE_API_KEY` and `PETSTORE_BASE_URL` both set, an unreadable config file
 * yields the default instead of an error.
 * @throws UsageError for an unknown name from a flag or variable, ConfigError for one in the
 * file or for an unreadable file.
 */
export async function resolveEnvironment(
  flagEnv: string | undefined,
  env: NodeJS.ProcessEnv,
  loadConfig: LoadConfig,
): Promise<Resolved<EnvName>> {
  if (flagEnv !== undefined) return { value: parseEnvName(flagEnv, '--env'), source: 'flag', from: '--env' };
  if (env.PETSTORE_ENV !== undefined && env.PETSTORE_ENV !== '') {
    return { value: parseEnvName(env.PETSTORE_ENV, 'PETSTORE_ENV'), source: 'env', from: 'PETSTORE_ENV' };
  }
  let config: ConfigReader;
  try {
    config = await loadConfig();
  } catch (err) {
    // cli-contract.md "The config file": a run whose key and base URL come from the
    // environment works even when the file is unreadable; such a run needs nothing from it
    // but this default, and the broken file is left as it is.
    if (err instanceof ConfigError && isSet(env.PETSTORE_API_KEY) && isSet(env.PETSTORE_BASE_URL)) {
      return { value: 'production', source: 'default', from: 'default' };
    }
    throw err;
  }
  const stored = config.getSetting('environment');
  if (stored !== undefined) {
    try {
      return { value: parseEnvName(stored, 'environment'), source: 'file', from: 'environment' };
    } catch {
      throw new ConfigError(`${config.path}: environment ${quote(stored)} is not one of ${ENVIRONMENTS.join(', ')}`);
    }
  }
  return { value: 'production', source: 'default', from: 'default' };
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/** True for hosts that never leave this machine (RFC 6761 `localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * Checks a base URL: it parses, is `https:` (or `http:` on a loopback host, since a bearer
 * key must not cross a network in clear), and has no query or fragment. Returns it without
 * a trailing slash. Whether it ends in `/v1` is checked by `lacksVersionSegment`.
 * @throws UsageError naming `what` otherwise.
 */
export function checkBaseUrl(raw: string, what: string): string {
  // A password in the URL must not be echoed back in the message that refuses it.
  const shown = quote(raw.replace(/(\/\/[^/@:]*):[^/@]*@/, '$1:***@'));
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid ${what} ${shown}: not a URL (expected e.g. https://api.example.com/v1)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid ${what} ${shown}: must be an https:// URL (or http:// to a loopback host)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `invalid ${what} ${shown}: plain http:// is allowed only for loopback hosts; the API key must not cross a network in clear`,
      'Use https://.',
    );
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new UsageError(`invalid ${what} ${shown}: must not carry credentials, a query or a fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

/** True when a base URL's path does not end with the `v1` version segment (spec §9). */
export function lacksVersionSegment(baseUrl: string): boolean {
  return !/\/v1\/?$/.test(new URL(baseUrl).pathname);
}

/**
 * Picks base URL and key for a remote environment (production or staging).
 * A stored key is used only with the base URL it was stored for, so a production key
 * never reaches staging or another host (only `PETSTORE_API_KEY` can send a key elsewhere).
 * @throws UsageError for a bad URL, ConfigError when no base URL is configured,
 * AuthError (exit 4) when there is no usable key.
 */
export async function resolveRemote(
  environment: Resolved<EnvName>,
  flagBaseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  loadConfig: LoadConfig,
): Promise<Connection> {
  const name = environment.value;
  const baseUrl = await resolveBaseUrl(name, flagBaseUrl, env, loadConfig);
  return { environment, baseUrl, apiKey: await resolveKey(name, baseUrl.value, env, loadConfig) };
}

/**
 * Picks the base URL of a remote environment: `--base-url` > `PETSTORE_BASE_URL` >
 * config `<env>.baseUrl` (cli-contract.md "Environments").
 * @throws UsageError for a bad URL from a flag or variable, ConfigError for a bad one in
 * the file or when none is configured.
 */
export async function resolveBaseUrl(
  name: EnvName,
  flagBaseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  loadConfig: LoadConfig,
): Promise<Resolved<string>> {
  let baseUrl: Resolved<string>;
  if (flagBaseUrl !== undefined) {
    baseUrl = { value: checkBaseUrl(flagBaseUrl, '--base-url'), source: 'flag', from: '--base-url' };
  } else if (env.PETSTORE_BASE_URL !== undefined && env.PETSTORE_BASE_URL !== '') {
    baseUrl = {
      value: checkBaseUrl(env.PETSTORE_BASE_URL, 'PETSTORE_BASE_URL'),
      source: 'env',
      from: 'PETSTORE_BASE_URL',
    };
  } else {
    const config = await loadConfig();
    const stored = config.getSetting(`${name}.baseUrl`);
    if (stored === undefined) {
      throw new ConfigError(
        `no base URL for ${name}`,
        `Set one with \`petstore config set ${name}.baseUrl https://HOST/v1\`, or use --base-url / PETSTORE_BASE_URL.`,
      );
    }
    try {
      baseUrl = { value: checkBaseUrl(stored, `${name}.baseUrl`), source: 'file', from: `${name}.baseUrl` };
    } catch (err) {
      throw new ConfigError(`${config.path}: ${(err as Error).message}`);
    }
  }
  return baseUrl;
}

/**
 * Picks the API key for `name` talking to `baseUrl`: `PETSTORE_API_KEY` > the key stored
 * for that environment, and the stored key only if it was stored for this very base URL.
 * @throws AuthError (exit 4) when there is no usable key.
 */
/**
 * Refuses a key that cannot be sent (see `isSendableKey`), naming where it came from and
 * never printing any of it.
 * @throws ConfigError (exit 2); nothing is sent.
 */
export function checkSendableKey(key: string, from: string): string {
  if (!isSendableKey(key)) {
    throw new ConfigError(
      `the API key from ${from} contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was sent`,
      from === 'PETSTORE_API_KEY'
        ? 'Set PETSTORE_API_KEY to the key alone, without spaces or line breaks.'
        : 'Store the key again with `petstore auth login`.',
    );
  }
  return key;
}

export async function resolveKey(
  name: EnvName,
  baseUrl: string,
  env: NodeJS.ProcessEnv,
  loadConfig: LoadConfig,
): Promise<Resolved<string>> {
  if (env.PETSTORE_API_KEY !== undefined && env.PETSTORE_API_KEY !== '') {
    return {
      value: checkSendableKey(env.PETSTORE_API_KEY, 'PETSTORE_API_KEY'),
      source: 'env',
      from: 'PETSTORE_API_KEY',
    };
  }
  const config = await loadConfig();
  const stored = config.getKey(name);
  if (stored === undefined) {
    throw new AuthError(
      `no API key for ${name}`,
      `Log in with \`petstore${name === 'production' ? '' : ` --env ${name}`} auth login\`, or set PETSTORE_API_KEY.`,
    );
  }
  if (stored.baseUrl !== undefined && stored.baseUrl !== baseUrl) {
    throw new AuthError(
      `the ${name} key was stored for ${stored.baseUrl}, not ${baseUrl}; not sent`,
      `Log in again for this URL with \`petstore --env ${name} auth login\`, or set PETSTORE_API_KEY explicitly.`,
    );
  }
  return {
    value: checkSendableKey(stored.key, `the ${name} key in ${config.path}`),
    source: 'file',
    from: `${name} key`,
  };
}

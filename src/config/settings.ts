/**
 * The one resolver of environment, base URL and API key (cli-contract.md "Environments"),
 * used by every command that connects, by `auth status` and by `config list` alike:
 *
 * - environment: `--env` > `PETSTORE_ENV` > config `environment` > `production`;
 * - base URL: `--base-url` > `PETSTORE_BASE_URL` > config `<env>.baseUrl`;
 * - API key: `PETSTORE_API_KEY` > the key stored for that environment, and a stored key
 *   only for the base URL it was stored for.
 *
 * `--base-url`, `PETSTORE_BASE_URL` and `PETSTORE_API_KEY` apply to the selected
 * environment only. `resolveSettings` never throws for a missing or bad value: each value
 * comes back with its source, or with the error a command that needs it fails with
 * (`requireRemote` throws that error). The config file is read only when a value is not
 * already decided by a flag or variable, so scripts that pass everything in the environment
 * never read it, and a broken file does not stop them.
 */
import { AuthError, ConfigError, UsageError, type CliError } from '../errors.js';
import { quote } from '../input.js';
import { isSendableKey, maskUrl } from '../mask.js';
import { suggestCommand } from '../suggest.js';

/** The environments of the contract. */
export const ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;
/** An environment name. */
export type EnvName = (typeof ENVIRONMENTS)[number];

/** Environments that take a stored key and a configured base URL. */
const REMOTE_ENVIRONMENTS = ['production', 'staging'] as const;
/** A remote environment. */
export type RemoteEnvName = (typeof REMOTE_ENVIRONMENTS)[number];

/** True for `production` and `staging`. */
function isRemote(name: EnvName): name is RemoteEnvName {
  return name !== 'sandbox';
}

/** Where a setting came from. */
export type Source = 'flag' | 'env' | 'file' | 'default' | 'sandbox';

/** A value with its source. */
export interface Resolved<T> {
  ok: true;
  value: T;
  source: Source;
  /** The flag, variable or config key that supplied it, e.g. `PETSTORE_ENV`. */
  from: string;
}

/** A value that could not be resolved, with the error a command that needs it fails with. */
export interface Unresolved {
  ok: false;
  error: CliError;
  /** True when nothing supplies the value (as opposed to a value that is invalid or unreadable). */
  missing: boolean;
}

/** A resolved value or the reason there is none. */
export type Outcome<T> = Resolved<T> | Unresolved;

/** A key stored by `auth login` and the base URL it was stored for. */
export interface StoredKey {
  key: string;
  baseUrl: string;
}

/** What the config store offers to resolution (implemented in `config/store.ts`). */
export interface ConfigReader {
  /** The config file's path. */
  readonly path: string;
  /** A setting by dotted key (`environment`, `production.baseUrl`, ...), or undefined. */
  getSetting(key: string): string | undefined;
  /** The API key stored for `name`, with the base URL it was stored for. */
  getKey(name: RemoteEnvName): StoredKey | undefined;
}

/**
 * Loads the config store on demand (and at most once).
 * @throws ConfigError (only) when the file cannot be read or is malformed.
 */
export type LoadConfig = () => Promise<ConfigReader>;

/** The key a remote environment would send. */
export interface KeyView {
  /** Where it comes from; `none` when there is no key. */
  source: 'env' | 'file' | 'none';
  /** The key itself; never print it unmasked. */
  value: string | undefined;
  /** The stored key, when the file was read (also when `PETSTORE_API_KEY` wins over it). */
  stored: StoredKey | undefined;
  /** Why a command would not send it (no key, bound to another URL, unsendable, file unreadable). */
  error: CliError | undefined;
}

/** One remote environment as a command would see it. */
export interface RemoteSettings {
  name: RemoteEnvName;
  selected: boolean;
  baseUrl: Outcome<string>;
  key: KeyView;
}

/** The outcome of resolution. */
export interface Settings {
  environment: Outcome<EnvName>;
  /** The remote environments resolved: both (scope `all`) or the selected one (scope `selected`). */
  remotes: RemoteSettings[];
  /** The config file's path, when the file was looked at. */
  configPath: string | undefined;
}

/** The inputs of resolution. */
export interface ResolveInput {
  /** `--env`, already checked by its parser. */
  envFlag: EnvName | undefined;
  /** `--base-url`, already checked by `checkBaseUrl`. */
  baseUrlFlag: string | undefined;
  env: NodeJS.ProcessEnv;
  loadConfig: LoadConfig;
}

/** The connection settings of one remote run. */
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
  const found = ENVIRONMENTS.find((e) => e === raw);
  if (found !== undefined) return found;
  throw new UsageError(`invalid ${what} ${quote(raw)}: must be one of ${ENVIRONMENTS.join(', ')}`);
}

/** True for hosts that never leave this machine (RFC 6761 `localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * Checks a base URL: it parses, is `https:` (or `http:` on a loopback host, since a bearer
 * key must not cross a network in clear), and has no credentials, query or fragment.
 * Returns it without a trailing slash. Whether it ends in `/v1` is `lacksVersionSegment`'s.
 * @throws UsageError naming `what` otherwise.
 */
export function checkBaseUrl(raw: string, what: string): string {
  // A password in the URL must not be echoed back in the message that refuses it.
  const shown = quote(maskUrl(raw));
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
 * `petstore auth login` for environment `name`: with `--env NAME` when it is not
 * production or `explicit` says the flag is needed (the shell may select another one), and
 * with `--base-url URL` when the key must be bound to a URL given by that flag.
 */
export function loginCommand(name: RemoteEnvName, opts: { explicit?: boolean; baseUrlFlag?: string } = {}): string {
  return suggestCommand('auth login', { env: name, envFlag: opts.explicit, baseUrlFlag: opts.baseUrlFlag });
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

const resolved = <T>(value: T, source: Source, from: string): Resolved<T> => ({ ok: true, value, source, from });
const unresolved = (error: CliError, missing = false): Unresolved => ({ ok: false, error, missing });

/** Runs a check that throws a CliError, as an Outcome. */
function attempt<T>(fn: () => T, source: Source, from: string): Outcome<T> {
  try {
    return resolved(fn(), source, from);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) return unresolved(err);
    throw err;
  }
}

/**
 * Resolves the settings of one run. Scope `selected` resolves the environment and, when it
 * is remote, its base URL and key, reading the config file only if a value needs it; scope
 * `all` also resolves the environment that is not selected (for `auth status`, `config list`).
 * Never throws for a missing, invalid or unreadable value; see `Outcome`.
 */
export async function resolveSettings(input: ResolveInput, scope: 'selected' | 'all'): Promise<Settings> {
  let loading: Promise<ConfigReader | ConfigError> | undefined;
  let config: ConfigReader | ConfigError | undefined;
  const load = async (): Promise<ConfigReader | ConfigError> => {
    loading ??= input.loadConfig().then(
      (c) => c,
      (err: unknown) => {
        if (err instanceof ConfigError) return err;
        throw err;
      },
    );
    config = await loading;
    return config;
  };

  // `all` shows what the file holds beside what the variables supply, so it reads the file first.
  if (scope === 'all') await load();
  const environment = await resolveEnvironment(input, load);
  const selected = environment.ok ? environment.value : undefined;
  const names = scope === 'all' ? REMOTE_ENVIRONMENTS : selected !== undefined && isRemote(selected) ? [selected] : [];
  const remotes: RemoteSettings[] = [];
  for (const name of names) {
    const isSelected = name === selected;
    const baseUrl = await resolveBaseUrl(name, isSelected, input, load);
    const key = await resolveKey(name, isSelected, baseUrl, input, load, () =>
      config === undefined || config instanceof ConfigError ? undefined : config,
    );
    remotes.push({ name, selected: isSelected, baseUrl, key });
  }
  const configPath = config === undefined ? undefined : config instanceof ConfigError ? undefined : config.path;
  return { environment, remotes, configPath };
}

async function resolveEnvironment(
  input: ResolveInput,
  load: () => Promise<ConfigReader | ConfigError>,
): Promise<Outcome<EnvName>> {
  if (input.envFlag !== undefined) return resolved(input.envFlag, 'flag', '--env');
  const fromEnv = input.env.PETSTORE_ENV;
  if (isSet(fromEnv)) return attempt(() => parseEnvName(fromEnv, 'PETSTORE_ENV'), 'env', 'PETSTORE_ENV');
  const config = await load();
  if (config instanceof ConfigError) {
    // cli-contract.md "The config file": a run whose key and base URL come from the
    // environment works even when the file is unreadable; it needs nothing from the file
    // but this default, and the broken file is left as it is.
    if (isSet(input.env.PETSTORE_API_KEY) && isSet(input.env.PETSTORE_BASE_URL)) {
      return resolved('production', 'default', 'default');
    }
    return unresolved(config);
  }
  const stored = config.getSetting('environment');
  if (stored === undefined) return resolved('production', 'default', 'default');
  const found = ENVIRONMENTS.find((e) => e === stored);
  return found !== undefined
    ? resolved(found, 'file', 'environment')
    : unresolved(
        new ConfigError(`${config.path}: environment ${quote(stored)} is not one of ${ENVIRONMENTS.join(', ')}`),
      );
}

async function resolveBaseUrl(
  name: RemoteEnvName,
  selected: boolean,
  input: ResolveInput,
  load: () => Promise<ConfigReader | ConfigError>,
): Promise<Outcome<string>> {
  if (selected && input.baseUrlFlag !== undefined) return resolved(input.baseUrlFlag, 'flag', '--base-url');
  const fromEnv = input.env.PETSTORE_BASE_URL;
  if (selected && isSet(fromEnv)) {
    return attempt(() => checkBaseUrl(fromEnv, 'PETSTORE_BASE_URL'), 'env', 'PETSTORE_BASE_URL');
  }
  const config = await load();
  if (config instanceof ConfigError) return unresolved(config);
  const key = `${name}.baseUrl`;
  const stored = config.getSetting(key);
  if (stored === undefined) {
    // Production is where a first run lands: the sandbox answers without any setup.
    const sandbox =
      name === 'production'
        ? '\nOr try petstore without a server first: add --env sandbox (an embedded API with sample pets).'
        : '';
    return unresolved(
      new ConfigError(
        `no base URL for ${name}`,
        `Set one with \`petstore config set ${key} https://HOST/v1\`, or use --base-url / PETSTORE_BASE_URL.${sandbox}`,
      ),
      true,
    );
  }
  try {
    return resolved(checkBaseUrl(stored, key), 'file', key);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return unresolved(new ConfigError(`${config.path}: ${err.message}`));
  }
}

async function resolveKey(
  name: RemoteEnvName,
  selected: boolean,
  baseUrl: Outcome<string>,
  input: ResolveInput,
  load: () => Promise<ConfigReader | ConfigError>,
  loaded: () => ConfigReader | undefined,
): Promise<KeyView> {
  const fromEnv = input.env.PETSTORE_API_KEY;
  // The login a hint suggests goes where this command went: the same --env and --base-url.
  const login = loginCommand(name, {
    explicit: input.envFlag !== undefined || !selected,
    baseUrlFlag: baseUrl.ok && baseUrl.source === 'flag' ? baseUrl.value : undefined,
  });
  if (selected && isSet(fromEnv)) {
    // The file is not read for this; what it holds is shown only when it was read anyway.
    return {
      source: 'env',
      value: fromEnv,
      stored: loaded()?.getKey(name),
      error: unsendable(fromEnv, 'PETSTORE_API_KEY'),
    };
  }
  const config = await load();
  if (config instanceof ConfigError) return { source: 'none', value: undefined, stored: undefined, error: config };
  const stored = config.getKey(name);
  if (stored === undefined) {
    return {
      source: 'none',
      value: undefined,
      stored: undefined,
      error: new AuthError(`no API key for ${name}`, `Log in with \`${login}\`, or set PETSTORE_API_KEY.`),
    };
  }
  let error: CliError | undefined = unsendable(stored.key, `the ${name} key in ${config.path}`, login);
  if (error === undefined && baseUrl.ok && stored.baseUrl !== baseUrl.value) {
    error = new AuthError(
      `the ${name} key was stored for ${stored.baseUrl}, not ${baseUrl.value}; not sent`,
      `Log in again for this URL with \`${login}\`, or set PETSTORE_API_KEY explicitly.`,
    );
  }
  return { source: 'file', value: stored.key, stored, error };
}

/**
 * Refuses a key that cannot be sent (see `isSendableKey`), naming where it came from and
 * never printing any of it: a ConfigError (exit 2; nothing is sent), or undefined when
 * the key is fine.
 */
function unsendable(key: string, from: string, login?: string): ConfigError | undefined {
  if (isSendableKey(key)) return undefined;
  return new ConfigError(
    `the API key from ${from} contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was sent`,
    from === 'PETSTORE_API_KEY'
      ? 'Set PETSTORE_API_KEY to the key alone, without spaces or line breaks.'
      : `Store the key again with \`${login ?? 'petstore auth login'}\`.`,
  );
}

/** True when a command would send this environment's key to its base URL. */
export function isUsable(remote: RemoteSettings): boolean {
  return remote.baseUrl.ok && remote.key.value !== undefined && remote.key.error === undefined;
}

/**
 * The environment a command runs against.
 * @throws the error that kept it from being resolved (UsageError, ConfigError).
 */
export function requireEnvironment(settings: Settings): Resolved<EnvName> {
  if (!settings.environment.ok) throw settings.environment.error;
  return settings.environment;
}

/**
 * The base URL of a remote environment.
 * @throws the error that kept it from being resolved: UsageError for a bad `--base-url` or
 * `PETSTORE_BASE_URL`, ConfigError when none is configured or the file's is invalid.
 */
export function requireBaseUrl(remote: RemoteSettings): Resolved<string> {
  if (!remote.baseUrl.ok) throw remote.baseUrl.error;
  return remote.baseUrl;
}

/**
 * The connection of the selected remote environment: its base URL and the key to send.
 * @throws UsageError/ConfigError for the environment or base URL (exit 2), AuthError
 * (exit 4) when there is no usable key, ConfigError for an unsendable key.
 */
export function requireRemote(settings: Settings): Connection {
  const environment = requireEnvironment(settings);
  const remote = settings.remotes.find((r) => r.selected);
  if (remote === undefined) throw new Error(`no remote settings resolved for ${environment.value}`);
  const baseUrl = requireBaseUrl(remote);
  const { key } = remote;
  if (key.error !== undefined) throw key.error;
  if (key.value === undefined || key.source === 'none') throw new Error('key without value or error');
  const from = key.source === 'env' ? 'PETSTORE_API_KEY' : `${remote.name} key`;
  return { environment, baseUrl, apiKey: resolved(key.value, key.source, from) };
}

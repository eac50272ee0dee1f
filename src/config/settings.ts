/**
 * The one resolver of environment, base URL and API key (cli-contract.md "Environments"),
 * used by every command that connects, by `auth status`, `auth token` and `config list`
 * alike. Each setting is a chain of sources, first match wins:
 *
 * - environment: `--env` > `PETSTORE_ENV` > config `environment` > `production`;
 * - base URL: `--base-url` > the configured `<env>.baseUrl` of an environment named by the
 *   `--env` flag > `PETSTORE_BASE_URL` > config `<env>.baseUrl`;
 * - API key: `PETSTORE_API_KEY` (unless the `--env` flag names an environment with its own
 *   base URL and key source) > the environment's `apiKeyCommand` > the key stored for
 *   that environment. A key from the config file (stored, or printed by its command) goes
 *   only to the base URL it belongs to: a stored key to the URL it was stored for, a
 *   command's key to the environment's configured `baseUrl`.
 *
 * An explicit flag wins over the shell (gh's and kubectl's rule): a variable set for
 * another environment must not redirect a write typed for this one. The variables given
 * way to are named in `RemoteSettings.ignored`, for one warning.
 *
 * Every setting comes back in one shape, `Outcome<T>`: its value with its source, or the
 * error a command that needs it fails with (`requireRemote` throws that error);
 * `resolveSettings` itself never throws for a missing or bad value. `--base-url`,
 * `PETSTORE_BASE_URL` and `PETSTORE_API_KEY` apply to the selected environment only. The
 * config file is read at most once; scripts that pass everything in the environment read it
 * only for the environment's `confirmWrites`, and a broken file does not stop them (the
 * setting then counts as off); a key command runs only when its key is the one that counts.
 */
import { AuthError, ConfigError, InterruptedError, UsageError, CliError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';
import { isSendableKey, maskUrl } from '../base/mask.js';
import { isLoopbackHost } from '../base/loopback.js';
import { closestName, suggestCommand } from '../base/suggest.js';
import type { EnvVars } from './env.js';
import {
  BUILTIN_REMOTES,
  checkEnvName,
  isBuiltinEnvironment,
  SANDBOX,
  type EnvName,
  type RemoteEnvName,
} from './environments.js';

/** True for every environment but the sandbox. */
function isRemote(name: EnvName): name is RemoteEnvName {
  return name !== SANDBOX;
}

/** Where a setting came from; `command` is an environment's `apiKeyCommand`. */
export type Source = 'flag' | 'env' | 'command' | 'file' | 'default' | 'sandbox';

/** A value with its source. */
export interface Resolved<T> {
  ok: true;
  value: T;
  source: Source;
  /** The flag, variable or config key that supplied it, e.g. `PETSTORE_ENV`, `staging.apiKeyCommand`. */
  from: string;
}

/** A value that could not be resolved, with the error a command that needs it fails with. */
interface Unresolved {
  ok: false;
  error: CliError;
  /** True when nothing supplies the value (as opposed to a value that is invalid, unreadable or refused). */
  missing: boolean;
  /** The source that failed to supply it, when one did (a key command that exited 1). */
  source?: Source;
  from?: string;
}

/** A resolved value or the reason there is none: the one shape of every setting. */
type Outcome<T> = Resolved<T> | Unresolved;

/** A key stored by `auth login` and the base URL it was stored for. */
interface StoredKey {
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
  /** The remote environments: production, staging, then the configured names in order. */
  remoteNames(): readonly RemoteEnvName[];
}

/**
 * Loads the config store on demand.
 * @throws ConfigError (only) when the file cannot be read or is malformed.
 */
export type LoadConfig = () => Promise<ConfigReader>;

/**
 * Runs the `apiKeyCommand` of `name` and returns its key (`config/key-command.ts`); the
 * caller makes sure it runs at most once per run.
 * @throws CliError (exit 4, code `key_command`), UsageError for a command that does not
 * split, InterruptedError on Ctrl-C.
 */
export type RunKeyCommand = (name: RemoteEnvName, command: string) => Promise<string>;

/** One remote environment as a command would see it. */
export interface RemoteSettings {
  name: RemoteEnvName;
  selected: boolean;
  baseUrl: Outcome<string>;
  /** The key a command would send; undefined when keys were not asked for (`keys: false`). */
  key: Outcome<string> | undefined;
  /** The key stored in the config file, when the file was read (also when another source wins). */
  stored: StoredKey | undefined;
  /** The environment's `apiKeyCommand`, when the file was read and has one. */
  command: string | undefined;
  /**
   * The environment's `confirmWrites` (cli-contract.md "Environments": every write asks on
   * a terminal, and is refused off one unless `--yes`); false when unset, and when the file
   * cannot be read (a run that needs nothing else of it works, as the contract says).
   */
  confirmWrites: boolean;
  /**
   * The environment's `idempotencyKeys`: its server honours `Idempotency-Key`
   * (cli-contract.md "Bulk create"); false when unset or the file cannot be read.
   */
  idempotencyKeys: boolean;
  /**
   * The environment whose `confirmWrites` applies to a write to this base URL: this one's
   * own, else the first environment whose configured `baseUrl` is the same URL
   * (`sameBaseUrl`) and has `confirmWrites` (cli-contract.md "Environments": `confirmWrites`
   * follows the URL, whatever name or variable selected it). Undefined when none does.
   */
  confirmWritesOf: RemoteEnvName | undefined;
  /**
   * The variables set in the shell that this run ignores because the `--env` flag names an
   * environment with its own base URL (`PETSTORE_BASE_URL`) and key source
   * (`PETSTORE_API_KEY`); empty otherwise. The selected environment only.
   */
  ignored: ('PETSTORE_BASE_URL' | 'PETSTORE_API_KEY')[];
}

/** The outcome of resolution. */
export interface Settings {
  environment: Outcome<EnvName>;
  /** The remote environments resolved: every known one (scope `all`) or the selected one (scope `selected`). */
  remotes: RemoteSettings[];
  /** The config file's path, when scope `all` read it. */
  configPath: string | undefined;
}

/** The inputs of resolution. */
export interface ResolveInput {
  /** `--env`, its shape already checked by `checkEnvName` (whether it is known is checked here). */
  envFlag: EnvName | undefined;
  /** `--base-url`, already checked by `checkBaseUrl`. */
  baseUrlFlag: string | undefined;
  env: EnvVars;
  loadConfig: LoadConfig;
  runKeyCommand: RunKeyCommand;
}

/**
 * What to resolve: the selected environment or all, and whether keys too (default true).
 * `unread`: the key's source is found and checked, but an `apiKeyCommand` is not run (its
 * key is then `UNREAD_KEY`): a dry run needs a key source and prints no key
 * (cli-contract.md "Commands", `--dry-run`).
 */
export interface ResolveScope {
  scope: 'selected' | 'all';
  /** False: leave keys unresolved (no key command runs), for commands that only store or remove one. */
  keys?: boolean | 'unread';
}

/**
 * The key of an `apiKeyCommand` that was not run (`ResolveScope.keys: 'unread'`): a
 * stand-in that is never sent (a dry run shows the key as `$PETSTORE_API_KEY`), yet a
 * header could carry it.
 */
export const UNREAD_KEY = 'unread-key-command';

/** The connection settings of one remote run. */
export interface Connection {
  environment: Resolved<EnvName>;
  baseUrl: Resolved<string>;
  apiKey: Resolved<string>;
  /** Whether every write asks first (`RemoteSettings.confirmWritesOf` is set; false for the sandbox). */
  confirmWrites: boolean;
  /** The environment whose `confirmWrites` setting applies (`RemoteSettings.confirmWritesOf`). */
  confirmWritesOf?: RemoteEnvName | undefined;
  /** Whether the server honours `Idempotency-Key` (`RemoteSettings.idempotencyKeys`; true for the sandbox). */
  idempotencyKeys: boolean;
}

/**
 * Every environment a command may select: the sandbox and the remote ones the config file
 * knows (`ConfigReader.remoteNames`), production first.
 */
export function knownEnvironments(remotes: readonly RemoteEnvName[]): EnvName[] {
  return [...remotes, SANDBOX];
}

/**
 * The error of a name that is not a known environment (cli-contract.md "Environments": exit
 * 2 naming the closest known name), as a UsageError for what the user typed (`--env`,
 * `PETSTORE_ENV`, `env use`) or a ConfigError naming the file for its `environment` key.
 */
export function unknownEnvironment(
  name: string,
  known: readonly EnvName[],
  from: string,
  configPath?: string,
): UsageError | ConfigError {
  const closest = closestName(name, known);
  const guess = closest === undefined ? '' : `: did you mean ${closest}?`;
  const message = `unknown environment ${quote(name)} (from ${from})${guess}`;
  const hint = `The environments are ${known.join(', ')}; add one with \`petstore config set ${name}.baseUrl https://HOST/v1\`.`;
  return configPath === undefined ? new UsageError(message, hint) : new ConfigError(`${configPath}: ${message}`, hint);
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
  // A bare `?` or `#` leaves `search` and `hash` empty, yet a path joined to it would land
  // after it (`/v1?/pets`): any `?` or `#` in the text is refused.
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || /[?#]/.test(raw)) {
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

const resolved = <T>(value: T, source: Source, from: string): Resolved<T> => ({ ok: true, value, source, from });
const unresolved = (error: CliError, more: Partial<Omit<Unresolved, 'ok' | 'error'>> = {}): Unresolved => ({
  ok: false,
  error,
  missing: false,
  ...more,
});

/** Runs a check that throws a UsageError or ConfigError, as an Outcome. */
function attempt<T>(fn: () => T, source: Source, from: string): Outcome<T> {
  try {
    return resolved(fn(), source, from);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) return unresolved(err, { source, from });
    throw err;
  }
}

/** One source of a setting: its Outcome, or undefined when it supplies nothing. */
type Candidate<T> = () => Outcome<T> | undefined | Promise<Outcome<T> | undefined>;

/** The first source that supplies the setting, else `none()` (a default, or the error of a missing value). */
async function firstOf<T>(candidates: Candidate<T>[], none: () => Outcome<T>): Promise<Outcome<T>> {
  for (const candidate of candidates) {
    const outcome = await candidate();
    if (outcome !== undefined) return outcome;
  }
  return none();
}

/** The config file as resolution sees it: read on first use, at most once; a broken file is a value. */
type FileAccess = () => Promise<ConfigReader | ConfigError>;

function fileAccess(load: LoadConfig): FileAccess {
  let reading: Promise<ConfigReader | ConfigError> | undefined;
  return () =>
    (reading ??= load().then(
      (reader) => reader,
      (err: unknown) => {
        if (err instanceof ConfigError) return err;
        throw err;
      },
    ));
}

/**
 * Resolves the settings of one run. Scope `selected` resolves the environment and, when it
 * is remote, its base URL and key, reading the config file only if a value needs it; scope
 * `all` also resolves the environment that is not selected (for `auth status`, `config
 * list`). With `keys: false` no key is resolved and no key command runs. Never throws for a
 * missing, invalid or unreadable value (see `Outcome`); rethrows InterruptedError.
 */
export async function resolveSettings(input: ResolveInput, { scope, keys = true }: ResolveScope): Promise<Settings> {
  const file = fileAccess(input.loadConfig);
  // `all` shows what the file holds beside what the variables supply, so it reads the file first.
  const read = scope === 'all' ? await file() : undefined;
  const environment = await resolveEnvironment(input, file);
  const selected = environment.ok ? environment.value : undefined;
  const names =
    scope === 'all'
      ? read instanceof ConfigError || read === undefined
        ? BUILTIN_REMOTES
        : read.remoteNames()
      : selected !== undefined && isRemote(selected)
        ? [selected]
        : [];
  const remotes: RemoteSettings[] = [];
  for (const name of names) {
    const isSelected = name === selected;
    const own = isSelected ? await ownSettings(name, input, file) : { baseUrl: false, key: false };
    const baseUrl = await resolveBaseUrl(name, isSelected, own.baseUrl, input, file);
    const key = keys === false ? undefined : await resolveKey(name, isSelected, own.key, baseUrl, input, file, keys);
    const config = read instanceof ConfigError ? undefined : read;
    // The setting belongs to the environment, whatever supplied its URL and key.
    const current = await file();
    const readable = current instanceof ConfigError ? undefined : current;
    const ignored = [
      ...(own.baseUrl && overridden(input.env.get('PETSTORE_BASE_URL'), baseUrl)
        ? (['PETSTORE_BASE_URL'] as const)
        : []),
      ...(own.key && input.env.isSet('PETSTORE_API_KEY') ? (['PETSTORE_API_KEY'] as const) : []),
    ];
    const confirmWritesOf = readable === undefined ? undefined : confirmingEnvironment(name, baseUrl, readable);
    remotes.push({
      name,
      selected: isSelected,
      baseUrl,
      key,
      stored: config?.getKey(name),
      command: config?.getSetting(`${name}.apiKeyCommand`),
      confirmWrites: confirmWritesOf !== undefined,
      confirmWritesOf,
      idempotencyKeys: readable?.getSetting(`${name}.idempotencyKeys`) === 'true',
      ignored,
    });
  }
  return { environment, remotes, configPath: read instanceof ConfigError ? undefined : read?.path };
}

/**
 * Whether the selected environment's own settings win over the shell's variables
 * (cli-contract.md "Environments"): when the `--env` flag (not `PETSTORE_ENV` or the
 * config's `environment`) names it, `--base-url` is not given, and it has a configured
 * `baseUrl`, that URL is used (`baseUrl`); when it also has a key source (an
 * `apiKeyCommand` or a stored key), that source is used (`key`). A file that cannot be read
 * gives way to the variables, as before.
 */
async function ownSettings(
  name: RemoteEnvName,
  input: ResolveInput,
  file: FileAccess,
): Promise<{ baseUrl: boolean; key: boolean }> {
  if (input.envFlag !== name || input.baseUrlFlag !== undefined) return { baseUrl: false, key: false };
  const config = await file();
  if (config instanceof ConfigError || config.getSetting(`${name}.baseUrl`) === undefined) {
    return { baseUrl: false, key: false };
  }
  const keySource = config.getSetting(`${name}.apiKeyCommand`) !== undefined || config.getKey(name) !== undefined;
  return { baseUrl: true, key: keySource };
}

/** Whether a `PETSTORE_BASE_URL` is set to another URL than the one resolved (so it is ignored). */
function overridden(variable: string | undefined, baseUrl: Outcome<string>): boolean {
  return variable !== undefined && !(baseUrl.ok && sameBaseUrl(variable, baseUrl.value));
}

/**
 * The environment whose `confirmWrites` applies to a write to `name`'s base URL: `name`'s
 * own setting, else the first remote environment (production first) whose configured
 * `baseUrl` is the same URL (`sameBaseUrl`) and has `confirmWrites` on. The question
 * belongs to the target, not to the name that selected it.
 */
function confirmingEnvironment(
  name: RemoteEnvName,
  baseUrl: Outcome<string>,
  config: ConfigReader,
): RemoteEnvName | undefined {
  const on = (n: RemoteEnvName): boolean => config.getSetting(`${n}.confirmWrites`) === 'true';
  if (on(name)) return name;
  if (!baseUrl.ok) return undefined;
  return config.remoteNames().find((other) => {
    const configured = config.getSetting(`${other}.baseUrl`);
    return on(other) && configured !== undefined && sameBaseUrl(configured, baseUrl.value);
  });
}

/**
 * Whether two base URLs name the same API: compared after WHATWG URL parsing, which
 * lower-cases the scheme and host and drops a default port (`:443` for https, `:80` for
 * http), with trailing slashes removed. Text that does not parse is compared as it is.
 */
function sameBaseUrl(a: string, b: string): boolean {
  const norm = (raw: string): string => {
    try {
      return new URL(raw).href.replace(/\/+$/, '');
    } catch {
      return raw.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

async function resolveEnvironment(input: ResolveInput, file: FileAccess): Promise<Outcome<EnvName>> {
  const { env } = input;
  const chosen = await firstOf<EnvName>(
    [
      () => (input.envFlag === undefined ? undefined : resolved(input.envFlag, 'flag', '--env')),
      () => {
        const raw = env.get('PETSTORE_ENV');
        return raw === undefined ? undefined : attempt(() => checkEnvName(raw, 'PETSTORE_ENV'), 'env', 'PETSTORE_ENV');
      },
      async () => {
        const config = await file();
        if (config instanceof ConfigError) {
          // cli-contract.md "The config file": a run whose key and base URL come from the
          // environment works even when the file is unreadable; it needs nothing from the
          // file but this default, and the broken file is left as it is.
          return env.isSet('PETSTORE_API_KEY') && env.isSet('PETSTORE_BASE_URL') ? undefined : unresolved(config);
        }
        const stored = config.getSetting('environment');
        return stored === undefined ? undefined : resolved(stored, 'file', 'environment');
      },
    ],
    () => resolved<EnvName>('production', 'default', 'default'),
  );
  // production, staging and sandbox need no file to be known; any other name is known
  // only when the file configures it.
  if (!chosen.ok || isBuiltinEnvironment(chosen.value)) return chosen;
  const config = await file();
  if (config instanceof ConfigError) return unresolved(config, { source: chosen.source, from: chosen.from });
  if (config.remoteNames().includes(chosen.value)) return chosen;
  const known = knownEnvironments(config.remoteNames());
  const error =
    chosen.source === 'file'
      ? unknownEnvironment(chosen.value, known, 'environment', config.path)
      : unknownEnvironment(chosen.value, known, chosen.from);
  return unresolved(error, { source: chosen.source, from: chosen.from });
}

/**
 * The base URL of `name`; `own` (see `ownSettings`): its configured URL comes before
 * `PETSTORE_BASE_URL`.
 */
function resolveBaseUrl(
  name: RemoteEnvName,
  selected: boolean,
  own: boolean,
  input: ResolveInput,
  file: FileAccess,
): Promise<Outcome<string>> {
  const { env } = input;
  const key = `${name}.baseUrl`;
  const fromFile = async (): Promise<Outcome<string> | undefined> => {
    const config = await file();
    if (config instanceof ConfigError) return unresolved(config);
    const stored = config.getSetting(key);
    if (stored === undefined) return undefined;
    try {
      return resolved(checkBaseUrl(stored, key), 'file', key);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return unresolved(new ConfigError(`${config.path}: ${err.message}`), { source: 'file', from: key });
    }
  };
  return firstOf<string>(
    [
      () =>
        selected && input.baseUrlFlag !== undefined ? resolved(input.baseUrlFlag, 'flag', '--base-url') : undefined,
      () => (own ? fromFile() : undefined),
      () => {
        const fromEnv = env.get('PETSTORE_BASE_URL');
        if (!selected || fromEnv === undefined) return undefined;
        return attempt(() => checkBaseUrl(fromEnv, 'PETSTORE_BASE_URL'), 'env', 'PETSTORE_BASE_URL');
      },
      fromFile,
    ],
    () => {
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
        { missing: true },
      );
    },
  );
}

/**
 * The key of `name`: `PETSTORE_API_KEY` (selected environment only, and not when `own`:
 * see `ownSettings`), else its `apiKeyCommand` (not run when `keys` is `unread`), else its
 * stored key — the one place a key source is added.
 */
function resolveKey(
  name: RemoteEnvName,
  selected: boolean,
  own: boolean,
  baseUrl: Outcome<string>,
  input: ResolveInput,
  file: FileAccess,
  keys: true | 'unread',
): Promise<Outcome<string>> {
  // The login a hint suggests goes where this command went: the same --env and --base-url.
  const login = loginCommand(name, {
    explicit: input.envFlag !== undefined || !selected,
    baseUrlFlag: baseUrl.ok && baseUrl.source === 'flag' ? baseUrl.value : undefined,
  });
  return firstOf<string>(
    [
      () => (selected && !own ? keyFromVariable(input.env) : undefined),
      async () => {
        const config = await file();
        return config instanceof ConfigError
          ? unresolved(config)
          : keyFromCommand(name, baseUrl, config, input, keys === 'unread');
      },
      async () => {
        const config = await file();
        return config instanceof ConfigError ? unresolved(config) : keyFromStore(name, baseUrl, config, login);
      },
    ],
    () =>
      unresolved(
        new AuthError(
          `no API key for ${name}`,
          `Log in with \`${login}\`, set ${name}.apiKeyCommand, or set PETSTORE_API_KEY.`,
        ),
        { missing: true },
      ),
  );
}

function keyFromVariable(env: EnvVars): Outcome<string> | undefined {
  const key = env.get('PETSTORE_API_KEY');
  if (key === undefined) return undefined;
  const error = unsendable(key, 'PETSTORE_API_KEY');
  return error === undefined ? resolved(key, 'env', 'PETSTORE_API_KEY') : unresolved(error, { source: 'env' });
}

/**
 * The key printed by the environment's `apiKeyCommand`, if it has one. The command runs
 * only for the environment's configured base URL: its key is never sent to a URL given by
 * `--base-url` or `PETSTORE_BASE_URL` that differs (as a stored key is bound to its URL).
 */
async function keyFromCommand(
  name: RemoteEnvName,
  baseUrl: Outcome<string>,
  config: ConfigReader,
  input: ResolveInput,
  unread: boolean,
): Promise<Outcome<string> | undefined> {
  const setting = `${name}.apiKeyCommand`;
  const command = config.getSetting(setting);
  if (command === undefined) return undefined;
  const more = { source: 'command', from: setting } as const;
  if (!baseUrl.ok) return unresolved(baseUrl.error, more);
  const configured = config.getSetting(`${name}.baseUrl`);
  if (baseUrl.source !== 'file' && configured === `${baseUrl.value}/v1`) {
    return unresolved(lacksOnlyV1(`the key of ${setting} is for`, baseUrl, configured), more);
  }
  if (baseUrl.source !== 'file' && baseUrl.value !== configured) {
    return unresolved(
      new AuthError(
        `the key of ${setting} is sent only to ${name}.baseUrl (${configured ?? 'not set'}), not ${baseUrl.value}; the command was not run`,
        `Set PETSTORE_API_KEY to send a key to another URL, or change ${name}.baseUrl with \`petstore config set\`.`,
      ),
      more,
    );
  }
  // A dry run needs to know the key has a source, not the key: the command is not run.
  if (unread) return resolved(UNREAD_KEY, 'command', setting);
  try {
    return resolved(await input.runKeyCommand(name, command), 'command', setting);
  } catch (err) {
    if (err instanceof InterruptedError || !(err instanceof CliError)) throw err;
    // A command that does not split is the config file's fault: exit 2, naming the file.
    const error = err instanceof UsageError ? new ConfigError(`${config.path}: ${err.message}`, err.hint) : err;
    return unresolved(error, more);
  }
}

function keyFromStore(
  name: RemoteEnvName,
  baseUrl: Outcome<string>,
  config: ConfigReader,
  login: string,
): Outcome<string> | undefined {
  const stored = config.getKey(name);
  if (stored === undefined) return undefined;
  const more = { source: 'file', from: `auth.${name}` } as const;
  const error = unsendable(stored.key, `the ${name} key in ${config.path}`, login);
  if (error !== undefined) return unresolved(error, more);
  if (baseUrl.ok && stored.baseUrl === `${baseUrl.value}/v1`) {
    return unresolved(lacksOnlyV1(`the ${name} key is stored for`, baseUrl, stored.baseUrl), more);
  }
  if (baseUrl.ok && stored.baseUrl !== baseUrl.value) {
    return unresolved(
      new AuthError(
        `the ${name} key was stored for ${stored.baseUrl}, not ${baseUrl.value}; not sent`,
        `Log in again for this URL with \`${login}\`, or set PETSTORE_API_KEY explicitly.`,
      ),
      more,
    );
  }
  return resolved(stored.key, 'file', `auth.${name}`);
}

/**
 * A key stored for `${baseUrl}/v1` and a base URL without the `/v1`: the URL is what to fix,
 * not the login (cli-contract.md "Environments": a key stored for a URL that differs only
 * by the missing `/v1` says so). Exit 2 (the URL is a usage or configuration error; nothing
 * was sent), with the fix where the URL came from.
 */
function lacksOnlyV1(whose: string, baseUrl: Resolved<string>, storedFor: string): CliError {
  const message = `${baseUrl.value} (from ${baseUrl.from}) lacks the version segment /v1; ${whose} ${storedFor}, and was not sent`;
  switch (baseUrl.source) {
    case 'flag':
      return new UsageError(message, `Add /v1: --base-url ${storedFor}`);
    case 'env':
      return new UsageError(message, `Add /v1: PETSTORE_BASE_URL=${storedFor}`);
    default:
      return new ConfigError(message, `Add /v1: \`petstore config set ${baseUrl.from} ${storedFor}\``);
  }
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
  return remote.baseUrl.ok && remote.key?.ok === true;
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
 * The base URL is judged before the key (cli-contract.md "Environments": its shape first,
 * what a person can act on): `onBaseUrl` is told of it before any key error is thrown
 * (the factory warns there of a missing `/v1`).
 * @throws UsageError/ConfigError for the environment or base URL (exit 2), AuthError
 * (exit 4) when there is no usable key, CliError `key_command` (exit 4) when the key
 * command failed, ConfigError for an unsendable key, UsageError/ConfigError when a key is
 * stored for this URL with `/v1` (exit 2).
 */
export function requireRemote(settings: Settings, onBaseUrl?: (baseUrl: Resolved<string>) => void): Connection {
  const environment = requireEnvironment(settings);
  const remote = settings.remotes.find((r) => r.selected);
  if (remote === undefined) throw new Error(`no remote settings resolved for ${environment.value}`);
  const baseUrl = requireBaseUrl(remote);
  onBaseUrl?.(baseUrl);
  if (remote.key === undefined) throw new Error('requireRemote needs settings resolved with keys');
  if (!remote.key.ok) throw remote.key.error;
  return {
    environment,
    baseUrl,
    apiKey: remote.key,
    confirmWrites: remote.confirmWrites,
    confirmWritesOf: remote.confirmWritesOf,
    idempotencyKeys: remote.idempotencyKeys,
  };
}

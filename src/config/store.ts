/**
 * The config store (cli-contract.md "The config file"): `config.json` in the config
 * directory, holding the settings (`environment`, `<env>.baseUrl`, `<env>.apiKeyCommand`,
 * `<env>.confirmWrites`) and one API key per remote environment, bound to the base URL it
 * was stored for.
 *
 * File shape (unknown keys are kept as they are):
 *
 * ```json
 * { "environment": "staging",
 *   "production": { "baseUrl": "https://api.example.com/v1", "apiKeyCommand": "op read op://store/petstore/key",
 *                   "confirmWrites": true },
 *   "staging":    { "baseUrl": "https://staging.example.com/v1" },
 *   "environments": { "staging-eu": { "baseUrl": "https://eu.staging.example.com/v1" } },
 *   "auth": { "staging": { "apiKey": "…", "baseUrl": "https://staging.example.com/v1" } } }
 * ```
 *
 * production and staging keep their settings at the top level, where every earlier
 * petstore wrote and reads them; the environments a user adds live under `environments`,
 * so no name of theirs can meet a key of the file's own. The setting keys are the same
 * for all (`staging-eu.baseUrl`): `settingPath` maps one to its place in the file.
 *
 * Reading and writing take different roads on purpose:
 * - Reads (every command that needs a stored value) use trust.ts's `readOwnedFileSync` (ssh's
 *   rule, non-blocking, a byte cap) + `JSON.parse` + zod.
 *   conf costs ~190 ms to import (it loads ajv eagerly) and its constructor throws a bare
 *   `SyntaxError` without the file's path; a plain read is cheap, names the path and the
 *   offending key, and cannot modify the file.
 * - Writes (`auth login|logout`, `config set|unset`) go through conf, which writes
 *   atomically (temp file, fsync, rename) with `configFileMode` 0600. Each read-modify-write
 *   holds a lock (file-lock.ts: a `config.json.lock` directory that names its holder's
 *   process, made atomically with the name in it), so two commands writing at once never
 *   lose each other's change (cli-contract.md "The config file"). They validate the file
 *   with the read path first, under the lock, so a corrupt or ill-shaped file is reported
 *   and left byte for byte as it was; conf runs with `clearInvalidConfig: false` and no
 *   defaults or schema, so its constructor never rewrites the file either. A writer killed
 *   between conf's temp file and its rename leaves `config.json.tmp-*` (mode 0600, keys in
 *   it): the next writer removes it under the lock (`removeStaleTemps`).
 */
// `promises` is read where a write needs it: Node loads its promise API (some twenty internal
// modules, about 5 ms) on first use, and a command that only reads never does.
import { promises as fsp, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Conf from 'conf';
import { z } from 'zod';
import { ConfigError, describeFileError, InterruptedError } from '../base/errors.js';
import { FileTooLargeError, readOwnedFileSync, UntrustedPathError } from '../fs/trust.js';
import type { EnvVars } from './env.js';
import { BUILTIN_REMOTES, isConfigurableName, type RemoteEnvName } from './environments.js';
import { configDir, configFile, isDefaultConfigDir } from './paths.js';
import type { ConfigReader } from './settings.js';
import { checkConfigDir, refusal } from './trusted.js';

/**
 * The shape of `config.json` (a zod schema); unknown keys are allowed and preserved.
 * `environment` is any string here: whether it names a known environment is the resolver's
 * question, which has the message for it. Built on first use, not at load: a run without a
 * config file never needs it (about 2 ms of zod's).
 */
function buildConfigFileSchema() {
  /** A stored key and the base URL it was stored for (the key is sent nowhere else). */
  const storedKey = z.object({
    apiKey: z.string().min(1, 'must be a non-empty string'),
    baseUrl: z.string(),
  });
  const envSettings = z.looseObject({
    baseUrl: z.string().optional(),
    apiKeyCommand: z.string().optional(),
    // Written as a JSON boolean; a hand-written "true"/"false" is read as well.
    confirmWrites: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
    idempotencyKeys: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  });
  return z.looseObject({
    environment: z.string().optional(),
    production: envSettings.optional(),
    staging: envSettings.optional(),
    environments: z.record(z.string(), envSettings).optional(),
    auth: z
      .looseObject({
        production: storedKey.optional(),
        staging: storedKey.optional(),
      })
      .catchall(storedKey)
      .optional(),
  });
}

let configFileSchema: ReturnType<typeof buildConfigFileSchema> | undefined;

/** A validated config file. */
type ConfigFile = z.infer<ReturnType<typeof buildConfigFileSchema>>;

/** The loaded store: the reader settings resolution uses, plus what the config commands show. */
export interface ConfigStore extends ConfigReader {
  /** Whether the file exists. */
  readonly exists: boolean;
  /** The validated contents (`{}` when the file does not exist). */
  readonly data: ConfigFile;
}

/** Group and other permission bits: any of them set means other users may read the keys. */
const SHARED_BITS = 0o077;

/**
 * The most bytes of config.json read (1 MiB), counted while reading: a few settings and two
 * keys take a few hundred bytes; a file much larger is not one petstore wrote.
 */
const CONFIG_MAX_BYTES = 1024 * 1024;

/**
 * Reads and validates the config file of this environment (`configFile(env)`). A missing
 * file (or directory) is an empty config. The directory and the file are used only when
 * they pass ssh's rule (`checkConfigDir`, trust.ts): the file may be a symbolic link
 * (dotfile managers) whose target passes; a FIFO or device in its place is refused without
 * waiting on it. Warns (through `warn`) when the file is open to other users' reading,
 * naming the `chmod 600 PATH` that fixes it. Never writes. Synchronous: the file is small and
 * local, and Node's promise file API would cost every run about 5 ms to load.
 * @throws ConfigError (exit 2) naming the path when the directory or file fails the rule,
 * when the file cannot be read, is larger than `CONFIG_MAX_BYTES`, is not JSON, or holds a
 * value of the wrong shape.
 */
export function loadConfigStore(env: EnvVars, warn: (message: string) => void): ConfigStore {
  const path = configFile(env);
  if (!checkConfigDir(configDir(env))) return makeStore(path, false, {});
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFileSync(path, { follow: true, maxBytes: CONFIG_MAX_BYTES });
  } catch (err) {
    if (err instanceof UntrustedPathError) throw refusal('the config file', err);
    if (err instanceof FileTooLargeError) {
      throw new ConfigError(
        `the config file ${path} is larger than ${CONFIG_MAX_BYTES / 1024 / 1024} MiB; it was left untouched`,
        `Fix or remove it by hand; \`petstore config path\` prints its location.`,
      );
    }
    throw new ConfigError(
      `cannot read the config file ${path}: ${describeFileError(err)}`,
      'Fix the file (or point PETSTORE_CONFIG_DIR elsewhere); petstore leaves it as it is.',
    );
  }
  if (bytes === undefined) return makeStore(path, false, {});
  const text = bytes.toString('utf8');
  warnIfShared(path, warn);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const why = text.trim() === '' ? 'the file is empty' : (err as Error).message;
    throw new ConfigError(
      `the config file ${path} is not valid JSON (${why}); it was left untouched`,
      `Fix or remove it by hand; \`petstore config path\` prints its location.`,
    );
  }
  configFileSchema ??= buildConfigFileSchema();
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'the top level' : issue.path.map(String).join('.');
    throw new ConfigError(
      `the config file ${path} holds a value of the wrong shape at ${where}: ${issue?.message ?? 'invalid'}; it was left untouched`,
      `Fix or remove it by hand; \`petstore config path\` prints its location.`,
    );
  }
  return makeStore(path, true, parsed.data);
}

function makeStore(path: string, exists: boolean, data: ConfigFile): ConfigStore {
  return {
    path,
    exists,
    data,
    getSetting: (key) => readSetting(data, key),
    getKey: (name: RemoteEnvName) => {
      const stored = Object.hasOwn(data.auth ?? {}, name) ? data.auth?.[name] : undefined;
      return stored === undefined ? undefined : { key: stored.apiKey, baseUrl: stored.baseUrl };
    },
    remoteNames: () => remoteNames(data),
  };
}

/**
 * The remote environments the file knows: production and staging always, then the names
 * under `environments` or with a stored key, in alphabetical order. A name the file holds
 * that could not be configured (reserved, or of another shape) is not an environment.
 */
function remoteNames(data: ConfigFile): RemoteEnvName[] {
  const configured = new Set([...Object.keys(data.environments ?? {}), ...Object.keys(data.auth ?? {})]);
  const added = [...configured].filter(
    (name) => !(BUILTIN_REMOTES as readonly string[]).includes(name) && isConfigurableName(name),
  );
  return [...BUILTIN_REMOTES, ...added.sort()];
}

/**
 * Where a setting key lives in the file: `environment` and the settings of production and
 * staging where they always were; `NAME.field` of an added environment under
 * `environments.NAME`.
 */
function settingPath(key: string): string {
  const [name = '', ...rest] = key.split('.');
  if (rest.length === 0 || (BUILTIN_REMOTES as readonly string[]).includes(name)) return key;
  return ['environments', name, ...rest].join('.');
}

/**
 * A setting (`environment`, `production.baseUrl`, `staging-eu.baseUrl`) from the file, if it
 * is a string or a boolean (`production.confirmWrites`: `"true"` or `"false"`).
 */
function readSetting(data: ConfigFile, key: string): string | undefined {
  let node: unknown = data;
  for (const part of settingPath(key).split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  if (typeof node === 'boolean') return String(node);
  return typeof node === 'string' ? node : undefined;
}

function warnIfShared(path: string, warn: (message: string) => void): void {
  if (process.platform === 'win32') return;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & SHARED_BITS) !== 0) {
      warn(
        `the config file ${path} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}) and may hold API keys; fix it with: chmod 600 ${path}`,
      );
    }
  } catch {
    // The read that follows reports a file that vanished.
  }
}

/** Writes to the config file; every method writes the whole file atomically (mode 0600). */
export interface ConfigWriter {
  /** What the file held when the writer was opened. */
  readonly store: ConfigStore;
  readonly path: string;
  /** Sets a dotted key (`staging.baseUrl`) to a string, or a boolean (`staging.confirmWrites`). */
  set(key: string, value: string | boolean): void;
  /** Removes a dotted key; parents left empty are removed too. Returns whether it existed. */
  delete(key: string): boolean;
  /** Stores `apiKey` for `name`, bound to `baseUrl`. */
  setKey(name: RemoteEnvName, apiKey: string, baseUrl: string): void;
  /** Removes the key of `name`. Returns whether there was one. */
  deleteKey(name: RemoteEnvName): boolean;
  /**
   * Removes every setting and the stored key of `name`, and the `environment` default when
   * it names it (production is the default again). Returns whether anything was removed.
   */
  removeEnvironment(name: RemoteEnvName): boolean;
}

/** How a writer waits for another writer's lock. */
export interface ConfigLockWait {
  /** The longest wait, in ms: the command's `--timeout` (default 30 s). */
  waitMs: number;
  /** Ctrl-C: stops the wait (nothing is changed). */
  signal?: AbortSignal | undefined;
  /** Told once, after a second of waiting, which process holds the lock. */
  onWait?: ((message: string) => void) | undefined;
}

/** Longest pause between two looks at a held config lock (ms): writers may come by the hundred. */
const CONFIG_LOCK_POLL_MS = 25;

/**
 * Runs `change` with a writer over the config file, holding the config lock from before
 * the file is read until after it is written, so concurrent writers are serialised and
 * none loses another's change. Creates the config directory with mode 0700 (conf would make
 * it 0755); an existing one is used only when it passes ssh's rule (`checkConfigDir`).
 * Temp files of a writer killed mid-write are removed once the lock is held. The lock is
 * petstore's file lock (file-lock.ts): while its holder lives (its process runs on this
 * host, or it keeps the lock's mtime fresh) the writer waits, up to `wait.waitMs`; a lock
 * whose holder is gone (killed, crashed) is taken over at once.
 * @throws ConfigError when the directory fails ssh's rule (nothing is created, changed or
 * run), when the lock cannot be had within `wait.waitMs` (naming the holder;
 * it offers removing the lock only when its holder is known to be gone), as
 * `loadConfigStore` for a broken or refused file (left untouched), or when the directory or
 * file cannot be written; the signal's InterruptedError; whatever `change` throws (nothing is
 * written then).
 */
export async function withConfigWriter<T>(
  env: EnvVars,
  warn: (message: string) => void,
  change: (writer: ConfigWriter) => T | Promise<T>,
  wait: ConfigLockWait = { waitMs: 30_000 },
): Promise<T> {
  const dir = configDir(env);
  await ensurePrivateDir(dir, isDefaultConfigDir(env));
  const file = configFile(env);
  // conf takes ~190 ms to load: not while others wait for the lock.
  const conf = import('conf');
  const { FileLock, LockBusyError, LockFileError } = await import('../fs/file-lock.js');
  const lock = new FileLock(file);
  try {
    return await lock.run(
      {
        deadline: Date.now() + wait.waitMs,
        signal: wait.signal,
        onWait: wait.onWait,
        pollMaxMs: CONFIG_LOCK_POLL_MS,
      },
      async () => change(await openConfigWriter(env, dir, warn, (await conf).default)),
    );
  } catch (err) {
    if (err instanceof LockBusyError) throw lockBusy(file, err.holder, wait.waitMs, lock.holderGone());
    if (err instanceof LockFileError) {
      throw new ConfigError(
        `cannot lock the config file ${file}: ${describeFileError(err.cause)}; nothing was changed`,
      );
    }
    if (wait.signal?.aborted === true) throw InterruptedError.from(wait.signal);
    throw err;
  } finally {
    await lock.close();
  }
}

/** The error of a lock still held at the deadline; removal is offered only when its holder is gone. */
function lockBusy(file: string, holder: string | undefined, waitMs: number, gone: boolean): ConfigError {
  const who = holder === undefined ? 'another petstore command' : `another petstore command (${holder})`;
  return new ConfigError(
    `${who} has been writing the config file ${file} for more than ${waitMs / 1000} s; nothing was changed`,
    gone
      ? `Its process is gone, yet its lock could not be taken over: remove ${file}.lock and try again.`
      : 'Try again once it has finished, or give it longer with --timeout SECONDS.',
  );
}

/**
 * Opens the config file for writing through conf (loaded by the caller, lazily), after validating
 * it with the read path, so a broken file is reported and never touched. Call it only
 * while holding the config lock.
 * @throws ConfigError as `loadConfigStore`.
 */
async function openConfigWriter(
  env: EnvVars,
  dir: string,
  warn: (message: string) => void,
  ConfClass: typeof Conf,
): Promise<ConfigWriter> {
  const store = loadConfigStore(env, warn);
  await removeStaleTemps(store.path);
  let conf: Conf;
  try {
    conf = new ConfClass({
      projectName: 'petstore',
      projectSuffix: '',
      cwd: dir,
      configName: 'config',
      configFileMode: 0o600,
      // Never reset a file we cannot parse: report it and leave every byte in place.
      clearInvalidConfig: false,
    });
  } catch (err) {
    // The file changed between our check and conf's read (another petstore writing it).
    throw new ConfigError(
      `the config file ${store.path} cannot be read: ${(err as Error).message}; it was left untouched`,
    );
  }
  const wrap = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      throw new ConfigError(`cannot write the config file ${conf.path}: ${describeFileError(err)}`);
    }
  };
  const remove = (key: string): boolean =>
    wrap(() => {
      if (!conf.has(key)) return false;
      conf.delete(key);
      // `conf.delete('staging.baseUrl')` leaves `staging: {}` behind; drop empty parents.
      const parts = key.split('.');
      for (let i = parts.length - 1; i > 0; i--) {
        const parent = parts.slice(0, i).join('.');
        const value = conf.get(parent);
        if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) conf.delete(parent);
        else break;
      }
      return true;
    });
  return {
    store,
    path: conf.path,
    set: (key, value) => wrap(() => conf.set(settingPath(key), value)),
    delete: (key) => remove(settingPath(key)),
    setKey: (name, apiKey, baseUrl) => wrap(() => conf.set(`auth.${name}`, { apiKey, baseUrl })),
    deleteKey: (name) => remove(`auth.${name}`),
    removeEnvironment: (name) => {
      const settings = remove(settingPath(`${name}.x`).replace(/\.x$/, ''));
      const key = remove(`auth.${name}`);
      const isDefault = store.getSetting('environment') === name && remove('environment');
      return settings || key || isDefault;
    },
  };
}

/**
 * Makes sure `dir` exists with mode 0700. A folder created here, or petstore's own default
 * folder (`…/petstore`), is tightened to 0700; a folder that `PETSTORE_CONFIG_DIR` names and
 * that already existed is the user's and keeps its mode. Either must pass ssh's rule first:
 * a folder another user owns or may write to is refused, never tightened (root could).
 * @throws ConfigError as `checkConfigDir`, or when the folder cannot be created.
 */
async function ensurePrivateDir(dir: string, isDefaultDir: boolean): Promise<void> {
  let created: string | undefined;
  try {
    created = await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ConfigError(`cannot create the config directory ${dir}: ${describeFileError(err)}`);
  }
  checkConfigDir(dir);
  if (process.platform === 'win32' || (created === undefined && !isDefaultDir)) return;
  try {
    // mkdir's mode is filtered by the umask, and an older folder may be 0755: fix both.
    if (((await fsp.stat(dir)).mode & 0o777) !== 0o700) await fsp.chmod(dir, 0o700);
  } catch {
    // Not ours to change (another owner): the file itself is still written 0600.
  }
}

/**
 * Whether `name` is the name conf's atomic writes (the `atomically` package) give their temp
 * file beside a file named `of`: `<of>.tmp-` then 10 digits of the clock and 6 hex digits
 * of randomness.
 */
function isTempNameOf(name: string, of: string): boolean {
  const prefix = `${of}.tmp-`;
  return name.startsWith(prefix) && /^\d{10}[0-9a-f]{6}$/.test(name.slice(prefix.length));
}

/**
 * Removes the temp files a config writer killed between writing and renaming left behind
 * (`config.json.tmp-…`, mode 0600, keys in them; kill -9 skips conf's own clean-up). Call
 * it only under the config lock, after `loadConfigStore` accepted the file: no other writer
 * is then between its write and its rename. Looks beside the file and, when it is a link,
 * beside its target (where conf writes). Only regular files of conf's naming that this user
 * owns are removed; failures are ignored (the write goes ahead; the next writer tries again).
 */
async function removeStaleTemps(file: string): Promise<void> {
  const places = new Set([file, await fsp.realpath(file).catch(() => file)]);
  const euid = process.geteuid?.();
  for (const place of places) {
    const dir = dirname(place);
    const of = basename(place);
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => isTempNameOf(n, of))) {
      const path = join(dir, name);
      try {
        const st = await fsp.lstat(path);
        if (st.isFile() && (euid === undefined || st.uid === euid)) await fsp.unlink(path);
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }
}

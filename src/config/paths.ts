/**
 * Where petstore keeps its files (cli-contract.md "The config file"). Only `config/` reads
 * the environment.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvVars } from './env.js';

/**
 * The config directory: `PETSTORE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/petstore`, else
 * `~/.config/petstore` (XDG Base Directory spec; no `-nodejs` suffix).
 */
export function configDir(env: EnvVars): string {
  return (
    env.get('PETSTORE_CONFIG_DIR') ??
    join(env.get('XDG_CONFIG_HOME') ?? join(env.get('HOME') ?? homedir(), '.config'), 'petstore')
  );
}

/** Whether the config directory is petstore's own default one (not named by `PETSTORE_CONFIG_DIR`). */
export function isDefaultConfigDir(env: EnvVars): boolean {
  return !env.isSet('PETSTORE_CONFIG_DIR');
}

/** The config file, `config.json` in the config directory. */
export function configFile(env: EnvVars): string {
  return join(configDir(env), 'config.json');
}

/** The sandbox's data file, `sandbox.json` in the config directory. */
export function sandboxDataFile(env: EnvVars): string {
  return join(configDir(env), 'sandbox.json');
}

/**
 * petstore's state directory, for what it remembers between runs (records of bulk runs):
 * `PETSTORE_STATE_DIR`, else `$XDG_STATE_HOME/petstore` (when absolute), else
 * `~/.local/state/petstore` (XDG Base Directory spec: "state data that should persist
 * between restarts", not important or portable enough for the config directory).
 */
export function stateDirectory(env: EnvVars): string {
  return (
    env.get('PETSTORE_STATE_DIR') ??
    join(env.get('XDG_STATE_HOME') ?? join(env.get('HOME') ?? homedir(), '.local', 'state'), 'petstore')
  );
}

/**
 * The directory for temporary files: `TMPDIR` of the run's environment when it is an
 * absolute path, else the system's (as `os.tmpdir()` decides for the process); with the
 * words that say where it came from, for messages.
 */
export function tempDirectory(env: EnvVars): { path: string; from: string } {
  const dir = env.get('TMPDIR');
  return dir !== undefined
    ? { path: dir.replace(/(.)\/+$/, '$1'), from: 'TMPDIR' }
    : { path: tmpdir(), from: "the system's temporary directory" };
}

/** Where a bulk create keeps its files (`bulkPlaces`). */
export interface BulkPlaces {
  /** The directory of the spool of input read once (`tempDirectory`). */
  temp: { path: string; from: string };
  /** The directory of the records of bulk runs (`stateDirectory`). */
  state: string;
  /** The sandbox's data file, which names the sandbox a run sends to (`sandboxDataFile`). */
  sandboxData: string;
}

/** The places of a bulk create's files, resolved once from the run's environment. */
export function bulkPlaces(env: EnvVars): BulkPlaces {
  return { temp: tempDirectory(env), state: stateDirectory(env), sandboxData: sandboxDataFile(env) };
}
}

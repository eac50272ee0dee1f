/**
 * Where petstore keeps its files (cli-contract.md "The config file"). Only `config/` reads
 * the environment.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvVars } from './env.js';

/**
 * Where petstore's folders are, by the rules of `configDir` and `BulkPlaces`, from one
 * reading of the variables that decide it.
 */
function placesOf(env: EnvVars): { config: string; state: string; temp: { path: string; from: string } } {
  const home = env.get('HOME') ?? homedir();
  const configDir = env.get('PETSTORE_CONFIG_DIR');
  const xdgConfig = env.get('XDG_CONFIG_HOME');
  const stateDir = env.get('PETSTORE_STATE_DIR');
  const xdgState = env.get('XDG_STATE_HOME');
  const tmp = env.get('TMPDIR');
  return {
    config: configDir ?? join(xdgConfig ?? join(home, '.config'), 'petstore'),
    state: stateDir ?? join(xdgState ?? join(home, '.local', 'state'), 'petstore'),
    temp:
      tmp !== undefined
        ? { path: tmp.replace(/(.)\/+$/, '$1'), from: 'TMPDIR' }
        : { path: tmpdir(), from: "the system's temporary directory" },
  };
}

/**
 * The config directory: `PETSTORE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/petstore`, else
 * `~/.config/petstore` (XDG Base Directory spec; no `-nodejs` suffix).
 */
export function configDir(env: EnvVars): string {
  return placesOf(env).config;
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

/** Where a bulk create keeps its files (`bulkPlaces`). */
export interface BulkPlaces {
  /**
   * The directory of the spool of input read once, the directory for temporary files:
   * `TMPDIR` of the run's environment when it is an absolute path, else the system's (as
   * `os.tmpdir()` decides for the process); with the words that say where it came from,
   * for messages.
   */
  temp: { path: string; from: string };
  /**
   * The directory of the records of bulk runs, petstore's state directory (what it
   * remembers between runs): `PETSTORE_STATE_DIR`, else `$XDG_STATE_HOME/petstore` (when
   * absolute), else `~/.local/state/petstore` (XDG Base Directory spec: "state data that
   * should persist between restarts", not important or portable enough for the config
   * directory).
   */
  state: string;
  /** The sandbox's data file, which names the sandbox a run sends to (`sandboxDataFile`). */
  sandboxData: string;
}

/** The places of a bulk create's files, resolved once from the run's environment. */
export function bulkPlaces(env: EnvVars): BulkPlaces {
  const { config, state, temp } = placesOf(env);
  return { temp, state, sandboxData: join(config, 'sandbox.json') };
}

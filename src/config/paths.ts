/**
 * Where petstore keeps its files (cli-contract.md "The config file"). Only `config/` reads
 * the environment.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The config directory: `PETSTORE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/petstore`, else
 * `~/.config/petstore` (XDG Base Directory spec; no `-nodejs` suffix).
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PETSTORE_CONFIG_DIR !== undefined && env.PETSTORE_CONFIG_DIR !== '') return env.PETSTORE_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg.startsWith('/') ? xdg : join(env.HOME ?? homedir(), '.config');
  return join(base, 'petstore');
}

/** The config file, `config.json` in the config directory. */
export function configFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

/** The sandbox's data file, `sandbox.json` in the config directory. */
export function sandboxDataFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'sandbox.json');
}

/**
 * petstore's state directory, for what it remembers between runs (records of bulk runs):
 * `PETSTORE_STATE_DIR`, else `$XDG_STATE_HOME/petstore` (when absolute), else
 * `~/.local/state/petstore` (XDG Base Directory spec: "state data that should persist
 * between restarts", not important or portable enough for the config directory).
 */
export function stateDirectory(env: NodeJS.ProcessEnv): string {
  if (env.PETSTORE_STATE_DIR !== undefined && env.PETSTORE_STATE_DIR !== '') return env.PETSTORE_STATE_DIR;
  const xdg = env.XDG_STATE_HOME;
  return xdg !== undefined && xdg.startsWith('/')
    ? join(xdg, 'petstore')
    : join(env.HOME ?? homedir(), '.local', 'state', 'petstore');
}

/**
 * The directory for temporary files: `TMPDIR` of the run's environment when it is an
 * absolute path, else the system's (as `os.tmpdir()` decides for the process); with the
 * words that say where it came from, for messages.
 */
export function tempDirectory(env: NodeJS.ProcessEnv): { path: string; from: string } {
  const dir = env.TMPDIR;
  return dir !== undefined && dir.startsWith('/')
    ? { path: dir.replace(/(.)\/+$/, '$1'), from: 'TMPDIR' }
    : { path: tmpdir(), from: "the system's temporary directory" };
}

/** Where a bulk create keeps its files (`placesOf`). */
export interface BulkPlaces {
  /** The directory of the spool of input read once (`tempDirectory`). */
  temp: { path: string; from: string };
  /** The directory of the records of bulk runs (`stateDirectory`). */
  state: string;
  /** The sandbox's data file, which names the sandbox a run sends to (`sandboxDataFile`). */
  sandboxData: string;
}

/** The places of a bulk create's files, resolved once from the run's environment. */
export function bulkPlaces(env: NodeJS.ProcessEnv): BulkPlaces {
  return { temp: tempDirectory(env), state: stateDirectory(env), sandboxData: sandboxDataFile(env) };
}

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
 * The directory for temporary files: `TMPDIR` of the run's environment when it is an
 * absolute path, else the system's (as `os.tmpdir()` decides for the process).
 */
export function tempDirectory(env: NodeJS.ProcessEnv): string {
  const dir = env.TMPDIR;
  return dir !== undefined && dir.startsWith('/') ? dir.replace(/(.)\/+$/, '$1') : tmpdir();
}

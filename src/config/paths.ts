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
 * The directory for temporary files: `TMPDIR` of the run's environment when it is an
 * absolute path, else the system's (as `os.tmpdir()` decides for the process).
 */
export function tempDirectory(env: EnvVars): string {
  return env.get('TMPDIR')?.replace(/(.)\/+$/, '$1') ?? tmpdir();
}

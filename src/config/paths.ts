/**
 * Where petstore keeps its files (cli-contract.md "The config file"). Only `config/` reads
 * the environment.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvVars } from './env.js';

/**
 * Where petstore's folders are, from one reading of the variables that decide them:
 * `config` (`configDir`), `state` (`PETSTORE_STATE_DIR`, else `$XDG_STATE_HOME/petstore`,
 * else `~/.local/state/petstore`) and `temp` (`TMPDIR`, else the system's), with the words
 * that say where `temp` came from; and the sandbox's data file in `config`
 * (`sandboxDataFile`).
 */
export function placesOf(env: EnvVars): {
  config: string;
  state: string;
  temp: { path: string; from: string };
  sandboxData: string;
} {
  const home = env.get('HOME') ?? homedir();
  const configDir = env.get('PETSTORE_CONFIG_DIR');
  const xdgConfig = env.get('XDG_CONFIG_HOME');
  const stateDir = env.get('PETSTORE_STATE_DIR');
  const xdgState = env.get('XDG_STATE_HOME');
  const tmp = env.get('TMPDIR');
  const config = configDir ?? join(xdgConfig ?? join(home, '.config'), 'petstore');
  return {
    config,
    state: stateDir ?? join(xdgState ?? join(home, '.local', 'state'), 'petstore'),
    temp:
      tmp !== undefined
        ? { path: tmp.replace(/(.)\/+$/, '$1'), from: 'TMPDIR' }
        : { path: tmpdir(), from: "the system's temporary directory" },
    sandboxData: join(config, 'sandbox.json'),
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
  return placesOf(env).sandboxData;
}

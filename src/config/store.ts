/**
 * The config store (cli-contract.md "The config file"). Placeholder until the stored
 * settings and keys land: reads nothing and reports the path it would use.
 */
import { configFile } from './paths.js';
import type { ConfigReader } from './settings.js';

/** Loads the config store of this environment. */
export async function loadConfigStore(env: NodeJS.ProcessEnv, _warn: (message: string) => void): Promise<ConfigReader> {
  const path = configFile(env);
  return { path, getSetting: () => undefined, getKey: () => undefined };
}

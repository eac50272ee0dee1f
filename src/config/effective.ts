/**
 * What a command would use right now for a remote environment, and where each value comes
 * from, without failing on what is missing: the view behind `auth status` and `config list`.
 * The rules are those of `settings.ts` (cli-contract.md "Environments"): `--base-url` and
 * `PETSTORE_BASE_URL` apply to the selected environment only, as does `PETSTORE_API_KEY`;
 * a stored key counts only for the base URL it was stored for.
 */
import { checkBaseUrl, type ConfigReader, type Resolved } from './settings.js';
import type { RemoteEnvName } from './store.js';

/** One remote environment as a command would see it. */
export interface RemoteStatus {
  name: RemoteEnvName;
  selected: boolean;
  /** The effective base URL; undefined when none is configured or the file's is invalid. */
  baseUrl: Resolved<string> | undefined;
  /** Why the file's base URL is not used, when it is invalid. */
  baseUrlProblem?: string;
  key: {
    /** Where the key a command would send comes from (`none`: it would fail with exit 4). */
    source: 'env' | 'file' | 'none';
    /** The key a command would send (env or stored); never print it unmasked. */
    value: string | undefined;
    /** The stored key and the base URL it was stored for, if any. */
    stored: { key: string; baseUrl: string } | undefined;
    /** Whether that key would be sent to the effective base URL. */
    usable: boolean;
  };
}

/**
 * Describes `name` as a command would resolve it.
 * @throws UsageError for a bad `--base-url` or `PETSTORE_BASE_URL` (selected environment only).
 */
export function describeRemote(
  name: RemoteEnvName,
  selected: boolean,
  flagBaseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  store: ConfigReader,
): RemoteStatus {
  let baseUrl: Resolved<string> | undefined;
  let baseUrlProblem: string | undefined;
  if (selected && flagBaseUrl !== undefined) {
    baseUrl = { value: checkBaseUrl(flagBaseUrl, '--base-url'), source: 'flag', from: '--base-url' };
  } else if (selected && env.PETSTORE_BASE_URL !== undefined && env.PETSTORE_BASE_URL !== '') {
    baseUrl = {
      value: checkBaseUrl(env.PETSTORE_BASE_URL, 'PETSTORE_BASE_URL'),
      source: 'env',
      from: 'PETSTORE_BASE_URL',
    };
  } else {
    const raw = store.getSetting(`${name}.baseUrl`);
    if (raw !== undefined) {
      try {
        baseUrl = { value: checkBaseUrl(raw, `${name}.baseUrl`), source: 'file', from: `${name}.baseUrl` };
      } catch (err) {
        baseUrlProblem = (err as Error).message;
      }
    }
  }
  const storedRaw = store.getKey(name);
  const stored = storedRaw === undefined ? undefined : { key: storedRaw.key, baseUrl: storedRaw.baseUrl ?? '' };
  const envKey = env.PETSTORE_API_KEY;
  let key: RemoteStatus['key'];
  if (selected && envKey !== undefined && envKey !== '') {
    key = { source: 'env', value: envKey, stored, usable: true };
  } else if (stored !== undefined) {
    key = {
      source: 'file',
      value: stored.key,
      stored,
      usable: baseUrl !== undefined && stored.baseUrl === baseUrl.value,
    };
  } else {
    key = { source: 'none', value: undefined, stored: undefined, usable: false };
  }
  return { name, selected, baseUrl, ...(baseUrlProblem === undefined ? {} : { baseUrlProblem }), key };
}

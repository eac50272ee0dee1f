/**
 * Network settings that come from the environment (cli-contract.md "Network behaviour"):
 * the proxy variables, read in either case as curl and undici do (lowercase wins).
 */
import type { EnvVars } from './env.js';

/** The proxy variables' values; undefined when unset or empty. */
export interface ProxyEnv {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

/** Reads `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (lower case first) through the registry. */
export function proxyFromEnv(env: EnvVars): ProxyEnv {
  return {
    httpProxy: env.get('HTTP_PROXY'),
    httpsProxy: env.get('HTTPS_PROXY'),
    noProxy: env.get('NO_PROXY'),
  };
}

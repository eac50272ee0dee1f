/**
 * Network settings that come from the environment (cli-contract.md "Network behaviour"):
 * the proxy variables, read in either case as curl and undici do (lowercase wins), each
 * with the name it was found under, so a message can name the variable the user set.
 */
import type { EnvVars } from './env.js';

/** A proxy variable as spelled in the environment, and its value. */
interface ProxyVariableEnv {
  name: string;
  value: string;
}

/** The proxy variables; undefined when unset or empty. */
export interface ProxyEnv {
  httpProxy: ProxyVariableEnv | undefined;
  httpsProxy: ProxyVariableEnv | undefined;
  noProxy: ProxyVariableEnv | undefined;
}

/** Reads `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (lower case first) through the registry. */
export function proxyFromEnv(env: EnvVars): ProxyEnv {
  const read = (found: { name: string; text: string } | undefined): ProxyVariableEnv | undefined =>
    found === undefined ? undefined : { name: found.name, value: found.text };
  return {
    httpProxy: read(env.source('HTTP_PROXY')),
    httpsProxy: read(env.source('HTTPS_PROXY')),
    noProxy: read(env.source('NO_PROXY')),
  };
}

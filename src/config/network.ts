/**
 * Network settings that come from the environment (cli-contract.md "Network behaviour"):
 * the proxy variables, read in either case as curl and undici do (lowercase wins).
 */

/** The proxy variables' values; undefined when unset or empty. */
export interface ProxyEnv {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

function first(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** Reads `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (lowercase first) from `env`. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxyEnv {
  return {
    httpProxy: first(env, ['http_proxy', 'HTTP_PROXY']),
    httpsProxy: first(env, ['https_proxy', 'HTTPS_PROXY']),
    noProxy: first(env, ['no_proxy', 'NO_PROXY']),
  };
}

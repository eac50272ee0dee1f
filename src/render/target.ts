/**
 * How the server a command talks to is named to a person (cli-contract.md "Environments":
 * the environment and its host, on the banner of every command that talks to a remote
 * environment and in the summary line of every write). One function, so the banner and
 * every summary name a target the same way. Pure.
 */

/**
 * What names a target: the environment's name and its base URL (a `Connection` has both),
 * and where the URL and key came from (`source: 'env'`: a variable, named by `from`).
 */
export interface TargetOf {
  environment: { value: string };
  baseUrl: { value: string; source?: string; from?: string };
  apiKey?: { source: string; from: string };
}

/**
 * The target as `production (api.example.com)`: the environment's name, then the base
 * URL's host (with its port when not the scheme's default). The host, not the whole base
 * URL: it is what a person recognises at a glance, the scheme and the `/v1` path are the
 * same for every environment, and the name beside it tells apart two environments on one
 * host. The sandbox is `sandbox` alone: its 127.0.0.1 port changes every run and says
 * nothing. Any other name is remote, whatever it is (environments are named by users).
 * A host never carries a URL's credentials (base URLs have none anyway: `checkBaseUrl`).
 */
export function describeTarget({ environment, baseUrl, apiKey }: TargetOf): string {
  if (environment.value === 'sandbox') return 'sandbox';
  return `${environment.value} (${hostOf(baseUrl.value)}${variables(baseUrl, apiKey)})`;
}

/**
 * `, from PETSTORE_BASE_URL` when the URL came from a variable, `, key from
 * PETSTORE_API_KEY` when the key did, both as `, from PETSTORE_BASE_URL and
 * PETSTORE_API_KEY` (cli-contract.md "Environments": the banner and write summaries say
 * when the URL or key came from a variable: the configured name no longer says where the
 * write goes). Empty otherwise.
 */
function variables(baseUrl: TargetOf['baseUrl'], apiKey: TargetOf['apiKey']): string {
  const url = baseUrl.source === 'env' ? baseUrl.from : undefined;
  const key = apiKey?.source === 'env' ? apiKey.from : undefined;
  if (url !== undefined && key !== undefined) return `, from ${url} and ${key}`;
  if (url !== undefined) return `, from ${url}`;
  return key === undefined ? '' : `, key from ${key}`;
}

/**
 * The host of `url`. A value without one (never a checked base URL) shows what stands where
 * a host would, with nothing before an `@` (credentials) and nothing after the first `/`.
 */
function hostOf(url: string): string {
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    // Shown as best it can be below.
  }
  if (host !== '') return host;
  return url
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/^.*@/, '')
    .replace(/\/.*$/, '');
}

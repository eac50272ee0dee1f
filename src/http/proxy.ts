/**
 * Proxies (cli-contract.md "Network behaviour"): which request goes through which proxy,
 * the proxy variables read as curl and Go read them, and a proxy's failures told apart from
 * the API's.
 *
 * - `HTTPS_PROXY` for https:// URLs, `HTTP_PROXY` for http:// ones, with no fallback from one
 *   to the other (curl and Go alike; undici's EnvHttpProxyAgent falls back, so it is not used).
 * - `NO_PROXY`: host names and domains separated by commas or spaces (`example.com` and
 *   `.example.com` both cover the domain's hosts), each optionally `:PORT`, or `*` for every
 *   host (curl's rules, without its CIDR ranges).
 * - A loopback host (`loopback.ts`) is never proxied, whatever NO_PROXY says: a key sent in
 *   clear to 127.0.0.1 must not cross a proxy, nor reach the proxy host's own loopback.
 * - A proxy URL without a scheme is read as http:// (curl's and Go's habit); one that still
 *   does not parse, or has another scheme than http or https, is a UsageError (exit 2)
 *   naming its variable, the password masked. It is checked when a request would use it, so
 *   a broken variable does not stop a run that needs no proxy.
 * - Whatever fails before the tunnel is open (the proxy unreachable, an answer to CONNECT
 *   other than 200, the connection closed) is raised as a `ProxyFailure` from the proxy
 *   client's `connect`, which failures.ts reports as a ProxyError. undici 7 redials a proxy
 *   that closes every CONNECT in a tight loop, since a socket error there looks recoverable
 *   to it (nodejs/undici#3897, fixed in undici 8, which needs Node 22); this error does not,
 *   so the request fails at once and the retry policy decides.
 */
import { UsageError } from '../base/errors.js';
import { isLoopbackHost } from '../base/loopback.js';
import { maskUrl } from '../base/mask.js';
import type { Dispatcher, ProxyClasses } from './undici.js';

/** A proxy variable as the environment spells it (`https_proxy` or `HTTPS_PROXY`) and its value. */
export interface ProxyVariable {
  name: string;
  value: string;
}

/** The proxy variables of a run; a missing one is unset (or empty). */
export interface ProxySettings {
  httpProxy?: ProxyVariable | undefined;
  httpsProxy?: ProxyVariable | undefined;
  noProxy?: ProxyVariable | undefined;
}

/** Where a request goes: through a proxy, or directly and why (for `--verbose`). */
export type Route = { via: ProxyVariable } | { direct: string };

/**
 * Raised by the proxy client while a tunnel is being opened: the proxy could not be reached
 * or failed (`cause`), or answered CONNECT with `status`. Nothing reached the API.
 */
export class ProxyFailure extends Error {
  /** Not one of undici's codes, so undici fails the request instead of redialling. */
  readonly code = 'PETSTORE_PROXY';

  constructor(
    /** The proxy's URL (may hold credentials: show it only through `maskUrl`). */
    readonly proxy: URL,
    /** The variable it came from, as spelled. */
    readonly variable: string,
    /** The proxy's answer to CONNECT, when it answered. */
    readonly status: number | undefined,
    cause?: unknown,
  ) {
    super(
      status === undefined ? `proxy ${maskUrl(proxy.href)} failed` : `proxy ${maskUrl(proxy.href)} answered ${status}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'ProxyFailure';
  }
}

/**
 * Reads a proxy variable's value as a URL: without a scheme it is `http://`.
 * @throws UsageError (exit 2) naming the variable, the value's credentials masked, when it
 * does not parse or its scheme is not http or https.
 */
export function parseProxyUrl(variable: ProxyVariable): URL {
  const text = variable.value.trim();
  const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  // Masked as read: `bob:pa/ss@host` alone would parse as a URL of scheme `bob:`.
  const shown = JSON.stringify(maskUrl(full));
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    throw new UsageError(
      `invalid ${variable.name} ${shown}: not a URL (expected http://[USER:PASSWORD@]HOST:PORT); nothing was sent`,
      'In the user name and password, write / as %2F, : as %3A and @ as %40.',
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new UsageError(
      `invalid ${variable.name} ${shown}: petstore reaches a proxy over http:// or https:// only; nothing was sent`,
    );
  }
  return url;
}

/** Whether NO_PROXY's `list` covers `url` (curl's rules; see the module comment). */
export function noProxyCovers(list: string, url: URL): boolean {
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const port = Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port);
  for (const raw of list.toLowerCase().split(/[\s,]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    // `[::1]:8080`, `::1`, `host:8080`, `host`
    const m = /^\[([^\]]*)\](?::(\d+))?$/.exec(raw) ?? (raw.split(':').length === 2 ? /^(.*):(\d+)$/.exec(raw) : null);
    const name = (m?.[1] ?? raw).replace(/^\*?\./, '').replace(/\.$/, '');
    const only = m?.[2];
    if (only !== undefined && Number(only) !== port) continue;
    if (name !== '' && (host === name || host.endsWith(`.${name}`))) return true;
  }
  return false;
}

/** How a request to `url` is routed under `settings` (see the module comment). */
export function routeFor(url: URL, settings: ProxySettings): Route {
  if (isLoopbackHost(url.hostname)) return { direct: `${url.hostname} is a loopback host` };
  const https = url.protocol === 'https:';
  const via = https ? settings.httpsProxy : settings.httpProxy;
  if (via === undefined) {
    return { direct: https ? 'HTTPS_PROXY is not set (HTTP_PROXY is for http:// URLs)' : 'HTTP_PROXY is not set' };
  }
  const noProxy = settings.noProxy;
  if (noProxy !== undefined && noProxyCovers(noProxy.value, url)) {
    return { direct: `${noProxy.name} covers ${url.hostname}` };
  }
  return { via };
}

/**
 * The dispatchers of a run with proxies: the direct one, and one ProxyAgent per proxy URL,
 * made when a request first needs it. Each decision is logged once per origin.
 */
export class ProxyRouter {
  private readonly agents = new Map<string, Dispatcher>();
  private readonly logged = new Set<string>();

  /**
   * @param agentOptions the options of the direct Agent, also given to each ProxyAgent.
   * @param note `--verbose`'s note line, when it is on.
   */
  constructor(
    private readonly settings: ProxySettings,
    private readonly classes: ProxyClasses,
    private readonly direct: Dispatcher,
    private readonly agentOptions: Record<string, unknown>,
    private readonly note: ((line: string) => void) | undefined,
  ) {}

  /**
   * The dispatcher for a request to `url`.
   * @throws UsageError when the proxy it needs is not a URL (`parseProxyUrl`).
   */
  dispatcherFor(url: URL): Dispatcher {
    const route = routeFor(url, this.settings);
    const proxy = 'via' in route ? parseProxyUrl(route.via) : undefined;
    if (!this.logged.has(url.origin)) {
      this.logged.add(url.origin);
      this.note?.('via' in route ? `${route.via.name} ${maskUrl(proxy?.href ?? '')}` : `not proxied: ${route.direct}`);
    }
    if ('direct' in route || proxy === undefined) return this.direct;
    let agent = this.agents.get(proxy.href);
    if (agent === undefined) {
      agent = new this.classes.ProxyAgent({
        ...this.agentOptions,
        uri: proxy.href,
        clientFactory: (origin, options) => this.tunnelClient(origin, options, proxy, route.via.name),
      });
      this.agents.set(proxy.href, agent);
    }
    return agent;
  }

  /** Closes the proxy agents (the direct one is the caller's). */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.destroy().catch(() => undefined)));
  }

  /**
   * The client a ProxyAgent talks to the proxy through: a Pool whose `connect` (the CONNECT
   * request that opens a tunnel) raises a ProxyFailure for anything but a 200.
   */
  private tunnelClient(origin: string | URL, options: object, proxy: URL, variable: string): Dispatcher {
    const pool = new this.classes.Pool(origin, options);
    // Bound before `connect` is replaced below.
    const connect: (opts: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData> = pool.connect.bind(pool);
    const tunnel = async (opts: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> => {
      let data: Dispatcher.ConnectData;
      try {
        data = await connect(opts);
      } catch (err) {
        throw new ProxyFailure(proxy, variable, undefined, err);
      }
      if (data.statusCode !== 200) {
        data.socket.on('error', () => undefined).destroy();
        throw new ProxyFailure(proxy, variable, data.statusCode);
      }
      return data;
    };
    return Object.assign(pool, { connect: tunnel });
  }
}

/**
 * The parts of undici petstore uses, imported by path: `import 'undici'` loads fetch,
 * WebSocket, the cache and more (~90 ms measured here) where the agent and `request`
 * cost ~30 ms. Everything HTTP goes through these.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import type { Dispatcher, Pool, ProxyAgent } from 'undici';

export { Agent };
export type { Dispatcher };

/** undici's `request` bound to a dispatcher (undici docs, "Dispatcher.request"). */
export function request(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, opts);
}

/** The proxy classes, loaded only when a proxy variable is set. */
export interface ProxyClasses {
  ProxyAgent: typeof ProxyAgent;
  Pool: typeof Pool;
}

/**
 * undici's ProxyAgent and the Pool it talks to the proxy through, loaded only when a proxy
 * variable is set (they pull in the proxy, pool and SOCKS code). Tunnels call
 * `Dispatcher#connect`, which undici's index.js installs on the prototype and this
 * path-by-path import must install itself.
 */
export async function loadProxyClasses(): Promise<ProxyClasses> {
  const [{ default: ProxyAgentClass }, { default: PoolClass }, { default: DispatcherClass }, { default: apiConnect }] =
    await Promise.all([
      import('undici/lib/dispatcher/proxy-agent.js'),
      import('undici/lib/dispatcher/pool.js'),
      import('undici/lib/dispatcher/dispatcher.js'),
      import('undici/lib/api/api-connect.js'),
    ]);
  const proto = DispatcherClass.prototype as { connect?: unknown };
  proto.connect ??= apiConnect;
  return { ProxyAgent: ProxyAgentClass, Pool: PoolClass };
}

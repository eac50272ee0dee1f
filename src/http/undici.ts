/**
 * The parts of undici petstore uses, imported by path: `import 'undici'` loads fetch,
 * WebSocket, the cache and more (~90 ms measured here) where the agent and `request`
 * cost ~30 ms. Everything HTTP goes through these.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import type { Dispatcher, EnvHttpProxyAgent } from 'undici';

export { Agent };
export type { Dispatcher };

/** undici's `request` bound to a dispatcher (undici docs, "Dispatcher.request"). */
export function request(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, opts);
}

/**
 * undici's EnvHttpProxyAgent, loaded only when a proxy variable is set (it pulls in the
 * proxy, pool and SOCKS code). Its tunnels call `Dispatcher#connect`, which undici's
 * index.js installs on the prototype and this path-by-path import must install itself.
 */
export async function loadEnvHttpProxyAgent(): Promise<typeof EnvHttpProxyAgent> {
  const [{ default: ProxyAgentClass }, { default: DispatcherClass }, { default: apiConnect }] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/api-connect.js'),
  ]);
  const proto = DispatcherClass.prototype as { connect?: unknown };
  proto.connect ??= apiConnect;
  return ProxyAgentClass;
}

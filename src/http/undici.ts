/**
 * The parts of undici petstore uses, imported by path: `import 'undici'` loads fetch,
 * WebSocket, the cache and more (~90 ms measured here) where the agent and `request`
 * cost ~30 ms. Everything HTTP goes through these.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import createRetryInterceptor from 'undici/lib/interceptor/retry.js';
import type { Dispatcher, RetryHandler } from 'undici';

export { Agent, createRetryInterceptor };
export type { Dispatcher, RetryHandler };

/** undici's `request` bound to a dispatcher (undici docs, "Dispatcher.request"). */
export function request(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, opts);
}

// Types for the undici modules imported by path (src/http/undici.ts): the package has no
// `exports` map, and loading only these parts keeps fetch, WebSocket and the cache off the
// start-up path. The shapes are undici's own public types.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/interceptor/retry.js' {
  import type { Dispatcher, RetryHandler } from 'undici';
  function createRetryInterceptor(opts?: RetryHandler.RetryOptions): Dispatcher.DispatcherComposeInterceptor;
  export default createRetryInterceptor;
}

/**
 * The HTTP transport: one undici Agent (kept-alive connection) per CLI run, the bearer key,
 * and the send loop: each attempt, the retry policy's decision after a failed one
 * (retry.ts), same-origin redirects (redirect.ts), all within one deadline (deadline.ts);
 * proxies from HTTPS_PROXY/HTTP_PROXY/NO_PROXY, never for a loopback host (proxy.ts),
 * `localhost` on every loopback address (lookup.ts); the body read within its cap and
 * decoded (body.ts); failures in the contract's terms (failures.ts) (cli-contract.md
 * "Network behaviour").
 *
 * It never prints, except through the `log` callback that `--verbose` supplies (verbose.ts),
 * and it never lets the key (or a proxy's password) reach that log.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ConfigError, InvalidResponseError, NetworkError, type RefusedWait } from '../base/errors.js';
import { parseJson } from '../base/json.js';
import { isSendableKey, usedKeys } from '../base/mask.js';
import { decodeContent, jsonText, readBody } from './body.js';
import { Deadline } from './deadline.js';
import { describeFailure, findErrorCode } from './failures.js';
import { requestIdOf } from './headers.js';
import { lookupWithLoopback } from './lookup.js';
import { ProxyRouter, type ProxySettings } from './proxy.js';
import type { KeySource } from './key-refresh.js';
import { isRedirect, redirectTarget, type RedirectScope } from './redirect.js';
import { REFUSAL_STATUS, RETRY_ERROR_CODES, RetryPolicy, type AttemptFailure, type RetryDecision } from './retry.js';
import { Agent, loadProxyClasses, request, type Dispatcher, type ProxyClasses } from './undici.js';
import { userAgent } from './user-agent.js';
import { WireLog } from './verbose.js';

// The client builds errors from answers; it reaches http/ through this file only.
export { requestIdOf };

/** Options of one transport (one CLI run). */
export interface TransportOptions {
  /** Sent as `Authorization: Bearer <key>` (spec §5); never logged. */
  apiKey: string | undefined;
  /**
   * Where a key refused with a 401 may be replaced (an `apiKeyCommand`'s, run again): the
   * refused request is sent once more with the new key, which every later request uses. Its
   * key, once it has one, takes the place of `apiKey`.
   */
  rereadKey?: KeySource | undefined;
  /** The whole command's deadline, in ms, retries and waits included. */
  timeoutMs: number;
  /** How many times a request may be sent again (`--retries`; 0 = never), as `RetryPolicy` allows. */
  retries: number;
  /** `--verbose` sink: one line per call, key redacted, server text not yet escaped. */
  log?: ((line: string) => void) | undefined;
  /** With `log`: show request and response bodies too (`PETSTORE_DEBUG=api`), credentials redacted. */
  logBodies?: boolean;
  /** Aborts everything (Ctrl-C); a bulk create passes its own, aborted once requests under way may no longer be waited for. */
  signal?: AbortSignal | undefined;
  /**
   * Connections kept per origin, at most (default 1: requests one after another reuse one
   * kept-alive socket). A bulk create with N requests in flight needs N.
   */
  connections?: number | undefined;
  /**
   * `fresh`: every request on a new connection, closed after its answer (undici's `reset`,
   * `Connection: close`), so no request is ever written to a kept-alive socket the server
   * is closing, where its fate would be unknown (a bulk create's POSTs). Default
   * `keep-alive`.
   */
  connectionReuse?: 'keep-alive' | 'fresh' | undefined;
  /**
   * What `timeoutMs` bounds: the whole command (default), or each `send` on its own
   * (`pets create --from-file`: the deadline bounds each record's request).
   */
  deadlinePer?: 'command' | 'request' | undefined;
  /**
   * Who sends a request again after a 429: the transport, by the policy (default), or the
   * `caller`, which gets the 429 answer at once (a bulk create with a queue of its own,
   * using `RetryPolicy.afterRefusal`).
   */
  refusals?: 'transport' | 'caller' | undefined;
  /** Proxies (from HTTP_PROXY, HTTPS_PROXY, NO_PROXY; either case). None: connect directly. */
  proxy?: ProxySettings | undefined;
  /** What to say when the server cannot be reached, e.g. where the base URL came from. */
  unreachableHint?: string | undefined;
  /**
   * For a server inside this process (the embedded sandbox): what made it fail the request
   * just answered, if anything did — taken and forgotten. It is thrown instead of the answer
   * (a ConfigError naming a data file it could not use, or a bug), since the HTTP 500 that
   * stands for it would say less.
   */
  serverFailure?: (() => Error | undefined) | undefined;
  /**
   * The run's progress line (Io's; it draws only on a terminal): a wait before a retry of
   * more than WAIT_SHOWN_MS is shown on it, counting down (`rate limited: waiting 37 s…`).
   */
  progress?: WaitProgress | undefined;
}

/** The part of Io's progress line the transport uses. */
interface WaitProgress {
  update(text: string): void;
  clear(): void;
}

/** Waits longer than this, in ms, are shown on the progress line (cli-contract.md "Network behaviour"). */
const WAIT_SHOWN_MS = 2000;

/** A response whose body is still unread, with the `Retry-After` it asked for if that passed the deadline. */
type Answer = Dispatcher.ResponseData & { refusedWait?: RefusedWait | undefined };

/** One request. `url` is absolute; `method` upper case (an RFC 9110 token). */
export interface HttpRequest {
  method: string;
  url: URL;
  /** The body (JSON unless `headers` say otherwise); sent again as it is on a retry. */
  body?: string | Buffer | undefined;
  /** Headers added to petstore's own (lower-case names); `authorization` is always the key's. */
  headers?: Record<string, string> | undefined;
  /**
   * With `deadlinePer: 'request'`: this request's deadline in ms, when shorter than the
   * transport's (a record sent again after a 429 has what is left of its own).
   */
  timeoutMs?: number | undefined;
  /** The API's base path, which its redirects may not leave (the API client sets it on every request). */
  scope?: RedirectScope | undefined;
}

/** A request as it would go out (`HttpTransport.outgoing`): every header, lower-case, the body as bytes. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** A response whose body was read whole (within `MAX_BODY_BYTES`) and decoded, not interpreted. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that answered (after same-origin redirects). */
  url: URL;
  body: Buffer;
  /** A retryable answer's `Retry-After` that was not waited for, as it passed the deadline. */
  refusedWait?: RefusedWait | undefined;
}

/** A response whose body was read as JSON (exact int64). */
export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  url: URL;
  json: unknown;
  /** As `RawResponse.refusedWait`. */
  refusedWait?: RefusedWait | undefined;
}

/**
 * Sends requests for one CLI run. Construct it when the command starts: the deadline
 * counts from then.
 */
export class HttpTransport {
  /** The run's retry policy, for callers that act on a refusal themselves. */
  readonly policy: RetryPolicy;
  private readonly agent: Dispatcher;
  /** Routes each origin through its proxy or to `agent`, when a proxy variable is set. */
  private readonly proxies: ProxyRouter | undefined;
  private readonly opts: TransportOptions;
  private readonly deadline: Deadline;
  /** Made again for a new key (`rereadKey`), so the log masks the key now sent. */
  private log: WireLog | undefined;

  /**
   * Opens a transport: direct, or through the proxies of `opts.proxy` when one is set.
   * @throws ConfigError (exit 2) when `apiKey` holds characters a header cannot carry: the
   * callers check where the key came from, this is the last line before anything is sent.
   */
  static async open(opts: TransportOptions): Promise<HttpTransport> {
    const { httpProxy, httpsProxy } = opts.proxy ?? {};
    const classes = httpProxy !== undefined || httpsProxy !== undefined ? await loadProxyClasses() : undefined;
    return new HttpTransport(opts, classes);
  }

  private constructor(opts: TransportOptions, proxyClasses?: ProxyClasses) {
    if (opts.apiKey !== undefined && !isSendableKey(opts.apiKey)) {
      throw new ConfigError(
        'the API key contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was sent',
      );
    }
    // From now on the key is masked in every message and MCP result, whatever echoes it.
    usedKeys.add(opts.apiKey);
    this.opts = opts;
    this.policy = new RetryPolicy(opts.retries);
    this.deadline = new Deadline(opts.timeoutMs, opts.signal);
    this.log = opts.log === undefined ? undefined : new WireLog(opts.log, opts.apiKey, opts.logBodies === true);
    // The deadline's signal bounds every phase, so undici's own 300 s defaults are off.
    // One connection per origin unless more requests are in flight at once: a CLI run sends
    // its requests one after another, and a cap of one makes every page of `--all` reuse the
    // kept-alive socket instead of opening a new one while the last is still being marked idle.
    // autoSelectFamily: a name with IPv4 and IPv6 addresses tries every address it resolves to.
    const agentOptions = {
      connectTimeout: opts.timeoutMs,
      headersTimeout: 0,
      bodyTimeout: 0,
      connections: opts.connections ?? 1,
      autoSelectFamily: true,
      connect: { lookup: lookupWithLoopback },
    };
    this.agent = new Agent(agentOptions);
    const log = this.log;
    this.proxies =
      proxyClasses === undefined || opts.proxy === undefined
        ? undefined
        : new ProxyRouter(opts.proxy, proxyClasses, this.agent, agentOptions, log && ((line) => log.note(line)));
  }

  /**
   * The whole command's deadline, aborted when `timeoutMs` from the transport's opening has
   * passed (not on an interruption), for work of the command's own that shares the clock
   * (`--jq`); undefined when the deadline bounds each request instead (`deadlinePer`).
   */
  get commandDeadline(): AbortSignal | undefined {
    return this.opts.deadlinePer === 'request' ? undefined : this.deadline.timeoutSignal;
  }

  /**
   * Sends one request and reads its JSON body: `sendRaw`, then the API's JSON rules.
   * @throws what `sendRaw` throws; InvalidResponseError (exit 1, or 6/4/5 for 400/401/404)
   * for a body that is not JSON in UTF-8.
   */
  async send(req: HttpRequest): Promise<JsonResponse> {
    const res = await this.sendRaw(req);
    const text = jsonText(res.body, res.headers, res.status);
    let json: unknown;
    try {
      json = parseJson(text);
    } catch (err) {
      throw new InvalidResponseError(
        `server answered ${res.status} with malformed JSON (${(err as Error).message})`,
        res.status,
        undefined,
        requestIdOf(res.headers),
      );
    }
    return { status: res.status, headers: res.headers, url: res.url, json, refusedWait: res.refusedWait };
  }

  /**
   * Sends one request and reads its body whole, as it is. Sends it again as the retry
   * policy decides, all within the deadline; when it decides to stop, the last answer is
   * returned. Follows same-origin redirects of GET and HEAD (at most 5).
   * @throws NetworkError (exit 3) when the server cannot be reached, TimeoutError (exit 3)
   * when the deadline passes, TlsError (exit 3), InterruptedError on Ctrl-C,
   * InvalidResponseError (exit 1) for malformed HTTP, a body over the cap or a refused
   * redirect; ProxyError (exit 3) when the proxy refused or failed the tunnel; UsageError
   * (exit 2, nothing sent) when the proxy it needs is not a URL; ConfigError or a bug the
   * embedded sandbox met while answering.
   */
  async sendRaw(req: HttpRequest): Promise<RawResponse> {
    if (this.opts.deadlinePer !== 'request') return this.sendWithin(req, this.deadline);
    // Each request its own deadline: several may be in flight at once.
    const deadline = new Deadline(Math.min(req.timeoutMs ?? Infinity, this.opts.timeoutMs), this.opts.signal);
    try {
      return await this.sendWithin(req, deadline);
    } finally {
      deadline.dispose();
    }
  }

  /** `sendRaw` within `deadline`. */
  private async sendWithin(req: HttpRequest, deadline: Deadline): Promise<RawResponse> {
    let url = req.url;
    for (let hop = 0; ; hop++) {
      const res = await this.sendWithKey(req, url, deadline);
      // Only an answer the embedded sandbox failed (a 500) takes its failure: with several
      // requests in flight, another may have succeeded meanwhile.
      const failure = res.statusCode >= 500 ? this.opts.serverFailure?.() : undefined;
      if (failure !== undefined) {
        await res.body.dump().catch(() => undefined);
        throw failure;
      }
      if (!isRedirect(res.statusCode)) {
        const body = await this.readAll(res, url, deadline);
        return { status: res.statusCode, headers: res.headers, url, body, refusedWait: res.refusedWait };
      }
      await res.body.dump().catch(() => undefined);
      const target = redirectTarget(res.statusCode, res.headers, url, req.method, hop, req.scope);
      this.log?.note(`following ${res.statusCode} redirect to ${target.pathname}${target.search}`);
      url = target;
    }
  }

  /**
   * `sendWithRetries` with the run's key; after a 401, once more with the key `rereadKey`
   * gives in its place, if it gives one (a 401 means the server did nothing with the
   * request, so a write is sent again too). Otherwise the 401 is the answer.
   */
  private async sendWithKey(req: HttpRequest, url: URL, deadline: Deadline): Promise<Answer> {
    const source = this.opts.rereadKey;
    const key = source?.current() ?? this.opts.apiKey;
    const res = await this.sendWithRetries(req, url, deadline, key);
    if (res.statusCode !== 401 || source === undefined || key === undefined) return res;
    const outcome = await deadline.race(source.afterRefusal(key)).catch(() => undefined);
    if (outcome?.key === undefined) {
      if (outcome !== undefined) this.log?.note(`401: ${outcome.note}; not sent again`);
      return res;
    }
    if (this.opts.log !== undefined && this.log !== undefined) {
      this.log = new WireLog(this.opts.log, outcome.key, this.log.bodies);
    }
    this.log?.note(`401: ${outcome.note}; sending again with it`);
    await this.discard(res, url, deadline);
    return this.sendWithRetries(req, url, deadline, outcome.key);
  }

  /**
   * The send loop: one attempt after another until one answers with a status the policy
   * does not retry, or the policy says stop. Its answer's body is left unread.
   */
  private async sendWithRetries(
    req: HttpRequest,
    url: URL,
    deadline: Deadline,
    key: string | undefined,
  ): Promise<Answer> {
    const headers = this.headersFor(req, key);
    const reset = this.opts.connectionReuse === 'fresh';
    const dispatcher = this.proxies?.dispatcherFor(url) ?? this.agent;
    for (let failures = 1; ; failures++) {
      this.log?.request(req.method, url, headers, req.body);
      const started = Date.now();
      let res: Dispatcher.ResponseData;
      try {
        res = await deadline.race(
          request(dispatcher, {
            origin: url.origin,
            path: url.pathname + url.search,
            method: req.method,
            // A copy: undici's proxy agent adds `host` to the object it is given.
            headers: { ...headers },
            body: req.body,
            signal: deadline.signal,
            reset,
          }),
        );
      } catch (err) {
        // Ctrl-C or the deadline: nothing to log or decide, the error says it.
        if (deadline.signal.aborted) throw this.toCliError(err, url, deadline);
        const code = findErrorCode(err, RETRY_ERROR_CODES);
        this.log?.failure(code ?? 'error', err instanceof Error ? err.message : String(err), Date.now() - started);
        const decision = this.decide({ method: req.method, code }, failures, deadline);
        if (!decision.retry) throw this.toCliError(err, url, deadline);
        await this.wait(decision.waitMs, url, deadline, `retrying after ${code ?? 'a connection failure'}`);
        continue;
      }
      this.log?.response(res.statusCode, Date.now() - started, res.headers);
      const status = res.statusCode;
      // Only a refusal and a 5xx are put to the policy; any other answer is the answer.
      if (status !== REFUSAL_STATUS && status < 500) return res;
      if (status === REFUSAL_STATUS && this.opts.refusals === 'caller') return res;
      const decision = this.decide(
        { method: req.method, status, retryAfter: res.headers['retry-after'] },
        failures,
        deadline,
      );
      if (!decision.retry) return Object.assign(res, { refusedWait: decision.refusedWait });
      await this.discard(res, url, deadline);
      await this.wait(decision.waitMs, url, deadline, status === REFUSAL_STATUS ? 'rate limited' : `HTTP ${status}`);
    }
  }

  /** Asks the policy about the `failures`-th failed attempt and logs its decision. */
  private decide(failure: AttemptFailure, failures: number, deadline: Deadline): RetryDecision {
    const decision: RetryDecision =
      this.opts.signal?.aborted === true
        ? { retry: false, reason: 'aborted' }
        : this.policy.decide(failure, failures, deadline.remainingMs());
    this.log?.note(decision.reason);
    return decision;
  }

  /**
   * Waits `ms` before the next attempt; Ctrl-C or the deadline ends the wait at once. A wait
   * over WAIT_SHOWN_MS counts down on the progress line, `why` first (`rate limited`).
   */
  private async wait(ms: number, url: URL, deadline: Deadline, why: string): Promise<void> {
    // Loaded here: only a retry waits, and most runs never do.
    const { setTimeout: sleep } = process.getBuiltinModule('node:timers/promises');
    const progress = ms > WAIT_SHOWN_MS ? this.opts.progress : undefined;
    const until = Date.now() + ms;
    const show = () => progress?.update(`${why}: waiting ${Math.max(1, Math.ceil((until - Date.now()) / 1000))} s…`);
    show();
    const ticker = progress === undefined ? undefined : setInterval(show, 1000);
    try {
      await sleep(ms, undefined, { signal: deadline.signal });
    } catch (err) {
      throw this.toCliError(err, url, deadline);
    } finally {
      clearInterval(ticker);
      progress?.clear();
    }
  }

  /** Petstore's headers, the request's own, and the key (which a request's own never replaces). */
  private headersFor(req: HttpRequest, key: string | undefined = this.opts.apiKey): Record<string, string> {
    const headers: Record<string, string> = {};
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    headers.accept = 'application/json';
    headers['user-agent'] = userAgent();
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (name.toLowerCase() !== 'authorization') headers[name.toLowerCase()] = value;
    }
    return headers;
  }

  /**
   * The request as the server would receive it from `sendRaw` (a dry run): every header of
   * the message, in the order sent, with the key written as `keyAs` instead (it never leaves
   * here). Beside petstore's headers (`headersFor`) are the ones undici writes itself:
   * `host`, `connection` (keep-alive, or close with `connectionReuse: 'fresh'`) and
   * `content-length` (the body's bytes; 0 for a POST, PUT or PATCH without one, as undici
   * sends). Through a proxy, `host` and `connection` are the proxy's business.
   */
  outgoing(req: HttpRequest, keyAs: string): OutgoingRequest {
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    const headers: Record<string, string> = {
      host: req.url.host,
      connection: this.opts.connectionReuse === 'fresh' ? 'close' : 'keep-alive',
      ...this.headersFor(req, this.opts.apiKey === undefined ? undefined : keyAs),
    };
    if (body !== undefined) headers['content-length'] = String(body.length);
    else if (['POST', 'PUT', 'PATCH'].includes(req.method)) headers['content-length'] = '0';
    return { method: req.method, url: new URL(req.url.href), headers, body };
  }

  /** Reads and decodes a body within the cap, logging it with `PETSTORE_DEBUG=api`. */
  private async readAll(res: Dispatcher.ResponseData, url: URL, deadline: Deadline): Promise<Buffer> {
    const raw = await readBody(res.body, res.headers, res.statusCode, (err) => {
      const failure = this.toCliError(err, url, deadline, 'while reading the answer');
      // A cut-off answer is not sent for again: undici would "resume" it with a Range
      // request, which the API does not offer, and a POST may have been acted on.
      if (failure instanceof NetworkError) this.log?.note('the answer was cut off after its headers; not retried');
      return failure;
    });
    const body = decodeContent(raw, res.headers, res.statusCode);
    this.log?.responseBody(body);
    return body;
  }

  /** Drops the body of an answer that will be asked for again (showing it with `PETSTORE_DEBUG=api`). */
  private async discard(res: Dispatcher.ResponseData, url: URL, deadline: Deadline): Promise<void> {
    if (this.log?.bodies === true) {
      await this.readAll(res, url, deadline).catch(() => undefined);
      return;
    }
    await res.body.dump().catch(() => undefined);
  }

  /** Maps an undici/OS failure to the contract's error classes (failures.ts). */
  private toCliError(err: unknown, url: URL, deadline: Deadline, phase?: string): Error {
    return describeFailure(err, {
      url,
      phase,
      interrupt: this.opts.signal,
      // A record's shortened deadline is still its --timeout, counted from its first attempt.
      deadline: { signal: deadline.timeoutSignal, timeoutMs: this.opts.timeoutMs },
      unreachableHint: this.opts.unreachableHint,
    });
  }

  /** Closes the kept-alive connections so the process can exit at once. */
  async close(): Promise<void> {
    await Promise.all([this.proxies?.close(), this.agent.destroy().catch(() => undefined)]);
  }
}

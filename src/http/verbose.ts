/**
 * What `--verbose` says about the wire (cli-contract.md "Global flags"): each request line
 * and its headers, each answer's status line and its headers, and with `PETSTORE_DEBUG=api`
 * the bodies (gh's `GH_DEBUG=api`). Credentials never reach it: the bearer key is masked to
 * its last 4 characters at most, `Set-Cookie`, `Cookie` and every header whose name says it
 * carries a credential are redacted, and in bodies the key and credential-looking fields
 * (libraries-and-pitfalls.md §7). Lines are returned as text; the caller escapes what a
 * server sent before it reaches a terminal.
 */
import { parseJson, stringifyJson } from '../base/json.js';
import { maskKey } from '../base/mask.js';
import { headerPairs, type HeaderMap } from './headers.js';
import { formatCount } from '../text/count.js';

/** Shown in place of a redacted value. */
export const REDACTED = '<redacted>';

/** Headers that carry a credential by name (RFC 9110 §11, RFC 6265, common API-key headers). */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'set-cookie2',
  'authentication-info',
  'proxy-authentication-info',
]);

/** A header or field name that says its value is a secret. */
const CREDENTIAL_NAME =
  /token|secret|passw(?:or)?d|api[-_]?key|credential|session|cookie|auth(?:orization)?$|signature/i;

/** Whether a header's value is a credential, by its name. */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  // A challenge (`WWW-Authenticate`) names a scheme, not a secret: worth seeing.
  // CORS headers (`Access-Control-Allow-Credentials: true`) describe a policy, not a secret.
  if (n === 'www-authenticate' || n === 'proxy-authenticate' || n.startsWith('access-control-')) return false;
  return CREDENTIAL_HEADERS.has(n) || CREDENTIAL_NAME.test(n);
}

/** Largest part of a body shown, in bytes; the rest is counted. */
const BODY_SHOWN_BYTES = 64 * 1024;

/** The `--verbose` log of one run, and what it must never show. */
export class WireLog {
  /**
   * @param write one line, without its line feed.
   * @param apiKey the run's key, masked in the `authorization` line and replaced wherever else it appears.
   * @param bodies whether bodies are shown too (`PETSTORE_DEBUG=api`).
   */
  constructor(
    private readonly write: (line: string) => void,
    private readonly apiKey: string | undefined,
    readonly bodies: boolean,
  ) {}

  /** A line of petstore's own (`* retry 1 of 2 …`). */
  note(line: string): void {
    this.write(`* ${line}`);
  }

  /** The request line and its headers (`> GET URL`, `> accept: …`), and its body when shown. */
  request(method: string, url: URL, headers: HeaderMap, body: Buffer | string | undefined): void {
    this.write(`> ${method} ${url.href}`);
    for (const [name, value] of headerPairs(headers)) this.write(`> ${name}: ${this.headerShown(name, value)}`);
    if (this.bodies && body !== undefined && body.length > 0) this.body('>', body);
  }

  /** The answer's status line (`< 200 (12 ms)`) and every header after it. */
  response(status: number, ms: number, headers: HeaderMap): void {
    this.write(`< ${status} (${ms} ms)`);
    for (const [name, value] of headerPairs(headers)) this.write(`< ${name}: ${this.headerShown(name, value)}`);
  }

  /** A connection failure in place of an answer (`< ECONNREFUSED: connect … (3 ms)`). */
  failure(code: string, message: string, ms: number): void {
    this.write(`< ${code}: ${this.withoutKey(message)} (${ms} ms)`);
  }

  /** The answer's body, when bodies are shown. */
  responseBody(body: Buffer): void {
    if (this.bodies && body.length > 0) this.body('<', body);
  }

  /** A header's value as shown: the bearer key masked, credentials redacted, the key nowhere. */
  private headerShown(name: string, value: string): string {
    const n = name.toLowerCase();
    if (n === 'authorization' && this.apiKey !== undefined && value === `Bearer ${this.apiKey}`) {
      return `Bearer ${maskKey(this.apiKey)}`;
    }
    if (isCredentialHeader(n)) return REDACTED;
    return this.withoutKey(value);
  }

  /** A body after a blank `>`/`<` line: JSON with credential-looking fields redacted, the key nowhere. */
  private body(side: '>' | '<', raw: Buffer | string): void {
    const buffer = typeof raw === 'string' ? Buffer.from(raw) : raw;
    const shown = buffer.subarray(0, BODY_SHOWN_BYTES).toString('utf8');
    const text = this.withoutKey(buffer.length <= BODY_SHOWN_BYTES ? redactJson(shown) : shown);
    this.write(side);
    for (const line of text.split('\n')) this.write(`${side} ${line}`);
    if (buffer.length > BODY_SHOWN_BYTES) {
      this.write(`* … ${formatCount(buffer.length - BODY_SHOWN_BYTES)} more bytes of the body not shown`);
    }
  }

  private withoutKey(text: string): string {
    const key = this.apiKey;
    return key === undefined || key.length < 4 ? text : text.split(key).join(maskKey(key));
  }
}

/**
 * JSON text with the value of every field whose name looks like a credential replaced by
 * `REDACTED`; text that is not JSON, or has no such field, comes back unchanged (exact).
 */
export function redactJson(text: string): string {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    return text;
  }
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) {
      const secret = CREDENTIAL_NAME.test(k) && inner !== null && typeof inner !== 'object';
      out[k] = secret ? REDACTED : walk(inner);
    }
    return out;
  };
  const redacted = stringifyJson(walk(value));
  return redacted === stringifyJson(value) ? text : redacted;
}

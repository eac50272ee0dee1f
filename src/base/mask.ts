/**
 * Masking of secrets for anything a person or a log may see (libraries-and-pitfalls.md §7:
 * at most the last 4 characters), and the registry of the keys a run used, masked in every
 * message (`usedKeys`). Kept free of imports so `auth status` and `config list` can mask a
 * key without loading the HTTP transport, and every layer can reach the registry.
 */

/**
 * Redacts a key to its last 4 characters at most: keys of 12 characters or more show 4,
 * of 8..11 show 2, shorter ones show none (so little of a short key is ever revealed).
 */
export function maskKey(key: string): string {
  const visible = key.length >= 12 ? 4 : key.length >= 8 ? 2 : 0;
  return `****${visible === 0 ? '' : key.slice(-visible)}`;
}

/**
 * A URL as it may be shown: userinfo (user and password) replaced whole by `***`, so no part
 * of a password leaks however it is written (`user:p@ssw0rd@host`). A value that does not
 * parse as a URL (`user:pa/ssword@host`) is masked from `//` to its last `@`.
 */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username === '' && url.password === '') return raw;
    url.username = '***';
    url.password = '';
    return url.href;
  } catch {
    // Unparsable (e.g. a `/` inside the password): everything up to the last `@` may be secret.
    return raw.includes('//') ? raw.replace(/\/\/.*@/, '//***@') : raw.replace(/^.*@/, '***@');
  }
}

/**
 * True when `key` can travel in `Authorization: Bearer <key>`: visible ASCII only
 * (RFC 9110 §5.5 field values; RFC 6750 §2.1 b64token is stricter still). Anything else
 * (a line break from a pasted file, a non-ASCII character) cannot be sent as is.
 */
export function isSendableKey(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key);
}

/**
 * Keys shorter than this are left as they are in running text (`UsedKeys`). A key of a few
 * characters (`abc`, `1234`) is also a word, a number or part of one: replacing each of its
 * occurrences would garble messages (ids, counts, URLs) while hiding little, since so short
 * a key is guessed sooner than read. 8 is where `maskKey` starts to show characters.
 */
export const MASKED_KEY_MIN_LENGTH = 8;

/** One way a key may be written in text, and what replaces it there. */
interface KeyForm {
  form: string;
  mask: string;
}

/**
 * The keys this process's run used, and their masks (cli-contract.md "Errors and exit
 * codes": every key the run used is masked in all text petstore composes or relays as a
 * message). The transport adds each key it sends (`PETSTORE_API_KEY`, an `apiKeyCommand`'s,
 * one read again after a 401, the stored key, the sandbox's); the writers of messages (`Io`)
 * and of MCP results (`commands/mcp/results.ts`) apply it. One per process, as a run is a
 * process (`usedKeys`); runs of `main()` in one test process share it, which only masks more.
 *
 * A key is replaced as written (which covers `Bearer KEY`), JSON-escaped (`"` and `\`
 * inside it, as in a JSON message line) and URL-encoded (`%2F` for `/`, as in a URL a
 * server quotes), each by its mask written the same way, so a JSON line stays valid JSON.
 * With no key added, applying it costs nothing but a loop over no forms.
 */
export class UsedKeys {
  /** The forms of every key added, longest first (a key inside a longer one is masked with the longer). */
  private forms: KeyForm[] = [];
  private readonly keys = new Set<string>();

  /** Adds `key` (nothing for undefined, or a key shorter than MASKED_KEY_MIN_LENGTH). */
  add(key: string | undefined): void {
    if (key === undefined || key.length < MASKED_KEY_MIN_LENGTH || this.keys.has(key)) return;
    this.keys.add(key);
    const mask = maskKey(key);
    const json = (s: string): string => JSON.stringify(s).slice(1, -1);
    for (const form of [
      { form: key, mask },
      { form: json(key), mask: json(mask) },
      { form: encodeURIComponent(key), mask: encodeURIComponent(mask) },
    ]) {
      if (!this.forms.some((f) => f.form === form.form)) this.forms.push(form);
    }
    this.forms.sort((a, b) => b.form.length - a.form.length);
  }

  /** `text` with every form of every key added replaced by its mask. */
  mask(text: string): string {
    for (const { form, mask } of this.forms) if (text.includes(form)) text = text.split(form).join(mask);
    return text;
  }

  /**
   * `value` (JSON-like: strings, numbers, arrays, plain objects) with every string in it
   * masked (`mask`), keys of objects included; the value itself when nothing changed.
   */
  maskValue<T>(value: T): T {
    return this.forms.length === 0 ? value : (this.walk(value) as T);
  }

  /** `value` masked, copied only where something changed (a result of pets is mostly clean). */
  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const masked = this.walk(value[i]);
        if (masked !== value[i]) (copy ??= value.slice())[i] = masked;
      }
      return copy ?? value;
    }
    const object = value as Record<string, unknown>;
    const names = Object.keys(object);
    let copy: Record<string, unknown> | undefined;
    for (const [i, name] of names.entries()) {
      const maskedName = this.mask(name);
      const masked = this.walk(object[name]);
      if (copy === undefined && (maskedName !== name || masked !== object[name])) {
        copy = {};
        for (const before of names.slice(0, i)) put(copy, before, object[before]);
      }
      if (copy !== undefined) put(copy, maskedName, masked);
    }
    return copy ?? value;
  }
}

/** Sets an own property, `__proto__` too (an assignment would set the prototype instead). */
function put(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The keys this process's run used (`UsedKeys`). */
export const usedKeys = new UsedKeys();

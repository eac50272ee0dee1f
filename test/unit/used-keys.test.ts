/**
 * The keys a run used, masked in every message (cli-contract.md "Errors and exit codes"):
 * the registry's forms (as written, so `Bearer KEY` too; JSON-escaped; URL-encoded), the
 * short keys it leaves alone, and its two appliers: `Io`, the one writer of messages (every
 * kind, text and JSON, the progress line), and the MCP results (`success`, `failure`).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/base/errors.js';
import { maskKey, MASKED_KEY_MIN_LENGTH, UsedKeys, usedKeys } from '../../src/base/mask.js';
import { failure, success } from '../../src/commands/mcp/results.js';
import { EnvVars } from '../../src/config/env.js';
import { createIo } from '../../src/io/io.js';

describe('UsedKeys', () => {
  it('replaces a key as written, so `Bearer KEY` too, by its mask; text without it comes back as it was', () => {
    const keys = new UsedKeys();
    const text = 'bad header Authorization: Bearer SECRETKEY-abc123 (SECRETKEY-abc123)';
    expect(keys.mask(text)).toBe(text);
    keys.add('SECRETKEY-abc123');
    expect(keys.mask(text)).toBe('bad header Authorization: Bearer ****c123 (****c123)');
    expect(keys.mask('nothing secret')).toBe('nothing secret');
  });

  it('masks the JSON-escaped and URL-encoded forms with the mask written the same way (a JSON line stays JSON)', () => {
    const keys = new UsedKeys();
    const key = 'SEC"RET\\KEY/9"\\';
    keys.add(key);
    const line = JSON.stringify({ message: `Bearer ${key}` });
    expect(line).toContain(JSON.stringify(key).slice(1, -1));
    const masked = keys.mask(line);
    expect(JSON.parse(masked)).toEqual({ message: `Bearer ${maskKey(key)}` });
    expect(keys.mask(`https://api.example/v1?key=${encodeURIComponent(key)}`)).toBe(
      `https://api.example/v1?key=${encodeURIComponent(maskKey(key))}`,
    );
  });

  it(`leaves keys shorter than ${MASKED_KEY_MIN_LENGTH} characters alone: masking them would garble ordinary text`, () => {
    const keys = new UsedKeys();
    keys.add('1234567');
    keys.add(undefined);
    expect(keys.mask('pet 1234567 of 12345678')).toBe('pet 1234567 of 12345678');
    keys.add('12345678');
    expect(keys.mask('pet 1234567 of 12345678')).toBe('pet 1234567 of ****78');
  });

  it('masks a key that holds another whole, the longer first', () => {
    const keys = new UsedKeys();
    keys.add('abcdefgh');
    keys.add('abcdefgh-longer-key');
    expect(keys.mask('abcdefgh-longer-key abcdefgh')).toBe(`${maskKey('abcdefgh-longer-key')} ****gh`);
  });

  it('masks every string of a JSON value, object keys too, and gives back the value itself when nothing changed', () => {
    const keys = new UsedKeys();
    const clean = { a: ['x', 1, null, { b: true }] };
    expect(keys.maskValue(clean)).toBe(clean);
    keys.add('SECRETKEY-abc123');
    expect(keys.maskValue(clean)).toBe(clean);
    expect(
      keys.maskValue({ a: ['SECRETKEY-abc123', 2], 'k SECRETKEY-abc123': { c: 'Bearer SECRETKEY-abc123' } }),
    ).toEqual({ a: ['****c123', 2], 'k ****c123': { c: 'Bearer ****c123' } });
    // A server's JSON may hold a `__proto__` key: kept as a key, never made the prototype.
    const proto = keys.maskValue(JSON.parse('{"__proto__": "SECRETKEY-abc123"}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.entries(proto)).toEqual([['__proto__', '****c123']]);
  });
});

const KEY = 'io-and-mcp-key-7f3a9c';
const MASK = maskKey(KEY);

/** An Io over PassThrough streams (stderr a terminal when `tty`), what it wrote on stderr, and stdout. */
async function io(tty: boolean, env: Record<string, string> = {}) {
  const stderr = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 200 } : {});
  const stdout = new PassThrough();
  let err = '';
  let out = '';
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const made = await createIo({ stdout, stderr, stdin: new PassThrough() }, new EnvVars(env), true);
  return { io: made, err: () => err, out: () => out };
}

describe('Io masks every key the run used in every message', () => {
  usedKeys.add(KEY);
  const said = `the server said: Bearer ${KEY}`;

  it.each([
    ['text on a terminal', true, {}],
    ['JSON objects', false, { PETSTORE_MESSAGES: 'json' }],
  ] as const)(
    '%s: errors, hints, warnings, notes, --verbose lines, relayed lines, targets, summaries',
    async (_name, tty, env) => {
      const { io: writer, err, out } = await io(tty, env);
      writer.error({ code: `code-${KEY}`, message: said, status: 400, hint: said, details: { requestId: KEY } });
      writer.warn(said);
      writer.note(said, { always: true });
      writer.message({ level: 'verbose', message: `< x-echo: Bearer ${KEY}` });
      writer.message({ level: 'stderr', from: 'production.apiKeyCommand', message: said });
      writer.message({ level: 'debug', message: said });
      writer.target(`production (${KEY}.example)`);
      writer.summary(said, 'production');
      writer.progress.update(said);
      writer.progress.clear();
      // Records are data, not messages: stdout is left as it is (`api`'s answer, `auth token`).
      await writer.out(said);
      await writer.flush();
      expect(err()).not.toContain(KEY);
      // Each message still said, with the mask: 10 on a terminal; 8 in JSON (the error's code,
      // message and requestId; no target, summary or progress line off a terminal).
      expect(err().split(MASK).length - 1).toBe(tty ? 10 : 8);
      expect(out()).toBe(said);
      if (!tty) for (const line of err().trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    },
  );
});

describe('MCP results mask every key the run used', () => {
  usedKeys.add(KEY);

  it('a failure: its text and its error object (message, code, hint, request id)', () => {
    const err = new ApiError(
      { code: `rejected-${KEY}`, message: `bad header Authorization: Bearer ${KEY}`, status: 400 },
      400,
      `check Bearer ${KEY}`,
      undefined,
      { requestId: `req-${KEY}` },
    );
    const result = failure(err);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: `rejected-${MASK}`, message: `bad header Authorization: Bearer ${MASK}`, status: 400 },
    });
    expect(result.content[0]?.text).toContain(`Bearer ${MASK}`);
  });

  it('a success: its text and structured form (a warning that quotes it)', () => {
    const result = success({ pet: { id: '1', name: 'Rex' }, warnings: [`Bearer ${KEY}`] }, [
      '1 "Rex"',
      `Bearer ${KEY}`,
    ]);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(result.structuredContent).toEqual({ pet: { id: '1', name: 'Rex' }, warnings: [`Bearer ${MASK}`] });
  });
});

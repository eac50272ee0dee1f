/** Exact int64 JSON (cli-contract.md "Output": ids printed exactly, even above 2^53). */
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/base/json.js';

describe('parseJson / stringifyJson', () => {
  it.each(['9223372036854775807', '-9223372036854775808', '9007199254740993', '-9007199254740993'])(
    'round-trips %s exactly',
    (literal) => {
      const text = `{"id":${literal},"list":[${literal}]}`;
      const value = parseJson(text) as { id: unknown; list: unknown[] };
      expect(value.id).toBe(BigInt(literal));
      expect(value.list[0]).toBe(BigInt(literal));
      expect(stringifyJson(value)).toBe(text);
    },
  );

  it('keeps safe integers and fractions as numbers', () => {
    const value = parseJson('{"a":9007199254740991,"b":1.5,"c":-3}') as Record<string, unknown>;
    expect(value).toEqual({ a: 9007199254740991, b: 1.5, c: -3 });
    expect(typeof value.a).toBe('number');
  });

  it('writes bigint as bare digits, with indentation when asked', () => {
    expect(stringifyJson({ id: 9007199254740993n })).toBe('{"id":9007199254740993}');
    expect(stringifyJson([1n, 2], 2)).toBe('[\n  1,\n  2\n]');
  });

  it('differs from JSON.parse, which rounds', () => {
    expect(String(JSON.parse('9007199254740993') as number)).toBe('9007199254740992');
    expect(String(parseJson('9007199254740993'))).toBe('9007199254740993');
  });

  it.each(['{', '', '{"a":}', "{'a':1}", '[1,]'])('throws SyntaxError on %j', (text) => {
    expect(() => parseJson(text)).toThrow(SyntaxError);
  });
});

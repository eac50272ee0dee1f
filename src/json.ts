/**
 * JSON with exact int64 (cli-contract.md "Output": ids are printed exactly, even above
 * 2^53). `JSON.parse` rounds such numbers and Node 20's V8 lacks the reviver `source`
 * argument, so lossless-json does the parsing and printing.
 */
import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** Integers beyond 2^53 become bigint; every other number stays a number. */
function parseNumber(text: string): number | bigint {
  return isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text);
}

/**
 * Parses JSON text; unsafe integers come back as bigint.
 * @throws SyntaxError on malformed JSON.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Serialises a value; bigint is written as bare digits. `indent` is spaces (0 = compact). */
export function stringifyJson(value: unknown, indent = 0): string {
  const out = stringify(value, undefined, indent === 0 ? undefined : indent);
  if (out === undefined) throw new TypeError('value cannot be serialised as JSON');
  return out;
}

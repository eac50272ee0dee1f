/**
 * JSON with exact int64 (cli-contract.md "Output": ids are printed exactly, even above
 * 2^53). `JSON.parse` rounds such numbers and Node 20's V8 lacks the reviver `source`
 * argument, so lossless-json does the parsing and printing.
 */
import { isInteger, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/**
 * Integer literals beyond 2^53 become bigint. A literal written otherwise (`1.0`, `1e2`,
 * `12345678.0000000001`) whose value as a double is nevertheless integral, or not finite
 * (`1e400`), stays a LosslessNumber holding its text: no integer schema accepts it, so an
 * id sent that way is refused rather than rounded (cli-contract.md "Output": ids exact),
 * and printing it again writes the text as it came. Every other number is a number.
 */
function parseNumber(text: string): number | bigint | LosslessNumber {
  if (isInteger(text)) return isSafeNumber(text) ? Number(text) : BigInt(text);
  const n = Number(text);
  return Number.isInteger(n) || !Number.isFinite(n) ? new LosslessNumber(text) : n;
}

/**
 * Parses JSON text; unsafe integers come back as bigint, integral non-integer literals as
 * LosslessNumber (see parseNumber).
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

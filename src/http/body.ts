/**
 * Reading a response body: the size cap, the content codings a server may send although
 * petstore never asks for one, and the checks that make a body the API's JSON
 * (cli-contract.md "Errors and exit codes": off-contract answers are `invalid_response`).
 */
import { BodyTooLargeError, InvalidResponseError } from '../base/errors.js';
import { headerValue, requestIdOf, type HeaderMap } from './headers.js';
import { formatCount } from '../text/count.js';

/** Largest response body read, in bytes (10 MiB), also once decoded; a page of 100 pets is ~10 KiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Content codings decoded. */
const DECODERS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/**
 * Reads a whole body within `max` bytes: a `Content-Length` above it is refused before a
 * byte is read, a stream that grows past it is cut off.
 * @param toCliError maps a failure while reading (reset, deadline, Ctrl-C) to the contract's error.
 * @throws InvalidResponseError (exit 1) for a body over `max`; what `toCliError` returns otherwise.
 */
export async function readBody(
  body: AsyncIterable<unknown> & { destroy(): unknown },
  headers: HeaderMap,
  status: number,
  toCliError: (err: unknown) => Error,
  max = MAX_BODY_BYTES,
): Promise<Buffer> {
  const declared = Number(headerValue(headers['content-length']) ?? NaN);
  if (declared > max) {
    body.destroy();
    throw new BodyTooLargeError(
      `response body too large (${formatCount(declared)} bytes; limit ${formatCount(max)})`,
      status,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > max) {
        body.destroy();
        throw new BodyTooLargeError(`response body too large (over ${formatCount(max)} bytes)`, status);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof InvalidResponseError) throw err;
    throw toCliError(err);
  }
  return Buffer.concat(chunks);
}

/**
 * Undoes a gzip, deflate or br content coding (never asked for, decoded anyway, within
 * `max` bytes); `identity` or none gives the body as it is.
 * @throws InvalidResponseError for another coding, a body that does not decode, or one
 * larger than `max` once decoded.
 */
export function decodeContent(raw: Buffer, headers: HeaderMap, status: number, max = MAX_BODY_BYTES): Buffer {
  const coding = headerValue(headers['content-encoding'])?.trim().toLowerCase() ?? '';
  if (coding === '' || coding === 'identity') return raw;
  if (!(DECODERS as readonly string[]).includes(coding)) {
    throw new InvalidResponseError(
      `server answered ${status} with a body in content coding ${JSON.stringify(coding)}`,
      status,
    );
  }
  const options = { maxOutputLength: max };
  // zlib is loaded here, for the rare compressed answer, not at every start-up.
  const { brotliDecompressSync, gunzipSync, inflateSync } = process.getBuiltinModule('node:zlib');
  try {
    if (coding === 'br') return brotliDecompressSync(raw, options);
    if (coding === 'deflate') return inflateSync(raw, options);
    return gunzipSync(raw, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BodyTooLargeError(`response body too large once decoded (over ${formatCount(max)} bytes)`, status);
    }
    throw new InvalidResponseError(`server answered ${status} with a ${coding} body that cannot be decoded`, status);
  }
}

/** Whether a `Content-Type` names JSON: `application/json` or `application/…+json` (RFC 6839). */
function isJsonType(contentType: string | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType ?? '');
}

/**
 * The text of a body that must be the API's JSON: `application/json` (or `+json`) in UTF-8
 * (another `charset` is off-contract), a byte-order mark dropped.
 * @throws InvalidResponseError for another content type or charset.
 */
export function jsonText(body: Buffer, headers: HeaderMap, status: number): string {
  const type = headerValue(headers['content-type']) ?? '';
  if (!isJsonType(type)) {
    throw new InvalidResponseError(
      `server answered ${status} with content type ${type === '' ? '(none)' : JSON.stringify(type)}, not application/json`,
      status,
      undefined,
      requestIdOf(headers),
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new InvalidResponseError(
      `server answered ${status} with JSON in charset ${JSON.stringify(charset)}; the API sends UTF-8`,
      status,
      undefined,
      requestIdOf(headers),
    );
  }
  return body.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * The sandbox's `Idempotency-Key` on createPet, after the IETF draft
 * draft-ietf-httpapi-idempotency-key-header (as Stripe's and Adyen's APIs do): a client
 * that sends a create again with the same key gets the first answer back instead of a
 * second pet. Pure rules here; the server (`server.ts`) reads the header and answers, the
 * data files (`data-files.ts`) keep each key on its pet's line and decide create, replay or
 * refusal under the store's lock.
 */
import { createHash } from 'node:crypto';
import type { NewPet } from '../client/schemas.js';

/**
 * How long a key is kept (ms): 24 hours, as Stripe keeps its keys. The draft leaves the
 * expiry to the server; an older entry is as if absent.
 */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The header's longest value (characters): Stripe's limit, room for any UUID or hash a client makes. */
const KEY_MAX_LENGTH = 255;
/**
 * Visible ASCII (0x21-0x7E) only: what passes every HTTP stack unchanged (no white space
 * for a proxy to trim, no encoding to guess), so the key compared is the key sent.
 */
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/** What a create sends with its key: the key and the fingerprint of its body (`requestFingerprint`). */
export interface IdempotencyRequest {
  key: string;
  /** SHA-256 of the request's canonical NewPet, 64 lowercase hex digits. */
  fingerprint: string;
}

/**
 * Why `value` cannot be an `Idempotency-Key`, in words that never repeat the value (it may
 * hold control characters); undefined when it can: 1 to 255 characters, each visible
 * ASCII. The draft leaves the syntax to the server (a string); these bounds are the
 * sandbox's.
 */
export function keyProblem(value: string): string | undefined {
  const rule = `it must be 1 to ${KEY_MAX_LENGTH} visible ASCII characters (0x21 to 0x7E, no spaces)`;
  if (value === '') return `the Idempotency-Key header is empty: ${rule}`;
  if (value.length > KEY_MAX_LENGTH) return `the Idempotency-Key header is ${value.length} characters long: ${rule}`;
  if (!KEY_SHAPE.test(value)) return `the Idempotency-Key header holds a character outside that range: ${rule}`;
  return undefined;
}

/** Whether `key` could have come through `keyProblem` (a key read back from a data file). */
export function isValidKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= KEY_MAX_LENGTH && KEY_SHAPE.test(key);
}

/**
 * The request's fingerprint (the draft's "request payload fingerprint"): SHA-256, in hex,
 * of a canonical JSON of the NewPet as received: `name`, `categoryId` as its exact int64
 * digits (a string, so a number beyond 2^53 is not rounded), and `status` only when it was
 * sent. The default status is not filled in first: a body without `status` and one with
 * `"status":"available"` are different requests, though they create the same pet.
 */
export function requestFingerprint(pet: NewPet): string {
  const canonical: Record<string, string> = { name: pet.name, categoryId: String(pet.categoryId) };
  if (pet.status !== undefined) canonical.status = pet.status;
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** Whether an entry made at `at` (epoch ms) still holds at `now` (epoch ms): for 24 hours. */
export function isLive(at: number, now: number): boolean {
  return now - at < IDEMPOTENCY_WINDOW_MS;
}

/**
 * A create whose `Idempotency-Key` was used within the window with another fingerprint:
 * nothing was created. The server answers 422 `idempotency_key_reused` (the draft's
 * "Unprocessable Content" for a reused key, RFC 9110 §15.5.21).
 */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super('this Idempotency-Key was already used with another request body within 24 hours; the pet was not created');
    this.name = 'IdempotencyKeyReusedError';
  }
}

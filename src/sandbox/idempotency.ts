/**
 * The sandbox's `Idempotency-Key` on createPet, after the IETF draft
 * draft-ietf-httpapi-idempotency-key-header (as Stripe's and Adyen's APIs do): a client
 * that sends a create again with the same key gets the first answer back instead of a
 * second pet. Pure rules here; the server (`server.ts`) reads the header and answers, the
 * data files (`data-files.ts`) keep each key on its pet's line and decide create, replay or
 * refusal under the store's lock.
 */
import type { NewPet, Pet } from '../client/schemas.js';

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
  /** `s` or `-`: whether the body sent `status` (`requestFingerprint`). */
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
 * The request's fingerprint (the draft's "request payload fingerprint"), as far as the pet
 * it creates does not say it: `s` when the body sent `status`, `-` when it left it to the
 * default. The pet holds the rest (`name`, `categoryId` exact, the status), so a request is
 * the same as the first when its fingerprint and the pet it asks for are (`sameRequest`): a
 * body without `status` and one with `"status":"available"` are different requests, though
 * they create the same pet. Nothing is hashed: a hash per create cost about 10 µs of a bulk
 * create's 700, and its 64 digits on every line more compactions.
 */
export function requestFingerprint(pet: NewPet): string {
  return pet.status === undefined ? '-' : 's';
}

/**
 * Whether a create asking for `asked` (status filled in as it is stored) with `fingerprint`
 * repeats the one that created `stored` with `storedFingerprint`.
 */
export function sameRequest(
  stored: { pet: Pet; fingerprint: string },
  asked: { pet: NewPet; fingerprint: string },
): boolean {
  const a = asked.pet;
  const p = stored.pet;
  return (
    stored.fingerprint === asked.fingerprint &&
    p.name === a.name &&
    BigInt(p.categoryId) === BigInt(a.categoryId) &&
    p.status === a.status
  );
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

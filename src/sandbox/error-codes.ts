/**
 * The Error `code` values the sandbox answers with (server.ts's `HttpProblem`s), with their
 * HTTP status: what a script meets from the sandbox, and the codes `help --json` labels as
 * the server's. The spec names no set (§7, "not shown"), so another server may send others;
 * petstore passes a server's code through unchanged, its exit code following the status.
 * test/commands/help-json-claims.test.ts reads server.ts and keeps this list whole.
 */

/** One code the sandbox sends. */
export interface SandboxErrorCode {
  readonly code: string;
  /** The HTTP status it comes with. */
  readonly status: number;
  /** What it means, in one short sentence. */
  readonly meaning: string;
}

/** Every code the sandbox sends, by status. */
export const SANDBOX_ERROR_CODES: readonly SandboxErrorCode[] = [
  { code: 'invalid_request', status: 400, meaning: 'The request is malformed or a value is refused.' },
  { code: 'unauthorized', status: 401, meaning: 'The API key is missing or not accepted.' },
  { code: 'not_found', status: 404, meaning: 'No such pet, or no such path.' },
  {
    code: 'method_not_allowed',
    status: 405,
    meaning: 'The path does not serve this method (Allow lists those it does).',
  },
  {
    code: 'idempotency_key_in_use',
    status: 409,
    meaning: 'The first request with this Idempotency-Key is still being answered.',
  },
  {
    code: 'gone',
    status: 410,
    meaning: 'getPet after its removal (PETSTORE_SANDBOX_WITHOUT_GET_PET, sandbox serve --without-get-pet).',
  },
  { code: 'payload_too_large', status: 413, meaning: 'The request body is over 1 MiB.' },
  { code: 'idempotency_key_reused', status: 422, meaning: 'An Idempotency-Key sent again with another body.' },
  { code: 'internal_error', status: 500, meaning: 'The sandbox failed (its data file could not be read or written).' },
  { code: 'busy', status: 503, meaning: "Another process held the sandbox data's lock for the whole wait." },
];

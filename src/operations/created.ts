/**
 * A create that failed after its request may have reached the server (cli-contract.md
 * "Network behaviour": a POST is never repeated once it may have; "Bulk create": a 201 whose
 * body breaks the API is exit 1 `invalid_response` saying the pet may have been created):
 * one failure for both front doors, `pets create` and MCP `create_pet`, each with its own hint.
 */
import { CliError, InterruptedError } from '../base/errors.js';
import { mayHaveCreated } from '../http/failures.js';

/**
 * `err` saying the pet may have been created, with the request's `Idempotency-Key` (in
 * JSON, `idempotencyKey`) and `hint` (how to check, or resend with the key, in the words of
 * the caller's front), when it may have (`mayHaveCreated`: the connection reset once the
 * request was sent, the deadline passed waiting for the answer, a 201 whose body breaks the
 * API; or `cancelled`: the call cancelled while its request was under way); its exit code,
 * code and status stay the failure's. Any other failure is returned as is.
 */
export function mayHaveBeenCreated(
  err: unknown,
  sent: { idempotencyKey: string; cancelled?: boolean },
  hint: string,
): unknown {
  const cancelled = sent.cancelled === true && err instanceof InterruptedError;
  if (!(err instanceof CliError) || !(cancelled || mayHaveCreated(err))) return err;
  return new CliError(`${err.message}; the pet may have been created (Idempotency-Key ${sent.idempotencyKey})`, {
    exitCode: err.exitCode,
    code: err.code,
    status: err.status,
    hint,
    cause: err,
    details: { idempotencyKey: sent.idempotencyKey },
  });
}

/**
 * The cheap request that tells whether a key works: `GET /pets?limit=1` (`listPets`,
 * spec §4.1), sent through the normal client, so it honours `--timeout`, `--retries`,
 * `--verbose` (key redacted) and the redirect policy.
 */
import { ApiError, CliError, ExitCode, InterruptedError } from '../base/errors.js';
import type { PetstoreClient } from './client.js';

/** Outcome of a key check. */
export type KeyCheck =
  | { result: 'ok' }
  | { result: 'rejected'; error: CliError }
  | { result: 'unreachable'; error: CliError }
  | { result: 'failed'; error: CliError };

/**
 * Sends one `GET /pets?limit=1` through `client` (built with the key to check). Never throws
 * for an answer or a network failure: 401 → `rejected`, no answer in time → `unreachable`,
 * anything else that is not a 200 Pets page → `failed`.
 * @throws InterruptedError on Ctrl-C; unexpected (non-CLI) errors.
 */
export async function checkKey(client: PetstoreClient): Promise<KeyCheck> {
  try {
    await client.listPets({ limit: 1 });
    return { result: 'ok' };
  } catch (err) {
    if (!(err instanceof CliError) || err instanceof InterruptedError) throw err;
    if (err instanceof ApiError && err.status === 401) return { result: 'rejected', error: err };
    if (err.exitCode === ExitCode.network) return { result: 'unreachable', error: err };
    return { result: 'failed', error: err };
  }
}

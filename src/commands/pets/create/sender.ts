/**
 * Pass 2 of a bulk create: each checked record becomes one `createPet` (spec §4.2), and its
 * outcome is settled into the account in input order — created (then printed), failed, or
 * unknown. The first record not created stops the run; so do a signal and a stdout that
 * cannot take the output. A record is "unknown" only if its request may have left the
 * process, and such a request is never sent twice (cli-contract.md "Network behaviour").
 *
 * One request is in flight at a time. The steps are kept apart (dispatch, attempt, settle
 * in input order, yield) so that several in flight only change how attempts are scheduled
 * (a window of attempts and a reorder buffer before `settle`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Pet } from '../../../api/schemas.js';
import { DeprecationReporter } from '../../../deprecation.js';
import {
  ApiError,
  AuthError,
  ConfigError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  ProxyError,
  TlsError,
} from '../../../errors.js';
import { findErrorCode, NOT_SENT_CODES } from '../../../http/retry.js';
import type { BulkAccount } from './account.js';
import type { IndexedRecord } from '../../../api/records.js';

/**
 * What happened to one record whose `createPet` failed: refused or never made
 * (`not_created`), stopped at the proxy so nothing reached the API (`not_sent`), or unknown.
 */
export type FailureKind = 'not_created' | 'not_sent' | 'unknown';

/**
 * Decides whether a failed `createPet` surely did not create the pet. The server answering
 * with an error status means it did not; a connection that was never made (NOT_SENT_CODES)
 * or a TLS handshake that failed means nothing was sent. A timeout, a reset connection, an
 * interruption, or a success status with a broken body leave it unknown: the POST may have
 * reached the server (cli-contract.md "Network behaviour").
 */
export function classifyCreateFailure(err: unknown): FailureKind {
  // The http layer raises a ProxyError only while the tunnel is opened: the API saw nothing.
  if (err instanceof ProxyError) return 'not_sent';
  // A ConfigError comes from the embedded sandbox's own store: it refused the write.
  if (err instanceof ApiError || err instanceof AuthError || err instanceof TlsError || err instanceof ConfigError)
    return 'not_created';
  if (err instanceof InvalidResponseError) return err.status >= 400 ? 'not_created' : 'unknown';
  if (err instanceof NetworkError)
    return findErrorCode(err.cause, NOT_SENT_CODES) !== undefined ? 'not_created' : 'unknown';
  return 'unknown';
}

/** The outcome of one record's request; `not_sent`: it never reached the API (a proxy refused). */
export type Outcome = { kind: 'created'; pet: Pet } | { kind: 'failed' | 'unknown' | 'not_sent'; error: unknown };

/** What the sender works with. */
export interface SenderDeps {
  /** Sends one record (`createPet`); resolves with the created pet and the answer's headers. */
  create(record: IndexedRecord): Promise<{ data: Pet; headers: IncomingHttpHeaders }>;
  /** Prints a warning (a deprecation signal in an answer). */
  warn(message: string): void;
  /** The clock, for the days a deprecation leaves. */
  now(): Date;
  /** Called after each record is settled into the account (progress, the run's record). */
  settled?: () => Promise<void>;
  account: BulkAccount;
  /** Aborted by a signal: no record is sent after it. */
  signal: AbortSignal;
}

/**
 * Pass 2, as a step of a pipeline: sends every record of `records` in order, settles each
 * into `deps.account`, and yields the created pets in input order (to be printed). The
 * step after it stops the run by not asking for more (stdout cannot take the output).
 * @throws what stopped the run, once the account says where (`account.stop`): the failed
 * request's error, InterruptedError, or what reading `records` threw (the input changed).
 */
export async function* sendRecords(records: AsyncIterable<IndexedRecord>, deps: SenderDeps): AsyncGenerator<Pet> {
  const { account, signal } = deps;
  // Deprecation signals of createPet's answers: one warning however many are sent (RFC 9745, RFC 8594).
  const deprecation = new DeprecationReporter(
    (m) => deps.warn(m),
    () => deps.now(),
  );
  const create = async (record: IndexedRecord): Promise<Pet> => {
    const { data, headers } = await deps.create(record);
    deprecation.observeAndFlush(headers, 'createPet (POST /pets)');
    return data;
  };
  try {
    for await (const record of records) {
      if (signal.aborted) {
        account.notSentFrom(record);
        throw InterruptedError.from(signal);
      }
      account.dispatch(record);
      const pet = settle(record, await attempt(record, create), account);
      await deps.settled?.();
      yield pet;
    }
  } catch (err) {
    account.stopped(err);
    throw err;
  }
}

/** One record's request and its outcome; never rejects. */
async function attempt(record: IndexedRecord, create: (record: IndexedRecord) => Promise<Pet>): Promise<Outcome> {
  try {
    return { kind: 'created', pet: await create(record) };
  } catch (error) {
    const kind = classifyCreateFailure(error);
    return { kind: kind === 'not_created' ? 'failed' : kind, error };
  }
}

/**
 * Settles one outcome into the account, in input order: returns a created pet; a record
 * not created stops the run.
 * @throws the failure of a record not created.
 */
function settle(record: IndexedRecord, outcome: Outcome, account: BulkAccount): Pet {
  if (outcome.kind === 'created') {
    account.settleCreated(record);
    return outcome.pet;
  }
  if (outcome.kind === 'not_sent') {
    // Stopped before the API: the record is the first not sent, and the run stops there.
    account.unsend(record);
    account.stopped(outcome.error);
    throw outcome.error;
  }
  account.settleNotCreated(record, outcome.kind, outcome.error);
  account.stop = { at: record, kind: outcome.kind, cause: outcome.error };
  throw outcome.error;
}

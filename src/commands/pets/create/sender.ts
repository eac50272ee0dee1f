/**
 * Pass 2 of a bulk create: each checked record becomes one `createPet` (spec §4.2), with up
 * to `--concurrency` requests in flight (cli-contract.md "Bulk create"). Each answer is
 * settled into the account as it comes — created, failed, unknown — and the created pets
 * are handed on in input order through a bounded reorder buffer (flight.ts), to be printed.
 *
 * - The first record not created stops the run; so do a signal, a stdout that cannot take
 *   the output and an input that changed. No record is sent after a stop; the answers of
 *   requests under way are awaited (each within its deadline; after a signal, until the
 *   orchestration's own signal aborts them: then they are unknown).
 * - A 429 is a refusal (RFC 6585 §4: nothing was done): the record is taken back, sent
 *   again once its `Retry-After` has passed (the run's RetryPolicy decides, within the
 *   record's `--timeout`), and fewer requests are kept in flight for a while (InFlightLimit).
 * - A record is "unknown" only if its request may have left the process, and such a request
 *   is never sent twice (cli-contract.md "Network behaviour").
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { IndexedRecord } from './records.js';
import type { Pet } from '../../../client/schemas.js';
import { DeprecationReporter } from '../../../http/deprecation.js';
import {
  ApiError,
  AuthError,
  ConfigError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  ProxyError,
  TlsError,
} from '../../../base/errors.js';
import type { RetryDecision } from '../../../http/retry.js';
import { findErrorCode, NOT_SENT_CODES, REFUSAL_STATUS } from '../../../http/retry.js';
import type { BulkAccount } from './account.js';
import { GAP, InFlightLimit, ReorderBuffer } from './flight.js';

/** RFC 9110 §15.5.10 409 Conflict. */
const CONFLICT_STATUS = 409;

/**
 * What happened to one record whose `createPet` failed: refused or never made
 * (`not_created`), stopped at the proxy so nothing reached the API (`not_sent`), or unknown.
 */
export type FailureKind = 'not_created' | 'not_sent' | 'unknown';

/**
 * Decides whether a failed `createPet` surely did not create the pet. The server answering
 * with an error status means it did not; a connection that was never made (NOT_SENT_CODES)
 * or a TLS handshake that failed means nothing was sent. A timeout, a reset connection, an
 * interruption, a success status with a broken body, or a 409 (its key's first request is
 * still being answered) leave it unknown: the POST may have reached the server
 * (cli-contract.md "Network behaviour").
 */
export function classifyCreateFailure(err: unknown): FailureKind {
  // The http layer raises a ProxyError only while the tunnel is opened: the API saw nothing.
  if (err instanceof ProxyError) return 'not_sent';
  // A 409 to a create with an Idempotency-Key: the first request with that key is still
  // being answered (draft-ietf-httpapi-idempotency-key-header), and may yet create the pet.
  if (err instanceof ApiError && err.status === CONFLICT_STATUS) return 'unknown';
  // A ConfigError comes from the embedded sandbox's own store: it refused the write.
  if (err instanceof ApiError || err instanceof AuthError || err instanceof TlsError || err instanceof ConfigError)
    return 'not_created';
  if (err instanceof InvalidResponseError) return err.status >= 400 ? 'not_created' : 'unknown';
  if (err instanceof NetworkError)
    return findErrorCode(err.cause, NOT_SENT_CODES) !== undefined ? 'not_created' : 'unknown';
  return 'unknown';
}

/**
 * The outcome of one record's request: created; refused (a 429, with its headers when the
 * body was an API Error); failed, unknown, or `not_sent` (it never reached the API: a
 * proxy refused).
 */
export type Outcome =
  | { kind: 'created'; pet: Pet }
  | { kind: 'refused'; error: unknown; headers: IncomingHttpHeaders | undefined }
  | { kind: 'failed' | 'unknown' | 'not_sent'; error: unknown };

/** What the progress line shows of the requests. */
export interface FlightState {
  /** Requests under way. */
  inFlight: number;
  /** Records refused (429), waiting for their `Retry-After` to pass. */
  waiting: number;
  /** Requests allowed in flight now, and whether a refusal lowered it. */
  allowed: number;
  lowered: boolean;
}

/** What the sender works with. */
export interface SenderDeps {
  /**
   * Sends one record (`createPet`) within `timeoutMs`; resolves with the created pet and
   * the answer's headers; a 429 rejects at once (the transport leaves refusals to us).
   */
  create(record: IndexedRecord, opts: { timeoutMs: number }): Promise<{ data: Pet; headers: IncomingHttpHeaders }>;
  /** Prints a warning (a deprecation signal in an answer). */
  warn(message: string): void;
  /** The clock, for the days a deprecation leaves. */
  now(): Date;
  account: BulkAccount;
  /** Aborted by a signal: no record is sent after it. */
  signal: AbortSignal;
  /** Requests in flight at most (`--concurrency`, 1-32). */
  concurrency: number;
  /** Each record's deadline in ms (`--timeout`), its waits after refusals included. */
  timeoutMs: number;
  /** When and whether a refused record is sent again (the run's RetryPolicy). */
  afterRefusal(headers: IncomingHttpHeaders | undefined, refusals: number, remainingMs: number): RetryDecision;
  /** Told after each answer (the progress line). */
  answered?: (flight: FlightState) => void;
  /** A monotonic clock in ms (`performance.now` by default; tests pass their own). */
  clock?: () => number;
}

/** A record's attempts so far: when it was first sent, how many times it was refused. */
interface Attempts {
  firstSentAt: number;
  refusals: number;
}

/** A refused record, waiting to be sent again. */
interface Waiting extends Attempts {
  record: IndexedRecord;
  readyAt: number;
}

/** Records under way at most ahead of the oldest one not yet handed on, per request in flight. */
const WINDOW_PER_REQUEST = 8;
/** ... and at least this many. */
const WINDOW_MIN = 64;

/** Pass 2: sends records, settles their answers into the account, hands on created pets in input order. */
export class BulkSender {
  private readonly limit: InFlightLimit;
  private readonly buffer = new ReorderBuffer<Pet>();
  /** The record of each pet handed on, until it is printed. */
  private readonly handedOn = new WeakMap<Pet, IndexedRecord>();
  private readonly waiting: Waiting[] = [];
  private readonly window: number;
  private readonly clock: () => number;
  private readonly create: (record: IndexedRecord, timeoutMs: number) => Promise<Pet>;
  private inFlight = 0;
  /** One past the highest index read from the input. */
  private nextIndex = 0;
  private stopping = false;
  /** What stopped the run, thrown once the answers under way are in. */
  private failure: unknown;
  private woken = false;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: SenderDeps) {
    this.limit = new InFlightLimit(deps.concurrency);
    this.window = Math.max(WINDOW_MIN, WINDOW_PER_REQUEST * deps.concurrency);
    this.clock = deps.clock ?? (() => performance.now());
    // Deprecation signals of createPet's answers: one warning however many are sent (RFC 9745, RFC 8594).
    const deprecation = new DeprecationReporter(
      (m) => deps.warn(m),
      () => deps.now(),
    );
    this.create = async (record, timeoutMs) => {
      const { data, headers } = await deps.create(record, { timeoutMs });
      deprecation.observeAndFlush(headers, 'createPet (POST /pets)');
      return data;
    };
  }

  /**
   * The created pet `pet`, handed on by `send`, was written to stdout: the account (and so
   * the journal) knows its id reached it.
   */
  printed(pet: Pet): void {
    const record = this.handedOn.get(pet);
    if (record !== undefined) this.deps.account.printed(record);
  }

  /** What the progress line shows. */
  get flight(): FlightState {
    return {
      inFlight: this.inFlight,
      waiting: this.waiting.length,
      allowed: this.limit.allowed,
      lowered: this.limit.lowered,
    };
  }

  /**
   * The pipeline step: sends every record of `records`, and yields the created pets in
   * input order. The step after it stops the run by not asking for more (stdout cannot take
   * the output): the answers under way are still awaited and settled into the account.
   * @throws what stopped the run, once every answer under way is in: the first failed or
   * unknown record's error, InterruptedError, or what reading `records` threw.
   */
  async *send(records: AsyncIterable<IndexedRecord>): AsyncGenerator<Pet> {
    const { signal } = this.deps;
    const input = records[Symbol.asyncIterator]();
    let inputDone = false;
    const onAbort = (): void => {
      this.stop(InterruptedError.from(signal));
    };
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) onAbort();
    try {
      for (;;) {
        yield* this.buffer.take();
        inputDone = await this.fill(input, inputDone);
        yield* this.buffer.take();
        if (this.inFlight === 0 && (this.stopping || (inputDone && this.waiting.length === 0))) break;
        await this.nextEvent();
      }
      // Stopped: records refused and waiting stay not sent; what was created is handed on.
      yield* this.buffer.flush();
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.drain();
      if (!inputDone) await input.return?.().catch(() => undefined);
    }
    // What stopped the run is rethrown as it was (an Error of petstore's, or what the input threw).
    if (this.failure !== undefined) throw this.failure as Error;
  }

  /**
   * Sends records while fewer than the limit are in flight: refused records whose wait is
   * over first, then new ones from `input`, within the reorder window. The records that
   * leave together are one batch, whose intent the account writes ahead (`dispatchAll`)
   * before any of them is sent. Returns whether `input` is done.
   */
  private async fill(input: AsyncIterator<IndexedRecord>, inputDone: boolean): Promise<boolean> {
    const records: IndexedRecord[] = [];
    const attempts: Attempts[] = [];
    let done = inputDone;
    while (!this.stopping && this.inFlight + records.length < this.limit.allowed) {
      const retry = this.readyRetry();
      if (retry !== undefined) {
        records.push(retry.record);
        attempts.push(retry);
        continue;
      }
      if (done || this.nextIndex - this.buffer.next >= this.window) break;
      let next: IteratorResult<IndexedRecord>;
      try {
        next = await input.next();
      } catch (err) {
        this.stop(err);
        break;
      }
      if (next.done === true) {
        done = true;
        break;
      }
      this.nextIndex = next.value.index + 1;
      records.push(next.value);
      attempts.push({ firstSentAt: this.clock(), refusals: 0 });
    }
    this.launchAll(records, attempts);
    return done;
  }

  /**
   * Sends a batch (`records`, each with its `attempts`): its intent is written ahead, then
   * each request leaves. A stop while the batch was read (a signal, the input) or an intent
   * that cannot be written sends none of it: its new records are the first not sent, its
   * refused ones stay taken back.
   */
  private launchAll(records: IndexedRecord[], attempts: Attempts[]): void {
    if (records.length === 0) return;
    const { account } = this.deps;
    if (!this.hasStopped()) {
      try {
        account.dispatchAll(records, this.deps.now().getTime());
      } catch (err) {
        this.stop(err);
      }
    }
    if (this.hasStopped()) {
      const first = records.find((_, i) => attempts[i]?.refusals === 0);
      if (first !== undefined) account.notSentFrom(first);
      return;
    }
    records.forEach((record, i) => this.launch(record, attempts[i] as Attempts));
  }

  /** Sends `record` (its first attempt, or again after a refusal), and settles its outcome when it comes. */
  private launch(record: IndexedRecord, attempts: Attempts): void {
    const sentAt = this.clock();
    const timeoutMs = Math.max(1, this.deps.timeoutMs - (sentAt - attempts.firstSentAt));
    this.inFlight++;
    void attempt(record, (r) => this.create(r, timeoutMs)).then((outcome) => {
      this.inFlight--;
      try {
        this.settle(record, outcome, attempts, sentAt);
      } catch (err) {
        this.stop(err);
      }
      this.deps.answered?.(this.flight);
      this.notify();
    });
  }

  /** Settles one answer into the account and the reorder buffer; a record not created stops the run. */
  private settle(record: IndexedRecord, outcome: Outcome, attempts: Attempts, sentAt: number): void {
    const { account } = this.deps;
    if (outcome.kind === 'created') {
      account.settleCreated(record, String(outcome.pet.id));
      this.handedOn.set(outcome.pet, record);
      this.limit.succeeded();
      this.buffer.put(record.index, outcome.pet);
      return;
    }
    if (outcome.kind === 'refused') {
      const now = this.clock();
      const left = this.deps.timeoutMs - (now - attempts.firstSentAt);
      const decision = this.deps.afterRefusal(outcome.headers, attempts.refusals + 1, left);
      if (decision.retry && !this.stopping) {
        // Refused: surely not created. Not sent until it is sent again.
        account.unsend(record);
        this.limit.refused(sentAt, now);
        this.waiting.push({ ...attempts, record, readyAt: now + decision.waitMs, refusals: attempts.refusals + 1 });
        return;
      }
      if (this.stopping) {
        // Refused after the run stopped: not sent, and not sent again.
        account.unsend(record);
        this.buffer.put(record.index, GAP);
        return;
      }
      // Not sent again (retries used, or a wait past the record's deadline, which its error
      // then names): the 429 stands.
      const wait = decision.retry ? undefined : decision.refusedWait;
      const error =
        wait !== undefined && outcome.error instanceof ApiError ? outcome.error.withRefusedWait(wait) : outcome.error;
      this.notCreated(record, 'failed', error);
      return;
    }
    if (outcome.kind === 'not_sent') {
      // Stopped before the API: the record is not sent, and the run stops there.
      account.unsend(record);
      this.buffer.put(record.index, GAP);
      this.stop(outcome.error);
      return;
    }
    this.notCreated(record, outcome.kind, outcome.error);
  }

  /**
   * Settles `record` as failed or unknown; the first such record stops the run. When several
   * are, the account names the first of them in input order (answers come in any order).
   */
  private notCreated(record: IndexedRecord, kind: 'failed' | 'unknown', error: unknown): void {
    const { account } = this.deps;
    account.settleNotCreated(record, kind, error);
    this.buffer.put(record.index, GAP);
    const { stop } = account;
    if (stop === undefined || (stop.at !== undefined && record.index < stop.at.index)) {
      account.stop = { at: record, kind, cause: error };
    }
    this.stop(error);
  }

  /**
   * Stops sending because of `cause` (the printer's `--jq` filter failed on a created pet),
   * unless something stopped it first: no record is sent after it, the answers under way
   * are awaited and their pets handed on, and `send` then throws what stopped the run.
   */
  halt(cause: unknown): void {
    this.stop(cause);
  }

  /** Whether sending has stopped (read again after an `await`). */
  private hasStopped(): boolean {
    return this.stopping;
  }

  /** Stops sending because of `cause`, unless something stopped it first. */
  private stop(cause: unknown): void {
    if (!this.stopping) {
      this.stopping = true;
      this.failure = cause;
      this.deps.account.stopped(cause);
    }
    this.notify();
  }

  /** The refused record (lowest index first) whose wait is over, taken from the waiting list. */
  private readyRetry(): Waiting | undefined {
    const now = this.clock();
    let best: Waiting | undefined;
    for (const w of this.waiting)
      if (w.readyAt <= now && (best === undefined || w.record.index < best.record.index)) best = w;
    if (best !== undefined) this.waiting.splice(this.waiting.indexOf(best), 1);
    return best;
  }

  /**
   * Resolves at the next answer, at a stop, or when the first refused record's wait is over
   * (soon if one of them happened since the last call). Not at once, but on the event loop's
   * next check phase: the answers that arrived together (one poll of the sockets) are all
   * settled by then, so the places they free are filled together — one intent written ahead
   * for all of them, their requests leaving together (a server that batches its writes, as
   * the sandbox does, then takes them in one).
   */
  private nextEvent(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const soonest = this.stopping ? undefined : Math.min(...this.waiting.map((w) => w.readyAt));
      // A timer may fire a little early: `readyRetry` checks the clock, and the loop waits again.
      const timer =
        soonest === undefined || soonest === Infinity
          ? undefined
          : setTimeout(() => this.notify(), Math.max(0, soonest - this.clock()) + 1);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        setImmediate(resolve);
      };
    });
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Awaits the answers of the requests under way (the run stopped, or the next step stopped asking). */
  private async drain(): Promise<void> {
    this.stopping = true;
    while (this.inFlight > 0) await this.nextEvent();
  }
}

/** One record's request and its outcome; never rejects. */
async function attempt(record: IndexedRecord, create: (record: IndexedRecord) => Promise<Pet>): Promise<Outcome> {
  try {
    return { kind: 'created', pet: await create(record) };
  } catch (error) {
    const refused = refusalOf(error);
    if (refused !== undefined) return { kind: 'refused', error, headers: refused.headers };
    const kind = classifyCreateFailure(error);
    return { kind: kind === 'not_created' ? 'failed' : kind, error };
  }
}

/** A 429 answer (an API Error or not), with its headers when known. */
function refusalOf(err: unknown): { headers: IncomingHttpHeaders | undefined } | undefined {
  if (err instanceof ApiError && err.status === REFUSAL_STATUS) return { headers: err.headers };
  if (err instanceof InvalidResponseError && err.status === REFUSAL_STATUS) return { headers: undefined };
  return undefined;
}

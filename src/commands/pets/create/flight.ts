/**
 * The two bounds of a bulk create with several requests in flight (cli-contract.md "Bulk
 * create"): how many requests may be under way now (`InFlightLimit`, lowered when the
 * server refuses with 429 and raised again as answers succeed), and the reorder buffer
 * (`ReorderBuffer`) that hands created pets on in input order whatever order their answers
 * come in, holding at most a window of records.
 */

/**
 * How many requests may be in flight, between 1 and `max` (`--concurrency`), adjusted the
 * way TCP adjusts its congestion window (additive increase, multiplicative decrease,
 * RFC 5681 §3.1): a refusal (429) halves it; each created record raises it by 1/limit, so
 * a whole window of successes raises it by one. Refusals of requests sent before the last
 * halving do not halve it again: they answer the load the halving already took back.
 */
export class InFlightLimit {
  private limit: number;
  private lastDecrease = -Infinity;

  /** @param max the most requests in flight (`--concurrency`, 1-32), where it starts. */
  constructor(readonly max: number) {
    this.limit = max;
  }

  /** Requests allowed in flight now (a whole number, 1..max). */
  get allowed(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  /** Whether a refusal has lowered the limit below `max`. */
  get lowered(): boolean {
    return this.allowed < this.max;
  }

  /**
   * A request sent at `sentAt` was refused (429) at `now` (ms, one clock): halves the limit
   * (not below 1), unless it was sent before the last halving.
   */
  refused(sentAt: number, now: number): void {
    if (sentAt < this.lastDecrease) return;
    this.limit = Math.max(1, this.limit / 2);
    this.lastDecrease = now;
  }

  /** A request succeeded: raises the limit by 1/limit, up to `max`. */
  succeeded(): void {
    this.limit = Math.min(this.max, this.limit + 1 / this.limit);
  }
}

/**
 * Records' results by their 0-based index, handed on in index order: `put` in any order,
 * `take` yields what is ready from the head on. A result is a value or a gap (a record
 * with nothing to hand on: not created). `span` says how far ahead of the head records
 * are under way, which the sender keeps within a window: memory does not grow with the
 * input, whatever order answers come in.
 */
export class ReorderBuffer<T> {
  private readonly held = new Map<number, T | typeof GAP>();
  private head = 0;

  /** The lowest index not handed on yet. */
  get next(): number {
    return this.head;
  }

  /** How many results are held. */
  get size(): number {
    return this.held.size;
  }

  /** Holds `value` (a gap: nothing to hand on) for the record at `index`. */
  put(index: number, value: T | typeof GAP): void {
    if (index >= this.head) this.held.set(index, value);
  }

  /** Hands on, in index order, the values ready from the head on, skipping gaps. */
  *take(): Generator<T> {
    for (;;) {
      if (!this.held.has(this.head)) return;
      const value = this.held.get(this.head);
      this.held.delete(this.head);
      this.head++;
      if (value !== GAP) yield value as T;
    }
  }

  /** Hands on every value held, in index order, skipping the records that have none (the run stopped). */
  *flush(): Generator<T> {
    const indexes = [...this.held.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const value = this.held.get(index);
      this.held.delete(index);
      this.head = index + 1;
      if (value !== GAP) yield value as T;
    }
  }
}

/** A record with nothing to hand on (not created). */
export const GAP: unique symbol = Symbol('gap');

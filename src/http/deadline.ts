/**
 * One deadline (cli-contract.md "Network behaviour"): `--timeout` bounds the whole command,
 * retries and waits included, or, for a bulk create, each record's request on its own. Its
 * signal bounds every phase (connect, headers, body, the waits between retries), so
 * undici's own 300 s defaults never fire first.
 */
import { raceAbort } from '../base/abort.js';

/** A deadline `timeoutMs` from when it is made, combined with the run's Ctrl-C signal. */
export class Deadline {
  private readonly endsAt: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly timeoutController = new AbortController();
  private readonly combinedController = new AbortController();
  private readonly onInterrupt = (): void => {
    this.combinedController.abort(this.interrupt?.reason);
  };

  /**
   * @param timeoutMs the deadline in ms (`--timeout` × 1000).
   * @param interrupt aborted on Ctrl-C or SIGTERM; ends every wait as the deadline does.
   */
  constructor(
    readonly timeoutMs: number,
    private readonly interrupt: AbortSignal | undefined,
  ) {
    this.endsAt = Date.now() + timeoutMs;
    // A timer cleared by `dispose` rather than AbortSignal.timeout, whose timers live until
    // they fire: a bulk create makes one deadline per request, hundreds of thousands.
    this.timer = setTimeout(() => {
      const reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      this.timeoutController.abort(reason);
      this.combinedController.abort(reason);
    }, timeoutMs);
    this.timer.unref();
    if (interrupt?.aborted === true) this.combinedController.abort(interrupt.reason);
    else interrupt?.addEventListener('abort', this.onInterrupt);
  }

  /** Stops the clock and forgets the interrupt signal (a request's deadline, once it is answered). */
  dispose(): void {
    clearTimeout(this.timer);
    this.interrupt?.removeEventListener('abort', this.onInterrupt);
  }

  /** Aborted when the deadline passes or the run is interrupted: what a request waits on. */
  get signal(): AbortSignal {
    return this.combinedController.signal;
  }

  /** Aborted when the deadline passes (only): tells a timeout from an interruption. */
  get timeoutSignal(): AbortSignal {
    return this.timeoutController.signal;
  }

  /**
   * `pending`'s outcome, or a rejection as soon as the deadline passes or the run is
   * interrupted, whichever comes first. undici honours the signal it is given, except in a
   * proxy's tunnel set-up: a proxy that closes the `CONNECT` is dialled again in a loop
   * that never settles (nodejs/undici#3897, fixed only in undici 8, which needs Node 22).
   * A later rejection of `pending` is ignored; closing the transport ends its work.
   */
  race<T>(pending: Promise<T>): Promise<T> {
    return raceAbort(pending, this.signal);
  }

  /** Milliseconds left (never negative). */
  remainingMs(): number {
    return Math.max(0, this.endsAt - Date.now());
  }
}

/**
 * One deadline (cli-contract.md "Network behaviour"): `--timeout` bounds the whole command,
 * retries and waits included, or, for a bulk create, each record's request on its own. Its
 * signal bounds every phase (connect, headers, body, the waits between retries), so
 * undici's own 300 s defaults never fire first.
 */
import { raceAbort } from '../abort.js';

/** A deadline `timeoutMs` from when it is started, combined with the run's Ctrl-C signal. */
export class Deadline {
  private endsAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timeoutController = new AbortController();
  private combinedController = new AbortController();
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
    this.interrupt?.addEventListener('abort', this.onInterrupt);
    this.restart();
  }

  /** Starts counting `timeoutMs` (by default the deadline's own) again from now. */
  restart(timeoutMs = this.timeoutMs): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.endsAt = Date.now() + timeoutMs;
    this.timeoutController = new AbortController();
    this.combinedController = new AbortController();
    const timeout = this.timeoutController;
    const combined = this.combinedController;
    // A timer cleared by `dispose` rather than AbortSignal.timeout, whose timers live until
    // they fire: a bulk create starts one deadline per request, hundreds of thousands.
    this.timer = setTimeout(() => {
      const reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      timeout.abort(reason);
      combined.abort(reason);
    }, timeoutMs);
    this.timer.unref();
    if (this.interrupt?.aborted === true) combined.abort(this.interrupt.reason);
  }

  /** Stops the clock and forgets the interrupt signal (a request's deadline, once it is answered). */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
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

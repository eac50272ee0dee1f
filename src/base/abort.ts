/**
 * Waiting on something that may never end on its own, bounded by an AbortSignal: a request
 * undici does not give up (a proxy's tunnel set-up), a read from a FIFO nobody writes to, a
 * write to a stdout nobody reads. A leaf: the transport's deadline (`http/deadline.ts`) and
 * the commands share it.
 */
import { InterruptedError } from './errors.js';

/**
 * `pending`'s outcome, or a rejection with `reason()` as soon as `signal` aborts, whichever
 * comes first (by default the signal's own reason). A rejection of `pending` after the
 * abort is ignored. The abort listener is removed each time: racing against one long-lived
 * promise instead would keep every value ever raced (each race leaves a reaction on it), a
 * chunk of input per read.
 */
export function raceAbort<T>(
  pending: Promise<T>,
  signal: AbortSignal,
  reason: () => Error = () => signal.reason as Error,
): Promise<T> {
  if (signal.aborted) {
    pending.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(reason());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * `pending`'s outcome, or InterruptedError for the signal that aborted the run as soon as
 * `signal` aborts (`raceAbort`).
 */
export function settleOrAbort<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceAbort(pending, signal, () => InterruptedError.from(signal));
}

/**
 * Stops iterating at once when `signal` aborts, even while a read is pending (reading a FIFO
 * nobody writes to does not end on its own).
 * @throws InterruptedError for the signal that aborted the run.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await settleOrAbort(it.next(), signal);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a read blocked in the OS (a FIFO without a writer) may never settle.
    void it.return?.();
  }
}

/**
 * What a bulk create's progress line says (cli-contract.md "Bulk create": on a terminal,
 * one progress line on stderr while sending, and one summary line at the end). Io draws
 * the line (`Io.progress`: on stderr's terminal only, redrawn in place, erased before any
 * other line); this part says what it shows.
 */
import type { Progress } from '../../../io/io.js';
import { countOf, formatCount } from '../../../text/count.js';

export type { Progress };

/** What the progress line says of the requests (the sender's `FlightState`). */
export interface FlightCounts {
  /** Requests under way. */
  inFlight: number;
  /** Records refused (429) and waiting to be sent again. */
  waiting: number;
  /** Whether refusals lowered the requests kept in flight. */
  lowered: boolean;
  /** Requests allowed in flight now. */
  allowed: number;
}

/**
 * The bulk create's progress: `created 1,234 of 5,000 (230/s)`, the rate once a second has
 * passed, counting every record whose answer said created, in whatever order answers came.
 * With several requests in flight it says how many (`16 in flight`); after 429 refusals,
 * how many the run keeps now and how many records wait to be sent again
 * (`4 in flight, slowed by 429, 3 waiting`).
 */
export function sendingProgress(created: number, records: number, elapsedMs: number, flight?: FlightCounts): string {
  const parts: string[] = [];
  if (elapsedMs >= 1000) parts.push(`${formatCount(Math.round((created * 1000) / elapsedMs))}/s`);
  if (flight !== undefined && (flight.allowed > 1 || flight.lowered)) {
    parts.push(`${formatCount(flight.inFlight)} in flight${flight.lowered ? ', slowed by 429' : ''}`);
  }
  if (flight !== undefined && flight.waiting > 0) parts.push(`${formatCount(flight.waiting)} waiting`);
  return `created ${formatCount(created)} of ${formatCount(records)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** The line at the end of a bulk create: `created 5,000 pets in 21.7 s`. */
export function sendingSummary(created: number, elapsedMs: number): string {
  return `created ${countOf(created, 'pet')} in ${(elapsedMs / 1000).toFixed(1)} s`;
}

/** How long saving the remaining file goes on before its progress is shown, in ms. */
export const SAVING_PROGRESS_AFTER_MS = 1000;

/**
 * What to call as the remaining file is written, with the records written so far: from
 * SAVING_PROGRESS_AFTER_MS on (by `clock`, in ms), `progress` shows `saving the 149,996
 * records not created: 12,000 written`, so that after Ctrl-C on a slow disk the person
 * sees why the run has not ended yet (cli-contract.md "Errors and exit codes").
 */
export function savingProgress(
  progress: Progress,
  records: number,
  clock: () => number = () => performance.now(),
): (written: number) => void {
  const started = clock();
  const what = records === 1 ? 'the 1 record' : `the ${formatCount(records)} records`;
  return (written) => {
    if (clock() - started >= SAVING_PROGRESS_AFTER_MS) {
      progress.update(`saving ${what} not created: ${formatCount(written)} written`);
    }
  };
}

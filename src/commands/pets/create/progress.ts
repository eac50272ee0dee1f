/**
 * What a bulk create's progress line says (cli-contract.md "Bulk create": on a terminal,
 * one progress line on stderr while sending, and one summary line at the end). Io draws
 * the line (`Io.progress`: on stderr's terminal only, redrawn in place, erased before any
 * other line); this part says what it shows.
 */
export type { Progress } from '../../../io.js';

/** `1,234` */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** The bulk create's progress: `created 1,234 of 5,000 (230/s)`; the rate once a second has passed. */
export function sendingProgress(created: number, records: number, elapsedMs: number): string {
  const rate = elapsedMs >= 1000 ? ` (${formatCount(Math.round((created * 1000) / elapsedMs))}/s)` : '';
  return `created ${formatCount(created)} of ${formatCount(records)}${rate}`;
}

/** The line at the end of a bulk create: `created 5,000 pets in 21.7 s`. */
export function sendingSummary(created: number, elapsedMs: number): string {
  return `created ${formatCount(created)} pet${created === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s`;
}

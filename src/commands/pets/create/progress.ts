/**
 * A progress line on a terminal (cli-contract.md "Bulk create": on a terminal, one progress
 * line on stderr while sending): one line, redrawn in place at most every PROGRESS_MS,
 * erased before anything else is written to the terminal, never wider than it. When stderr
 * is not a terminal it writes nothing at all.
 */

/** Least time between two drawings, in ms. */
const PROGRESS_MS = 100;

/** Where a progress line is drawn: a terminal's stream. */
export interface ProgressTerminal {
  write(text: string): unknown;
}

/** A progress line. */
export interface Progress {
  /** Shows `text` (drawn now, or at the next update when one was drawn less than PROGRESS_MS ago). */
  update(text: string): void;
  /** Erases the line, if one is shown; the next `update` draws it again. */
  clear(): void;
}

/**
 * A progress line on `terminal` (none: nothing is ever written), `columns` wide (80 when
 * unknown), timed by `now` (ms). Erasing is `\r` and EL (erase in line, ECMA-48 `CSI K`);
 * the text is cut to the width less one column, so the terminal never wraps it.
 */
export function progressLine(
  terminal: ProgressTerminal | undefined,
  columns: number | undefined,
  now: () => number,
): Progress {
  const width = Math.max(1, (columns ?? 80) - 1);
  if (terminal === undefined) return { update: () => undefined, clear: () => undefined };
  let shown = false;
  let drawnAt = -Infinity;
  return {
    update: (text) => {
      const t = now();
      if (shown && t - drawnAt < PROGRESS_MS) return;
      drawnAt = t;
      shown = true;
      terminal.write(`\r${text.slice(0, width)}\x1b[K`);
    },
    clear: () => {
      if (!shown) return;
      shown = false;
      drawnAt = -Infinity;
      terminal.write('\r\x1b[K');
    },
  };
}

/** `1,234` */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

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
    parts.push(`${flight.inFlight} in flight${flight.lowered ? ', slowed by 429' : ''}`);
  }
  if (flight !== undefined && flight.waiting > 0) parts.push(`${formatCount(flight.waiting)} waiting`);
  return `created ${formatCount(created)} of ${formatCount(records)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** The line at the end of a bulk create: `created 5,000 pets in 21.7 s`. */
export function sendingSummary(created: number, elapsedMs: number): string {
  return `created ${formatCount(created)} pet${created === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s`;
}

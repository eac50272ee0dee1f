/**
 * A one-line progress indicator on stderr, rewritten in place with `\r` and erased at the
 * end. It draws only when stderr is a terminal: piped or redirected stderr never gets it,
 * so logs stay clean (gh's rule: progress is for people).
 */
import type { Writable } from 'node:stream';

/** Erase-line: carriage return plus ANSI "erase in line" (EL, CSI K). */
const CLEAR = '\r\x1b[K';

/** Progress line on one stream. */
export class ProgressLine {
  private shown = false;

  constructor(
    private readonly out: Writable,
    private readonly enabled: boolean,
  ) {}

  /** Replaces the line with `text` (no-op when disabled). */
  update(text: string): void {
    if (!this.enabled) return;
    this.out.write(`${CLEAR}${text}`);
    this.shown = true;
  }

  /** Erases the line, so later messages start on a clean line. */
  clear(): void {
    if (!this.shown) return;
    this.out.write(CLEAR);
    this.shown = false;
  }
}

/** `fetched 3 pages, 60 pets…` */
export function describeListProgress(pages: number, pets: number): string {
  return `fetched ${pages} page${pages === 1 ? '' : 's'}, ${pets} pet${pets === 1 ? '' : 's'}…`;
}

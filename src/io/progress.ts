/**
 * The progress line (cli-contract.md "Output": progress goes to stderr, for people): one
 * line on stderr's terminal, redrawn in place at most every PROGRESS_MS, never wider than
 * the terminal. Io owns it: every other line Io writes to that terminal (a message, a
 * `--verbose` line, records on the same terminal) erases it first and draws it again
 * after, so it always stands below them and never runs into one. When stderr is not a
 * terminal nothing is ever written (gh's rule: progress is for people).
 */

/** Least time between two drawings of a changed text, in ms. */
const PROGRESS_MS = 100;

/** Erase the line: carriage return and EL (erase in line, ECMA-48 `CSI K`). */
const ERASE = '\r\x1b[K';

/** A progress line, as commands use it. */
export interface Progress {
  /** Shows `text` (drawn now, or with the next update or line when drawn less than PROGRESS_MS ago). */
  update(text: string): void;
  /** Erases the line, if one is shown; the next `update` draws it again. */
  clear(): void;
}

/**
 * The progress line Io keeps on stderr's terminal: `write` writes to that terminal,
 * `columns` is its width (80 when unknown), `now` the clock in ms. Disabled, it writes
 * nothing at all.
 */
export class ProgressLine implements Progress {
  /** The text the line shows (or will show again after a line written above it). */
  private text: string | undefined;
  private drawn = false;
  private drawnAt = -Infinity;
  private readonly width: number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly enabled: boolean,
    columns: number | undefined,
    private readonly now: () => number,
  ) {
    // One column short of the width: a line that fills the terminal would wrap the cursor.
    this.width = Math.max(1, (columns ?? 80) - 1);
  }

  update(text: string): void {
    if (!this.enabled) return;
    this.text = text;
    const t = this.now();
    if (this.drawn && t - this.drawnAt < PROGRESS_MS) return;
    this.draw(t);
  }

  clear(): void {
    this.text = undefined;
    this.erase();
  }

  /**
   * Runs `writeLine`, which writes whole lines to the same terminal, with the progress line
   * erased before and drawn again after (with its latest text).
   */
  around(writeLine: () => void): void {
    const shown = this.drawn;
    this.erase();
    writeLine();
    if (shown && this.text !== undefined) this.draw(this.now());
  }

  private draw(t: number): void {
    if (this.text === undefined) return;
    this.drawnAt = t;
    this.drawn = true;
    this.write(`\r${this.text.slice(0, this.width)}\x1b[K`);
  }

  private erase(): void {
    if (!this.drawn) return;
    this.drawn = false;
    this.write(ERASE);
  }
}

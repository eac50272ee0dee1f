/**
 * `pets watch` on a terminal: the pets as a table redrawn in place, below whatever was on
 * the screen before (not the alternate screen, so the last view stays when the watch
 * ends). The table is `pets list`'s (`renderPetTable`, fitted to the width), behind a
 * column of marks (`*` for a pet added or changed in the last two walks and 5 s at least), cut to the rows that
 * fit with an `N more` line, and followed by a status line. The frame never reaches the
 * terminal's last row, so drawing it never scrolls, and every line fits the width, so
 * none wraps: moving the cursor up by the frame's height finds its first line again. The
 * size is read at each draw, so a resized terminal gets a frame of its new size.
 */
import type { PetField } from '../../../client/constants.js';
import type { Pet } from '../../../client/schemas.js';
import type { Colors, Io } from '../../../io/io.js';
import type { Shutdown } from '../../../base/shutdown.js';
import { truncateToWidth } from '../../../text/width.js';
import { petKey } from './view.js';

/**
 * A pet added or changed stays marked in the frames of at least this many successful walks
 * (the one that found the change and the next), and for at least `MARK_MS` after that walk:
 * a short `--interval` does not make a mark blink, a long one does not keep it for ever.
 */
export const MARK_WALKS = 2;
/** See `MARK_WALKS`: the shortest time a pet stays marked, in ms. */
export const MARK_MS = 5000;

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
/** Cursor to the start of the line, and everything below it erased. */
const ERASE_BELOW = '\r\x1b[J';
/** Cursor to the top of the screen, and the screen erased. */
const ERASE_SCREEN = '\x1b[H\x1b[J';

/** What one frame shows. */
export interface Frame {
  /** The pets, in the order shown: all of them, or at least the first `frameRoom` of them. */
  pets: readonly Pet[];
  /** How many pets there are, when `pets` holds only the first of them. */
  total?: number;
  /** Ids (petKey) of the pets to mark. */
  marked: ReadonlySet<string>;
  /** `--fields`, or every field. */
  fields: readonly PetField[] | undefined;
  /** The status line, before it is cut to the width. */
  status: string;
}

/** The terminal a frame is drawn on. */
export interface Screen {
  columns: number | undefined;
  rows: number | undefined;
  colors: Colors;
}

/** Orders pets by id, exactly (int64). */
export function byId(a: Pet, b: Pet): number {
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * How many pets a frame on `screen` can hold: its rows less the header, the status line and
 * the row kept free at the bottom (every pet without `rows`). More pets than this are shown
 * as one row less and an `N more` line.
 */
export function frameRoom(screen: Pick<Screen, 'rows'>): number {
  return screen.rows === undefined ? Infinity : Math.max(1, screen.rows - 3);
}

/**
 * The lines of one frame (without newlines): the table with its marks column, the rows
 * that fit (`rows`, one row kept free so drawing never scrolls) and `N more`, then the
 * status line. Without `rows` every pet is shown; without `columns` nothing is cut.
 */
export function renderFrame(
  frame: Frame,
  screen: Screen,
  renderTable: (pets: readonly Pet[], c: Colors, columns?: number, fields?: readonly PetField[]) => string,
): string[] {
  const { pets } = frame;
  const total = frame.total ?? pets.length;
  const room = frameRoom(screen);
  const fits = total <= room;
  const shown = fits ? pets : pets.slice(0, Math.max(0, room - 1));
  const width = screen.columns === undefined ? undefined : Math.max(1, screen.columns - 2);
  const table = renderTable(shown, screen.colors, width, frame.fields).replace(/\n$/, '').split('\n');
  const lines = table.map((line, i) => {
    const pet = i === 0 ? undefined : shown[i - 1];
    const mark = pet !== undefined && frame.marked.has(petKey(pet)) ? screen.colors.yellow('*') : ' ';
    return `${mark} ${line}`;
  });
  if (!fits) lines.push(screen.colors.dim(`  ${total - shown.length} more`));
  const cut = (s: string): string => (screen.columns === undefined ? s : truncateToWidth(s, screen.columns));
  lines.push(screen.colors.dim(cut(frame.status)));
  return lines;
}

/**
 * The frame on the terminal: drawn, drawn again in place, and left on the screen with the
 * cursor shown again at the end, also when the process is ended by force.
 */
export class LiveScreen {
  private height = 0;
  private width: number | undefined;
  private started = false;
  private readonly removeHook: () => void;

  constructor(
    private readonly io: Pick<Io, 'out' | 'outNow'>,
    shutdown: Shutdown,
  ) {
    this.removeHook = shutdown.add({
      onForcedEnd: () => {
        if (this.started) this.io.outNow(SHOW_CURSOR);
        return false;
      },
    });
  }

  /**
   * Draws `lines` over the frame drawn before, on a terminal `width` columns wide. After
   * the width changed, the terminal may have rewrapped the frame before, so its height is
   * no longer known: the screen is erased and the frame drawn at its top.
   * @throws OutputError as `Io.out` (EPIPE when the terminal went away).
   */
  async draw(lines: readonly string[], width: number | undefined): Promise<void> {
    const resized = this.started && width !== this.width;
    const back = resized ? ERASE_SCREEN : `${this.height === 0 ? '' : `\x1b[${this.height}A`}${ERASE_BELOW}`;
    const first = this.started ? '' : HIDE_CURSOR;
    this.started = true;
    this.height = lines.length;
    this.width = width;
    await this.io.out(`${first}${back}${lines.join('\n')}\n`);
  }

  /** Shows the cursor again; the last frame stays. Never throws. */
  async end(): Promise<void> {
    this.removeHook();
    if (!this.started) return;
    this.started = false;
    await this.io.out(SHOW_CURSOR).catch(() => undefined);
  }
}

/**
 * Streaming output of records (pages of `pets list --all`, results of bulk create): lines
 * for ndjson and the tab-separated form are written as records arrive, `json` writes one
 * array element by element (closed at the end), and the TTY table (column widths need every
 * row) accumulates and prints at the end.
 */
import type { Pet } from '../api/schemas.js';
import type { Context } from '../context.js';
import { renderJsonArrayEnd, renderJsonArrayItem, renderNdjson, renderPetTsv } from './pets.js';

/** Writes `text` to stdout, waiting for `drain` when the pipe is full so memory stays flat. */
export async function writeOut(ctx: Context, text: string): Promise<void> {
  const out = ctx.io.stdout as { write(s: string): unknown; once?: (ev: string, fn: () => void) => unknown };
  if (out.write(text) === false && typeof out.once === 'function') {
    await new Promise<void>((resolve) => out.once?.('drain', resolve));
  }
}

/** Prints records in the context's render mode as they come. */
export class RecordStream {
  private readonly held: Pet[] = [];
  private count = 0;
  private readonly mode;

  constructor(private readonly ctx: Context) {
    this.mode = ctx.renderMode();
  }

  /** Number of records pushed so far. */
  get size(): number {
    return this.count;
  }

  /** Adds records: printed at once (ndjson, tsv, json array elements), or held for `end` (table). */
  async push(records: readonly Pet[]): Promise<void> {
    const before = this.count;
    this.count += records.length;
    if (this.mode === 'json') {
      if (records.length === 0) return;
      await writeOut(this.ctx, records.map((r, i) => renderJsonArrayItem(r, before + i === 0)).join(''));
      return;
    }
    if (this.mode === 'ndjson' || this.mode === 'tsv') {
      if (records.length === 0) return;
      const render = this.mode === 'ndjson' ? renderNdjson : renderPetTsv;
      await writeOut(this.ctx, records.map((r) => render(r)).join(''));
      return;
    }
    for (const r of records) this.held.push(r);
  }

  /**
   * Closes the JSON array (`[]` when empty) or prints the held table. Called on success
   * and on failure alike, so the records handled before a failure are never lost and the
   * JSON stays well-formed.
   */
  async end(): Promise<void> {
    if (this.mode === 'json') {
      await writeOut(this.ctx, renderJsonArrayEnd(this.count));
    } else if (this.mode === 'table' && this.held.length > 0) {
      const { renderPetTable } = await import('./table.js');
      await writeOut(this.ctx, renderPetTable(this.held, this.ctx.io.colorOut));
    }
    this.held.length = 0;
  }
}

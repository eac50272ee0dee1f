/**
 * Writing rendered pets to stdout through `Io` alone (the renderers themselves are pure):
 * one pet, a list, or a stream of records (pages of `pets list --all`, results of bulk
 * create) whose lines are written as records arrive.
 */
import { OutputError } from '../errors.js';
import type { Io } from '../io.js';
import {
  renderJson,
  renderJsonArrayEnd,
  renderJsonArrayItem,
  renderNdjson,
  renderPetTsv,
  type PetRow,
  type RenderMode,
} from './pets.js';

/**
 * Writes `text` to stdout and waits until the stream has taken it, so memory stays flat
 * however much is written, and a failure is known at once.
 * @throws OutputError when stdout cannot be written (EPIPE: its reader went away; ENOSPC, EIO).
 */
export async function writeOut(io: Io, text: string): Promise<void> {
  const failed = io.stdoutError();
  if (failed !== undefined) throw new OutputError(failed);
  await new Promise<void>((resolve, reject) => {
    io.stdout.write(text, (err) => {
      if (err === null || err === undefined) resolve();
      else reject(new OutputError(io.stdoutError() ?? err));
    });
  });
}

/**
 * Writes a rendered table: through the pager when it is longer than the terminal (only on
 * a terminal; see pager.ts), else like any other output.
 * @throws OutputError as `writeOut`.
 */
async function writeTable(io: Io, text: string): Promise<void> {
  const pager = io.pager();
  if (pager !== undefined) {
    const { shouldPage, page } = await import('./pager.js');
    if (shouldPage(io, text) && (await page(io, pager, text))) return;
  }
  await writeOut(io, text);
}

/**
 * Renders pets as the table (loaded only here), no wider than stdout's terminal; piped
 * (`-o table | cat`) it has no width to fit, so no name is shortened.
 */
async function renderTable(io: Io, pets: readonly PetRow[]): Promise<string> {
  const { renderPetTable } = await import('./table.js');
  return renderPetTable(pets, io.colorOut, io.stdoutColumns);
}

/** Writes pets in `mode`; an empty list prints `[]` in json and nothing otherwise. */
export async function writePets(io: Io, mode: RenderMode, pets: readonly PetRow[]): Promise<void> {
  switch (mode) {
    case 'json':
      return writeOut(io, renderJson(pets));
    case 'ndjson':
      return writeOut(io, pets.map((p) => renderNdjson(p)).join(''));
    case 'tsv':
      return writeOut(io, pets.map((p) => renderPetTsv(p)).join(''));
    case 'table':
      if (pets.length > 0) await writeTable(io, await renderTable(io, pets));
  }
}

/** Writes one pet: an object in json, one line in ndjson/tsv, a one-row table on a TTY. */
export async function writePet(io: Io, mode: RenderMode, pet: PetRow): Promise<void> {
  if (mode === 'json') return writeOut(io, renderJson(pet));
  return writePets(io, mode, [pet]);
}

/**
 * Prints records in a render mode as they come: lines for ndjson and the tab-separated
 * form at once, `json` one array element by element (closed by `end`), and the TTY table
 * (column widths need every row) all at `end`.
 */
export class RecordStream {
  private readonly held: PetRow[] = [];
  private count = 0;

  constructor(
    private readonly io: Io,
    private readonly mode: RenderMode,
  ) {}

  /** Number of records pushed so far. */
  get size(): number {
    return this.count;
  }

  /** Adds records: printed at once (ndjson, tsv, json array elements), or held for `end` (table). */
  async push(records: readonly PetRow[]): Promise<void> {
    const before = this.count;
    this.count += records.length;
    if (records.length === 0) return;
    switch (this.mode) {
      case 'json':
        return writeOut(this.io, records.map((r, i) => renderJsonArrayItem(r, before + i === 0)).join(''));
      case 'ndjson':
        return writeOut(this.io, records.map((r) => renderNdjson(r)).join(''));
      case 'tsv':
        return writeOut(this.io, records.map((r) => renderPetTsv(r)).join(''));
      case 'table':
        this.held.push(...records);
    }
  }

  /**
   * Closes the JSON array (`[]` when empty) or prints the held table. Called on success
   * and on failure alike, so the records handled before a failure are never lost and the
   * JSON stays well-formed.
   */
  async end(): Promise<void> {
    if (this.mode === 'json') await writeOut(this.io, renderJsonArrayEnd(this.count));
    else if (this.mode === 'table' && this.held.length > 0)
      await writeTable(this.io, await renderTable(this.io, this.held));
    this.held.length = 0;
  }
}

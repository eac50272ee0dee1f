/**
 * The TTY table of pets (cli-contract.md "Output"): header, aligned columns id, name,
 * categoryId, status, the status coloured.
 */
import Table from 'cli-table3';
import type { Pet } from '../api/schemas.js';
import type { Colors } from '../io.js';
import { escapeForTerminal } from './escape.js';
import { PET_COLUMNS } from './pets.js';

/** Colours a status: available green, pending yellow, sold red. */
export function colorStatus(status: string | undefined, c: Colors): string {
  if (status === undefined) return '';
  if (status === 'available') return c.green(status);
  if (status === 'pending') return c.yellow(status);
  if (status === 'sold') return c.red(status);
  return status;
}

/** Renders pets as a borderless aligned table ending in `\n`. */
export function renderPetTable(pets: readonly Pet[], c: Colors): string {
  const table = new Table({
    head: PET_COLUMNS.map((h) => c.bold(h)),
    // cli-table3's default style paints ANSI even into pipes; colour comes from `c` only.
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2, compact: true },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const p of pets) {
    table.push([String(p.id), escapeForTerminal(p.name), String(p.categoryId), colorStatus(p.status, c)]);
  }
  return (
    table
      .toString()
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n') + '\n'
  );
}

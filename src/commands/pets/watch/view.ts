/**
 * What `pets watch` knows of the store, and the differences each walk brings
 * (cli-contract.md, the command table's `pets watch` row): the pets as last reported, and
 * those one complete walk lacked. One map of the store's size, and a walk keeps only what
 * differs from it (`WalkTally`): memory is bounded by the store, not by how long the watch
 * runs or how much it changes. A pet is kept as one compact
 * record, its JSON text (`PetRecord`), not as the object a page was parsed into: a string
 * per pet is a fraction of an object's size, and the pages' objects are garbage as soon as
 * the walk has read them.
 *
 * A poll sees only what differs between two walks: a change undone between them is never
 * seen. A pet is `removed` only when two complete walks in a row lack it, since a server
 * that pages by offset can skip a pet in one walk when another is removed before it. A walk
 * stopped by `--max-pages` is incomplete: it reports what it saw as `added` or `changed`
 * and never a removal, and leaves the count of walks a pet was missing from as it was.
 */
import type { PetField } from '../../../client/constants.js';
import type { Pet } from '../../../client/schemas.js';
import { parseJson, stringifyJson } from '../../../base/json.js';

/**
 * A pet as the watch keeps it: the compact JSON text of every field the server sent
 * (int64 exact), what an event's `pet` and `previous` and the live table are made from.
 */
export type PetRecord = string;

/** One difference between two walks. */
export interface PetChange {
  type: 'added' | 'changed' | 'removed';
  /** The pet's id (`petKey`). */
  id: string;
  /** The pet as the walk saw it; for `removed`, as it was last reported. */
  pet: PetRecord;
  /** For `changed`: the pet as it was last reported. */
  previous?: PetRecord;
}

/** The key a pet is known by: its id, exact. */
export function petKey(pet: Pet): string {
  return String(pet.id);
}

/**
 * A validated pet as the watch keeps it (`PetRecord`). A pet of plain values (no bigint, no
 * lossless number: nearly every one) goes through the engine's own JSON.stringify, whose
 * text is one flat string; the int64-exact writer builds its text from many pieces, each
 * kept in memory as long as the string.
 */
function toRecord(pet: Pet): PetRecord {
  for (const value of Object.values(pet)) {
    if (value !== null && typeof value === 'object') return stringifyJson(pet);
    if (typeof value === 'bigint') return stringifyJson(pet);
  }
  return JSON.stringify(pet);
}

/** A kept pet as an object again, int64 exact (bigint beyond 2^53). */
export function fromRecord(record: PetRecord): Pet {
  return parseJson(record) as Pet;
}

/** Whether two versions of a pet read the same in `fields` (a field left out of `--fields` is not watched). */
function samePet(a: Pet, b: Pet, fields: readonly PetField[]): boolean {
  return fields.every(
    (f) => (a[f] === undefined ? undefined : String(a[f])) === (b[f] === undefined ? undefined : String(b[f])),
  );
}

/** A pet as last reported, and the number of the last walk that saw it. */
interface Shown {
  record: PetRecord;
  seen: number;
}

/**
 * What one walk saw, told pet by pet as its pages come (`see`), measured against the view
 * as it goes: a pet whose record is the one shown only has its walk number noted, so a walk
 * keeps no copy of the store, only the records that differ (`pending`, in the walk's order).
 */
export class WalkTally {
  /**
   * Ids whose record differs from the one shown (or is new), with the record seen last, in
   * the form the view keeps: a first walk's become the view itself, never copied.
   */
  readonly pending = new Map<string, Shown>();
  /** The first id this walk saw with two different records. */
  duplicate: string | undefined;

  /** @param number the walk's number in the run, 1-based, failed walks counted. */
  constructor(
    readonly number: number,
    private readonly shown: ReadonlyMap<string, Shown>,
  ) {}

  /**
   * Takes one pet of the walk. The same record twice (offset paging shows it while a pet is
   * inserted before the page) is one pet; two different records with one id are a
   * `duplicate`, and the one seen last is kept.
   */
  see(pet: Pet): void {
    const id = petKey(pet);
    const record = toRecord(pet);
    const earlier = this.pending.get(id);
    if (earlier !== undefined) {
      if (earlier.record !== record) this.duplicate ??= id;
      earlier.record = record;
      return;
    }
    const shown = this.shown.get(id);
    if (shown !== undefined && shown.record === record) {
      shown.seen = this.number;
      return;
    }
    // Seen earlier in this walk as the record shown, and now as another.
    if (shown !== undefined && shown.seen === this.number) this.duplicate ??= id;
    this.pending.set(id, { record, seen: this.number });
  }
}

/** The pets as last reported, and the differences each walk brings. */
export class PetView {
  private shown = new Map<string, Shown>();
  /** Ids of shown pets the last complete walk lacked: one more complete walk without them removes them. */
  private readonly missingOnce = new Set<string>();
  private walks = 0;

  /** @param fields the fields compared (`--fields`, or every field): a change elsewhere is not reported. */
  constructor(private readonly fields: readonly PetField[]) {}

  /** The pets as last reported, in the order they were first seen, each made an object as it is read. */
  *pets(): IterableIterator<Pet> {
    for (const { record } of this.shown.values()) yield fromRecord(record);
  }

  /** How many pets are shown. */
  get size(): number {
    return this.shown.size;
  }

  /** Starts a walk: its pets are told to the tally, which `apply` takes once the walk succeeded. */
  walk(): WalkTally {
    return new WalkTally(++this.walks, this.shown);
  }

  /**
   * Takes one walk's tally and returns the differences, in order: `added` and `changed` in
   * the walk's order, then `removed` in the order the pets were first seen. `complete` is
   * false for a walk stopped by `--max-pages`: no removal is reported from it.
   */
  apply(tally: WalkTally, complete: boolean): PetChange[] {
    const changes: PetChange[] = [];
    // A first walk's pets are the view: taken as they are, not copied (two maps of the store at once).
    if (this.shown.size === 0) this.shown = tally.pending;
    for (const [id, seen] of tally.pending) {
      const pet = seen.record;
      const shown = this.shown.get(id);
      if (shown === seen) {
        changes.push({ type: 'added', id, pet });
        continue;
      }
      if (shown === undefined) {
        changes.push({ type: 'added', id, pet });
        this.shown.set(id, seen);
        continue;
      }
      // Only a different text reaches here: read to compare the watched fields.
      if (!samePet(fromRecord(shown.record), fromRecord(pet), this.fields))
        changes.push({ type: 'changed', id, pet, previous: shown.record });
      shown.record = pet;
      shown.seen = tally.number;
    }
    for (const id of this.missingOnce) if (this.shown.get(id)?.seen === tally.number) this.missingOnce.delete(id);
    if (!complete) return changes;
    for (const [id, shown] of this.shown) {
      if (shown.seen === tally.number) continue;
      if (this.missingOnce.delete(id)) {
        // Deleting the entry being visited is safe: a Map's iteration goes on with the next.
        this.shown.delete(id);
        changes.push({ type: 'removed', id, pet: shown.record });
      } else this.missingOnce.add(id);
    }
    return changes;
  }
}

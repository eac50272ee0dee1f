/**
 * What `pets watch` knows of the store, and the differences each walk brings
 * (cli-contract.md, the command table's `pets watch` row): the pets as last reported, and
 * those one complete walk lacked. Two maps at most, each of the store's size: memory is
 * bounded by the store, not by how long the watch runs. A pet is kept as one compact
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

/** The pets of one walk by id (decimal text: int64 exact), in the order the server sent them. */
export type WalkedPets = Map<string, PetRecord>;

/** The key a pet is known by: its id, exact. */
export function petKey(pet: Pet): string {
  return String(pet.id);
}

/** A validated pet as the watch keeps it (`PetRecord`). */
export function toRecord(pet: Pet): PetRecord {
  return stringifyJson(pet);
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

/** The pets as last reported, and the differences each walk brings. */
export class PetView {
  private readonly shown = new Map<string, PetRecord>();
  /** Ids of shown pets the last complete walk lacked: one more complete walk without them removes them. */
  private readonly missingOnce = new Set<string>();

  /** @param fields the fields compared (`--fields`, or every field): a change elsewhere is not reported. */
  constructor(private readonly fields: readonly PetField[]) {}

  /** The pets as last reported, in the order they were first seen, each made an object as it is read. */
  *pets(): IterableIterator<Pet> {
    for (const record of this.shown.values()) yield fromRecord(record);
  }

  /** How many pets are shown. */
  get size(): number {
    return this.shown.size;
  }

  /**
   * Takes one walk's pets and returns the differences, in order: `added` and `changed` in
   * the walk's order, then `removed` in the order the pets were first seen. `complete` is
   * false for a walk stopped by `--max-pages`: no removal is reported from it.
   */
  apply(walked: WalkedPets, complete: boolean): PetChange[] {
    const changes: PetChange[] = [];
    for (const [id, pet] of walked) {
      this.missingOnce.delete(id);
      const before = this.shown.get(id);
      if (before === undefined) changes.push({ type: 'added', id, pet });
      // The same text is the same pet; only a different one is read to compare the watched fields.
      else if (before !== pet && !samePet(fromRecord(before), fromRecord(pet), this.fields))
        changes.push({ type: 'changed', id, pet, previous: before });
      this.shown.set(id, pet);
    }
    if (!complete) return changes;
    for (const [id, pet] of this.shown) {
      if (walked.has(id)) continue;
      if (this.missingOnce.delete(id)) {
        // Deleting the entry being visited is safe: a Map's iteration goes on with the next.
        this.shown.delete(id);
        changes.push({ type: 'removed', id, pet });
      } else this.missingOnce.add(id);
    }
    return changes;
  }
}

/**
 * What `pets watch` knows of the store, and the differences each walk brings
 * (cli-contract.md, the command table's `pets watch` row): the pets as last reported, and
 * those one complete walk lacked. One map of the store's size, and a walk keeps only what
 * differs from it (`WalkTally`): memory is bounded by the store, not by how long the watch
 * runs or how much it changes. A pet is kept as one compact record (`PetCodec`: its shape
 * and its values, from which its JSON text, `PetRecord`, is made again) in a store outside
 * V8's heap (`RecordStore`), not as the object a page was parsed into: the pages' objects are
 * garbage as soon as the walk has read them, and what is kept is neither marked nor copied
 * by the garbage collector.
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
import { RecordStore, storeKey, type StoreKey } from './record-store.js';

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
 * A validated pet as JSON text (`PetRecord`). A pet of plain values (no bigint, no lossless
 * number: nearly every one) goes through the engine's own JSON.stringify, whose text is one
 * flat string; the int64-exact writer builds its text from many pieces.
 */
function toText(value: unknown, plain: boolean): string {
  return plain ? JSON.stringify(value) : stringifyJson(value);
}

/** The most shapes (`PetCodec`) a watch learns: pets of further shapes are kept as their whole text. */
const MAX_SHAPES = 256;

/**
 * The form a pet is kept in, shorter than its JSON text (about half for the spec's pets): a
 * JSON array of the number of its shape (its field names in their order, learnt as they
 * come) and its values but the id, which is the key it is stored under. Two pets have the
 * same form exactly when they have the same JSON text, so forms are compared as texts are.
 * One codec serves the view and each walk's tally, whose forms the view takes as they are.
 * A server whose pets have endless shapes (a loose object's extra fields) gets `MAX_SHAPES`;
 * the pets of the others are kept as their whole text (a form starting with `{`).
 */
class PetCodec {
  private readonly shapes = new Map<string, number>();
  private readonly fieldLists: string[][] = [];
  /** The shape of the pet encoded last: the next one most likely has it too. */
  private last: number | undefined;

  /** `pet`'s kept form. */
  encode(pet: Pet): string {
    // The shape's number first, its value set when the shape is known.
    const values: unknown[] = [0];
    const fields: string[] = [];
    let plain = true;
    for (const field in pet) {
      const value = pet[field];
      // JSON.stringify leaves out a field whose value is undefined: so does the form.
      if (value === undefined) continue;
      fields.push(field);
      if (field === 'id') continue;
      values.push(value);
      if (typeof value === 'bigint' || (value !== null && typeof value === 'object')) plain = false;
    }
    const shape = this.shapeOf(fields);
    if (shape === undefined) return toText(pet, plain && typeof pet.id !== 'bigint');
    values[0] = shape;
    return toText(values, plain);
  }

  /** The number of the shape of `fields`, learnt now if new, or undefined past `MAX_SHAPES`. */
  private shapeOf(fields: string[]): number | undefined {
    const last = this.last === undefined ? undefined : this.fieldLists[this.last];
    if (last !== undefined && last.length === fields.length && last.every((f, i) => f === fields[i])) return this.last;
    const name = JSON.stringify(fields);
    let shape = this.shapes.get(name);
    if (shape === undefined) {
      if (this.fieldLists.length === MAX_SHAPES) return undefined;
      shape = this.fieldLists.length;
      this.fieldLists.push(fields);
      this.shapes.set(name, shape);
    }
    this.last = shape;
    return shape;
  }

  /** The pet of id `key` whose kept form is `form`, as its JSON text (`PetRecord`, int64 exact). */
  decode(key: StoreKey, form: string): PetRecord {
    if (form.startsWith('{')) return form;
    const values = parseJson(form);
    const fields = Array.isArray(values) ? this.fieldLists[Number(values[0])] : undefined;
    if (fields === undefined) throw new Error('pets watch: a kept pet has no known shape');
    let next = 1;
    const pairs = fields.map(
      (field) =>
        `${JSON.stringify(field)}:${field === 'id' ? String(key) : stringifyJson((values as unknown[])[next++])}`,
    );
    return `{${pairs.join(',')}}`;
  }
}

/** A kept pet as an object again, int64 exact (bigint beyond 2^53). */
export function fromRecord(record: PetRecord): Pet {
  return parseJson(record) as Pet;
}

/** The `StoreKey` of an id as `petKey` writes it: a number below 2^53, else the text. */
function keyOfId(id: string): StoreKey {
  const n = Number(id);
  return Number.isSafeInteger(n) && String(n) === id ? n : id;
}

/** Orders two keys by the ids they stand for, exactly (int64). */
function compareKeys(a: StoreKey, b: StoreKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether two versions of a pet read the same in `fields` (a field left out of `--fields` is not watched). */
function samePet(a: Pet, b: Pet, fields: readonly PetField[]): boolean {
  return fields.every(
    (f) => (a[f] === undefined ? undefined : String(a[f])) === (b[f] === undefined ? undefined : String(b[f])),
  );
}

/**
 * What one walk saw, told pet by pet as its pages come (`see`), measured against the view
 * as it goes: a pet whose record is the one shown only has its walk number noted, so a walk
 * keeps no copy of the store, only the records that differ (`pending`, in the walk's order).
 */
export class WalkTally {
  /**
   * Ids whose record differs from the one shown (or is new), with the record seen last, in
   * the form the view keeps (`PetCodec`): a first walk's become the view itself, never copied.
   */
  readonly pending = new RecordStore();
  /** The first id this walk saw with two different records. */
  duplicate: string | undefined;

  /** @param number the walk's number in the run, 1-based, failed walks counted. */
  constructor(
    readonly number: number,
    private readonly shown: RecordStore,
    private readonly codec: PetCodec,
  ) {}

  /**
   * Takes one pet of the walk. The same record twice (offset paging shows it while a pet is
   * inserted before the page) is one pet; two different records with one id are a
   * `duplicate`, and the one seen last is kept.
   */
  see(pet: Pet): void {
    const key = storeKey(pet.id);
    const record = this.codec.encode(pet);
    const earlier = this.pending.slot(key);
    if (earlier !== undefined) {
      if (this.pending.holds(earlier, record)) return;
      this.duplicate ??= petKey(pet);
      this.pending.set(key, record, this.number);
      return;
    }
    const shown = this.shown.slot(key);
    if (shown !== undefined && this.shown.holds(shown, record)) {
      this.shown.see(shown, this.number);
      return;
    }
    // Seen earlier in this walk as the record shown, and now as another.
    if (shown !== undefined && this.shown.seen(shown) === this.number) this.duplicate ??= petKey(pet);
    this.pending.set(key, record, this.number);
  }
}

/**
 * One walk's differences, in order: `added` and `changed` in the walk's order, then
 * `removed`. An `added` change is made when it is read, from the view: a first walk of a
 * large store is as many changes as pets, and is never held as objects all at once. Read
 * them before the next walk changes the view.
 */
export interface WalkChanges extends Iterable<PetChange> {
  /** How many changes there are. */
  readonly length: number;
}

/** The pets as last reported, and the differences each walk brings. */
export class PetView {
  private shown = new RecordStore();
  /** Ids of shown pets the last complete walk lacked: one more complete walk without them removes them. */
  private readonly missingOnce = new Set<StoreKey>();
  private walks = 0;
  private readonly codec = new PetCodec();

  /** @param fields the fields compared (`--fields`, or every field): a change elsewhere is not reported. */
  constructor(private readonly fields: readonly PetField[]) {}

  /** The pets as last reported, in the order they were first seen, each made an object as it is read. */
  *pets(): IterableIterator<Pet> {
    for (const [key, slot] of this.shown.entries()) yield fromRecord(this.recordOf(this.shown, key, slot));
  }

  /**
   * The first `n` pets in the live table's order, as objects: those whose id (`petKey`) is in
   * `marked` first, then the rest, each part by id (int64 exact). Only those `n` are made
   * objects: a frame of a large store costs its rows, not the store.
   */
  firstRows(n: number, marked: ReadonlySet<string>): Pet[] {
    const markedKeys = new Set<StoreKey>();
    for (const id of marked) {
      const key = keyOfId(id);
      if (this.shown.slot(key) !== undefined) markedKeys.add(key);
    }
    const first = [...markedKeys].sort(compareKeys).slice(0, n);
    // The smallest ids not marked, kept sorted, at most `n - first.length` of them.
    const rest: StoreKey[] = [];
    const room = n - first.length;
    if (room > 0) {
      for (const [key] of this.shown.entries()) {
        if (markedKeys.has(key)) continue;
        const last = rest.at(-1);
        if (rest.length === room && last !== undefined && compareKeys(key, last) >= 0) continue;
        let at = rest.length;
        for (let before = rest[at - 1]; before !== undefined && compareKeys(key, before) < 0; before = rest[at - 1])
          at--;
        rest.splice(at, 0, key);
        if (rest.length > room) rest.pop();
      }
    }
    return [...first, ...rest].map((key) => {
      const slot = this.shown.slot(key);
      if (slot === undefined) throw new Error(`pets watch: pet ${key} is not in the view`);
      return fromRecord(this.recordOf(this.shown, key, slot));
    });
  }

  /** How many pets are shown. */
  get size(): number {
    return this.shown.size;
  }

  /** Starts a walk: its pets are told to the tally, which `apply` takes once the walk succeeded. */
  walk(): WalkTally {
    return new WalkTally(++this.walks, this.shown, this.codec);
  }

  /** The pet of id `key` in `slot` of `store`, as its JSON text. */
  private recordOf(store: RecordStore, key: StoreKey, slot: number): PetRecord {
    return this.codec.decode(key, store.record(slot));
  }

  /**
   * Takes one walk's tally and returns the differences (`WalkChanges`). `complete` is
   * false for a walk stopped by `--max-pages`: no removal is reported from it.
   */
  apply(tally: WalkTally, complete: boolean): WalkChanges {
    const { pending } = tally;
    // A first walk's pets are the view: taken as they are, not copied (two stores at once),
    // and its changes are the view's pets, read from it in its order.
    if (this.shown.size === 0) {
      const shown = (this.shown = pending);
      const recordOf = this.recordOf.bind(this, shown);
      return {
        length: shown.size,
        *[Symbol.iterator]() {
          for (const [key, slot] of shown.entries()) yield { type: 'added', id: String(key), pet: recordOf(key, slot) };
        },
      };
    }
    // An added pet by its key (read from the view when the change is read); the others whole.
    const changes: (StoreKey | PetChange)[] = [];
    for (const [key, slot] of pending.entries()) {
      const form = pending.record(slot);
      const shown = this.shown.slot(key);
      if (shown === undefined) {
        changes.push(key);
        this.shown.set(key, form, tally.number);
        continue;
      }
      // Only a different text reaches here: read to compare the watched fields.
      const previous = this.recordOf(this.shown, key, shown);
      const pet = this.recordOf(pending, key, slot);
      if (!samePet(fromRecord(previous), fromRecord(pet), this.fields))
        changes.push({ type: 'changed', id: String(key), pet, previous });
      this.shown.set(key, form, tally.number);
    }
    for (const key of this.missingOnce) {
      const slot = this.shown.slot(key);
      if (slot !== undefined && this.shown.seen(slot) === tally.number) this.missingOnce.delete(key);
    }
    if (complete) {
      for (const [key, slot] of this.shown.entries()) {
        if (this.shown.seen(slot) === tally.number) continue;
        if (this.missingOnce.delete(key)) {
          const pet = this.recordOf(this.shown, key, slot);
          // Deleting the entry being visited is safe: a Map's iteration goes on with the next.
          this.shown.delete(key);
          changes.push({ type: 'removed', id: String(key), pet });
        } else this.missingOnce.add(key);
      }
    }
    const recordOf = this.recordOf.bind(this, this.shown);
    const shown = this.shown;
    return {
      length: changes.length,
      *[Symbol.iterator]() {
        for (const c of changes) {
          if (typeof c === 'object') yield c;
          else {
            const slot = shown.slot(c);
            // An added pet is in the view until the next walk, before which the changes are read.
            if (slot === undefined) throw new Error(`pets watch: added pet ${c} is not in the view`);
            yield { type: 'added', id: String(c), pet: recordOf(c, slot) };
          }
        }
      },
    };
  }
}

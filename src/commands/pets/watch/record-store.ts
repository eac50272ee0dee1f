/**
 * The records `pets watch` keeps, one per pet, outside V8's heap: each record's UTF-8 JSON
 * text in chunks of one byte arena, found through a map from the pet's id to a slot, and a
 * slot's place, length and the number of the last walk that saw it in one typed array. A pet
 * then costs the heap a map entry and nothing the garbage collector must copy or mark: a
 * string and an object per pet (the form before) survived the young generation by the
 * hundred thousand, made V8 grow it to its largest, and made the old generation's limit a
 * multiple of a live set it did not need (docs/performance.md, "`pets watch` memory").
 *
 * Iteration is in the order the ids were first stored (a Map's), as the view's order is
 * the order pets were first seen. The bytes of a replaced or deleted record are dead until
 * the store is compacted, which happens when they outweigh the live ones.
 */

/**
 * The key a pet's id is stored under: the number itself for an id below 2^53 (no string per
 * pet), its decimal text beyond (a bigint, exact). One id always parses to one of the two
 * (base/json.ts), so the two forms of one id never meet.
 */
export type StoreKey = number | string;

/** `id` (a pet's, number or bigint) as a `StoreKey`. */
export function storeKey(id: number | bigint): StoreKey {
  return typeof id === 'number' ? id : String(id);
}

/** Bytes per chunk of the arena: a record longer than this gets a chunk of its own. */
const CHUNK_BYTES = 256 * 1024;
/** Dead bytes below this are never worth a compaction. */
const COMPACT_MIN_DEAD = 1024 * 1024;

/** The numbers kept per slot in `meta`, and where each is. */
const FIELDS = 4;
const CHUNK = 0;
const OFFSET = 1;
const LENGTH = 2;
const SEEN = 3;

/** Compact records by id (see the module's comment). */
export class RecordStore {
  private readonly slots = new Map<StoreKey, number>();
  /** Per slot, `FIELDS` numbers: its chunk, its offset there, its length in bytes, the last walk that saw it. */
  private meta = new Uint32Array(1024 * FIELDS);
  /** Slots freed by `delete`, taken again first. */
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private chunks: Buffer[] = [];
  /** Bytes used in the last chunk. */
  private used = CHUNK_BYTES;
  private liveBytes = 0;
  private deadBytes = 0;
  /** Where a record is encoded to be compared (`holds`); grown as needed. */
  private scratch = Buffer.allocUnsafe(4096);

  /** Field `field` of `slot`. */
  private get(slot: number, field: number): number {
    return this.meta[slot * FIELDS + field] ?? 0;
  }

  /** Sets field `field` of `slot`. */
  private put(slot: number, field: number, value: number): void {
    this.meta[slot * FIELDS + field] = value;
  }

  /** The chunk of `slot`'s record. */
  private chunkOf(slot: number): Buffer {
    const chunk = this.chunks[this.get(slot, CHUNK)];
    if (chunk === undefined) throw new Error(`record store: slot ${slot} has no chunk`);
    return chunk;
  }

  /** How many records are stored. */
  get size(): number {
    return this.slots.size;
  }

  /** The slot of `key`, or undefined. */
  slot(key: StoreKey): number | undefined {
    return this.slots.get(key);
  }

  /** The keys and their slots, in the order the keys were first stored. */
  entries(): IterableIterator<[StoreKey, number]> {
    return this.slots.entries();
  }

  /** The record in `slot`, as text. */
  record(slot: number): string {
    const at = this.get(slot, OFFSET);
    return this.chunkOf(slot).toString('utf8', at, at + this.get(slot, LENGTH));
  }

  /** Whether `slot` holds exactly `text`: compared as bytes, no string made. */
  holds(slot: number, text: string): boolean {
    const length = this.encode(text);
    if (length !== this.get(slot, LENGTH)) return false;
    const at = this.get(slot, OFFSET);
    return this.chunkOf(slot).compare(this.scratch, 0, length, at, at + length) === 0;
  }

  /** The number of the last walk that saw the record in `slot`. */
  seen(slot: number): number {
    return this.get(slot, SEEN);
  }

  /** Notes that walk `walk` saw the record in `slot`. */
  see(slot: number, walk: number): void {
    this.put(slot, SEEN, walk);
  }

  /** Stores `text` as the record of `key`, seen by walk `walk`, replacing any record it had. */
  set(key: StoreKey, text: string, walk: number): void {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.newSlot();
      this.slots.set(key, slot);
    } else this.forget(slot);
    this.write(slot, this.encode(text));
    this.put(slot, SEEN, walk);
    if (this.deadBytes > COMPACT_MIN_DEAD && this.deadBytes > this.liveBytes) this.compact();
  }

  /** Removes the record of `key`, if any. Safe while iterating `entries()`. */
  delete(key: StoreKey): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.forget(slot);
    this.freeSlots.push(slot);
  }

  /** `text` as UTF-8 in `scratch`; returns its length in bytes. */
  private encode(text: string): number {
    // A UTF-8 byte count is at most three per UTF-16 unit: checked cheaply before counting.
    if (text.length * 3 > this.scratch.length) {
      const bytes = Buffer.byteLength(text);
      if (bytes > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(bytes, this.scratch.length * 2));
    }
    return this.scratch.write(text, 0);
  }

  /** Copies the `length` bytes in `scratch` to the arena as `slot`'s record. */
  private write(slot: number, length: number): void {
    if (this.used + length > CHUNK_BYTES) {
      // allocUnsafe: the pages of a chunk become resident only as records are written to them.
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK_BYTES, length)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    this.put(slot, CHUNK, chunk);
    this.put(slot, OFFSET, this.used);
    this.put(slot, LENGTH, length);
    this.scratch.copy(this.chunkOf(slot), this.used, 0, length);
    this.used += length;
    this.liveBytes += length;
  }

  /** Counts `slot`'s bytes as dead. */
  private forget(slot: number): void {
    this.liveBytes -= this.get(slot, LENGTH);
    this.deadBytes += this.get(slot, LENGTH);
  }

  /** A slot never used before, `meta` doubled when full. */
  private newSlot(): number {
    if (this.nextSlot * FIELDS === this.meta.length) {
      const meta = new Uint32Array(this.meta.length * 2);
      meta.set(this.meta);
      this.meta = meta;
    }
    return this.nextSlot++;
  }

  /** Copies the live records into new chunks, leaving the dead bytes behind. */
  private compact(): void {
    const old = this.chunks;
    this.chunks = [];
    this.used = CHUNK_BYTES;
    this.liveBytes = 0;
    this.deadBytes = 0;
    for (const slot of this.slots.values()) {
      const length = this.get(slot, LENGTH);
      if (length > this.scratch.length) this.scratch = Buffer.allocUnsafe(length);
      const at = this.get(slot, OFFSET);
      const chunk = old[this.get(slot, CHUNK)];
      if (chunk === undefined) throw new Error(`record store: slot ${slot} has no chunk`);
      chunk.copy(this.scratch, 0, at, at + length);
      this.write(slot, length);
    }
  }
}

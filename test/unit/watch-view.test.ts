/**
 * `pets watch`'s view (commands/pets/watch/view.ts) over its compact record store
 * (record-store.ts): a store with churn between walks — pets added, changed, removed, ids
 * past 2^53, names long enough that replaced records force the store to compact — gives
 * the events a plain model of the contract's rule gives (added and changed in the walk's
 * order, with `previous`; removed after two complete walks without the pet), walk after
 * walk; pets of many shapes come back as they were sent; the live table's first rows are
 * chosen from the view as a full sort would; the store's records stay exact across its
 * compactions. Pure: no server (the watch against a real one is
 * test/commands/pets/watch.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { PET_FIELDS } from '../../src/client/constants.js';
import type { Pet } from '../../src/client/schemas.js';
import { RecordStore } from '../../src/commands/pets/watch/record-store.js';
import { PetView } from '../../src/commands/pets/watch/view.js';

/** A small deterministic generator (mulberry32): the same churn every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The contract's rule, kept plainly: a map of JSON texts and a count of complete walks missed. */
function model(): (walk: readonly Pet[]) => string[] {
  const shown = new Map<string, string>();
  const missed = new Map<string, number>();
  const text = (p: Pet): string => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `#${v}` : v));
  return (walk) => {
    const events: string[] = [];
    const seen = new Set<string>();
    for (const pet of walk) {
      const id = String(pet.id);
      seen.add(id);
      missed.delete(id);
      const before = shown.get(id);
      if (before === undefined) events.push(`added ${text(pet)}`);
      else if (before !== text(pet)) events.push(`changed ${text(pet)} from ${before}`);
      shown.set(id, text(pet));
    }
    for (const [id, pet] of shown) {
      if (seen.has(id)) continue;
      if (missed.has(id)) {
        shown.delete(id);
        missed.delete(id);
        events.push(`removed ${pet}`);
      } else missed.set(id, 1);
    }
    return events;
  };
}

describe('pets watch: the view over its compact store', () => {
  it('a store with churn between walks gives the same events as the plain rule, walk after walk, through compactions', () => {
    const next = random(49);
    const long = 'x'.repeat(2000);
    let nextId = 1;
    const make = (): Pet => {
      const n = nextId++;
      // Every fifth id past 2^53 (a bigint, kept as its text), every third name long.
      const id = n % 5 === 0 ? 2n ** 60n + BigInt(n) : n;
      return { id, name: `Pet ${n}${n % 3 === 0 ? long : ''}`, categoryId: 1, status: 'available' };
    };
    let pets = Array.from({ length: 1500 }, make);
    const view = new PetView(PET_FIELDS);
    const expected = model();
    const text = (p: Pet): string => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `#${v}` : v));
    const statuses = ['available', 'pending', 'sold'] as const;
    for (let walk = 1; walk <= 40; walk++) {
      if (walk > 1) {
        for (let k = 0; k < 60; k++) {
          const at = Math.floor(next() * pets.length);
          const pet = pets[at]!;
          pets[at] = {
            ...pet,
            status: statuses[(statuses.indexOf(pet.status as 'sold') + 1) % 3]!,
            name: `${pet.name}!`,
          };
        }
        for (let k = 0; k < 30; k++) pets.splice(Math.floor(next() * pets.length), 1);
        pets = [...pets, ...Array.from({ length: 30 }, make)];
      }
      const tally = view.walk();
      for (const pet of pets) tally.see(pet);
      const got = [...view.apply(tally, true)].map((c) => {
        const pet = text(JSON.parse(c.pet.replace(/"id":(\d{16,})/, '"id":"#$1"')) as Pet);
        if (c.type === 'changed') {
          const previous = text(JSON.parse(c.previous!.replace(/"id":(\d{16,})/, '"id":"#$1"')) as Pet);
          return `changed ${pet} from ${previous}`;
        }
        return `${c.type} ${pet}`;
      });
      expect(got, `walk ${walk}`).toEqual(expected(pets));
    }
  });

  it("the live table's first rows: marked pets first, then the rest, each by id (int64 exact), only as many as asked", () => {
    const next = random(50);
    const ids = new Set<bigint>();
    while (ids.size < 300) {
      const magnitude = next() < 0.2 ? 2n ** 62n : 1000n;
      ids.add((BigInt(Math.floor(next() * 1e9)) % magnitude) * (next() < 0.1 ? -1n : 1n));
    }
    const pets: Pet[] = [...ids].map((id) => ({
      id: id >= -(2n ** 53n) && id <= 2n ** 53n ? Number(id) : id,
      name: `Pet ${id}`,
      categoryId: 1,
    }));
    const view = new PetView(PET_FIELDS);
    const tally = view.walk();
    for (const pet of pets) tally.see(pet);
    [...view.apply(tally, true)].forEach(() => undefined);
    const marked = new Set([pets[7], pets[100], pets[299]].map((p) => String(p!.id)));
    marked.add('123456789012'); // not in the view: no row
    const byId = (a: Pet, b: Pet): number => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);
    const all = [...pets].sort(
      (a, b) => Number(marked.has(String(b.id))) - Number(marked.has(String(a.id))) || byId(a, b),
    );
    for (const n of [1, 2, 3, 4, 10, 300, 400]) {
      expect(
        view.firstRows(n, marked).map((p) => String(p.id)),
        `n = ${n}`,
      ).toEqual(all.slice(0, n).map((p) => String(p.id)));
    }
  });

  it('pets of many shapes (extra fields, another order, past the shapes learnt, a field left undefined) come back as they were', () => {
    const view = new PetView(PET_FIELDS);
    const pets = Array.from({ length: 900 }, (_, i): Pet => {
      const id = i % 7 === 0 ? 2n ** 60n + BigInt(i) : i + 1;
      if (i % 3 === 0) return { id, name: `Pet ${i}`, categoryId: 1, [`extra${i}`]: { nested: [i, 'x'] } };
      if (i % 3 === 1) return { status: 'sold', categoryId: 2, name: `Pet ${i}`, id, tag: null };
      return { id, name: `Pet ${i}`, categoryId: 3, status: undefined };
    });
    const tally = view.walk();
    for (const pet of pets) tally.see(pet);
    const text = (p: unknown): string => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `#${v}` : v));
    const got = [...view.apply(tally, true)].map((c) =>
      text(JSON.parse(c.pet.replace(/"id":(\d{16,})/, '"id":"#$1"'))),
    );
    expect(got).toEqual(pets.map(text));
    // The same pets again are no change; one changed field is one change.
    const again = view.walk();
    for (const pet of pets) again.see(pet.id === 5 ? { ...pet, name: 'Renamed' } : pet);
    expect([...view.apply(again, true)].map((c) => `${c.type} ${c.id}`)).toEqual(['changed 5']);
  });

  it('the store keeps each record exact across compactions, and reuses the slots of deleted ids', () => {
    const store = new RecordStore();
    const big = (n: number, v: number): string => `{"id":${n},"v":${v},"pad":"${'é'.repeat(3000)}"}`;
    for (let n = 0; n < 200; n++) store.set(n, big(n, 0), 1);
    // About 1.2 MB of records replaced twice over: the dead bytes pass the live ones, and the store compacts.
    for (let v = 1; v <= 2; v++) for (let n = 0; n < 200; n++) store.set(n, big(n, v), v + 1);
    for (let n = 0; n < 200; n += 2) store.delete(n);
    for (let n = 1000; n < 1100; n++) store.set(`${n}`, big(n, 9), 4);
    expect(store.size).toBe(200);
    for (const [key, slot] of store.entries()) {
      const n = Number(key);
      expect(store.record(slot)).toBe(big(n, n >= 1000 ? 9 : 2));
      expect(store.holds(slot, big(n, n >= 1000 ? 9 : 2))).toBe(true);
      expect(store.holds(slot, big(n, 7))).toBe(false);
      expect(store.seen(slot)).toBe(n >= 1000 ? 4 : 3);
    }
    expect([...store.entries()].map(([k]) => k).slice(0, 3)).toEqual([1, 3, 5]);
  });
});

// What the floors validate a `pets list` answer against: an array of the spec's Pet, with
// zod (ids as integers or bigints), as petstore's own schema has it. Shared by the card
// floor (bench/card-floor.mjs) and the libraries floor (bench/libraries-floor.mjs), so
// both do the same work.
import { z } from 'zod';

const Int64 = z.union([z.int(), z.bigint()]);
const Pet = z.looseObject({
  id: Int64,
  name: z.string(),
  categoryId: Int64,
  status: z.enum(['available', 'pending', 'sold']).optional(),
});

/** An array of Pet. */
export const Pets = z.array(Pet);

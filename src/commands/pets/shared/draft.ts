/**
 * The pet a command builds from its flags (`pets create`), shared by the declaration (which
 * refuses what is missing when no prompt is possible) and the run (which asks for it).
 */
import type { PetStatus } from '../../../api/constants.js';
import type { NewPet } from '../../../api/schemas.js';

/**
 * A pet as the flags give it: `name` and `categoryId` are required by the API, but may be
 * missing here, to be asked for on a terminal (`prompt.ts`) or refused all at once.
 */
export interface PetDraft {
  name?: string;
  categoryId?: NewPet['categoryId'];
  status?: PetStatus;
}

/** The required flags a draft lacks, in the order the help lists them. */
export function missingFlags(draft: PetDraft): ('--name' | '--category-id')[] {
  return [
    ...(draft.name === undefined ? (['--name'] as const) : []),
    ...(draft.categoryId === undefined ? (['--category-id'] as const) : []),
  ];
}

/**
 * The NewPet (spec §4.2) of a complete draft.
 * @throws Error (a bug) when `missingFlags(draft)` is not empty.
 */
export function toNewPet(draft: PetDraft): NewPet {
  if (draft.name === undefined || draft.categoryId === undefined) throw new Error('incomplete pet draft');
  const pet: NewPet = { name: draft.name, categoryId: draft.categoryId };
  if (draft.status !== undefined) pet.status = draft.status;
  return pet;
}

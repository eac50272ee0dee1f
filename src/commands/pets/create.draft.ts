/**
 * The pet `pets create` builds from its flags, shared by the declaration (which refuses
 * what is missing when no prompt is possible) and the run (which asks for it).
 */
import type { PetStatus } from '../../api/constants.js';
import type { NewPet } from '../../api/schemas.js';

/**
 * A pet as the flags give it: `name` and `categoryId` are required by the API, but may be
 * missing here, to be asked for on a terminal (`create.run.ts`) or refused all at once.
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

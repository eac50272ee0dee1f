/**
 * The pet a verb builds from its flags (`pets create`): the flags themselves
 * (`--name`, `--category-id`, `--status`), the draft they give, shared by the declarations
 * (which refuse what is missing when no prompt is possible) and the runs (which ask for it).
 */
import { toJsonInt, type PetStatus } from '../../../client/constants.js';
import type { NewPet } from '../../../client/schemas.js';
import { CREATE_PET } from '../../../operations/pets.js';
import { optionOf } from '../../options.js';

/**
 * A pet as the flags give it: `name` and `categoryId` are required by the API, but may be
 * missing here, to be asked for on a terminal (`prompt.ts`) or refused all at once.
 */
export interface PetDraft {
  name?: string;
  categoryId?: NewPet['categoryId'];
  status?: PetStatus;
}

/** `--name`, `--category-id` (an exact int64) and `-s, --status`: createPet's inputs (`CREATE_PET`). */
export function petOptions() {
  const { name, categoryId, status } = CREATE_PET.inputs;
  return [optionOf(name), optionOf(categoryId), optionOf(status)] as const;
}

/** The draft the flags of `petOptions` give. */
export function toPetDraft(flags: { name?: string; categoryId?: bigint; status?: PetStatus }): PetDraft {
  const draft: PetDraft = {};
  if (flags.name !== undefined) draft.name = flags.name;
  if (flags.categoryId !== undefined) draft.categoryId = toJsonInt(flags.categoryId);
  if (flags.status !== undefined) draft.status = flags.status;
  return draft;
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

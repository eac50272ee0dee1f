/**
 * The pet a verb builds from its flags (`pets create`): the flags themselves
 * (`--name`, `--category-id`, `--status`), the draft they give, shared by the declarations
 * (which refuse what is missing when no prompt is possible) and the runs (which ask for it).
 */
import { Option } from '@commander-js/extra-typings';
import { PET_STATUSES, toJsonInt, type PetStatus } from '../../../client/constants.js';
import type { NewPet } from '../../../client/schemas.js';
import { parseInt64, statusParser } from '../../../base/flag-values.js';

/**
 * A pet as the flags give it: `name` and `categoryId` are required by the API, but may be
 * missing here, to be asked for on a terminal (`prompt.ts`) or refused all at once.
 */
export interface PetDraft {
  name?: string;
  categoryId?: NewPet['categoryId'];
  status?: PetStatus;
}

/** `--name`: required, asked for on a terminal. */
export function nameOption() {
  return new Option('--name <name>', "the animal's name (required; asked for on a terminal)");
}

/** `--category-id`: an exact int64, required, asked for on a terminal. */
export function categoryIdOption() {
  return new Option('--category-id <id>', 'category id, an int64 (required; asked for on a terminal)').argParser((v) =>
    parseInt64(v, '--category-id'),
  );
}

/** `-s, --status`: one of PET_STATUSES; `description` says what leaving it out does. */
export function statusOption(description: string) {
  return new Option('-s, --status <status>', description).choices(PET_STATUSES).argParser(statusParser);
}

/** The draft the flags of `nameOption`, `categoryIdOption` and `statusOption` give. */
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

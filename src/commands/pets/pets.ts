/** `petstore pets list|create|get|watch`: the group. */
import { Command } from '@commander-js/extra-typings';
import { PET_OPERATIONS } from '../../operations/pets.js';
import type { Runner } from '../runner.js';
import { newCreateCommand } from './create/create.js';
import { newGetCommand } from './get/get.js';
import { newListCommand } from './list/list.js';
import { newOperationCommand } from './shared/operation.js';
import { newWatchCommand } from './watch/watch.js';

/**
 * Declares `pets` with its verbs: those with runs of their own, then every pet operation
 * drawn from its declaration alone (`request`: `newOperationCommand`).
 */
export function newPetsCommand(f: Runner) {
  const pets = new Command('pets')
    .description('list, create, look up and watch pets')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets list --status available
  $ petstore pets create --from-file pets.ndjson
  $ petstore help pets list`,
    )
    .addCommand(newListCommand(f))
    // One pet needs both (spec §4.2 NewPet: name and categoryId required); off a terminal
    // create refuses one without the other (`missingPetFlagsError`).
    .addCommand(newCreateCommand(f))
    .addCommand(newGetCommand(f))
    .addCommand(newWatchCommand(f));
  for (const op of PET_OPERATIONS) if (op.request !== undefined) pets.addCommand(newOperationCommand(op, f));
  return pets;
}

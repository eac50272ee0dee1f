/** `petstore pets list|create|get|watch`: the group. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';
import { newCreateCommand } from './create/create.js';
import { newGetCommand } from './get/get.js';
import { newListCommand } from './list/list.js';
import { newWatchCommand } from './watch/watch.js';

/** Declares `pets` with its verbs. */
export function newPetsCommand(f: Runner) {
  return (
    new Command('pets')
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
      .addCommand(newWatchCommand(f))
  );
}

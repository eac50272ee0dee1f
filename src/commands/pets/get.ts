/**
 * `petstore pets get ID`: the declaration. `getPet` is deprecated (spec §4.3); the run is
 * in `get.run.ts`, loaded only when it runs.
 */
import { Argument, Command } from '@commander-js/extra-typings';
import { GET_PET_REMOVAL_DATE, GET_PET_REPLACEMENT } from '../../api/constants.js';
import { parseInt64 } from '../../input.js';
import type { Runner } from '../runner.js';

/** Declares `pets get`. */
export function newGetCommand(f: Runner) {
  return new Command('get')
    .description(`show one pet (getPet: GET /pets/{petId}; deprecated, removed ${GET_PET_REMOVAL_DATE})`)
    .addArgument(new Argument('<id>', 'the pet id, an int64').argParser((v) => parseInt64(v, 'pet ID')))
    .addHelpText(
      'after',
      `
Deprecated: the API removes getPet on ${GET_PET_REMOVAL_DATE}. Use \`${GET_PET_REPLACEMENT}\` instead.

Examples:
  $ petstore pets get 7
  $ petstore pets get 9007199254740993 --json`,
    )
    .action((petId) =>
      f.run(async (ctx) => {
        const { runGet } = await import('./get.run.js');
        return runGet(ctx, { petId });
      }),
    );
}

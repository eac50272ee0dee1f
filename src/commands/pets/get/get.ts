/**
 * `petstore pets get ID [--via-list [--status S] [--max-pages N]]`: the declaration.
 * `getPet` is deprecated (spec §4.3); `--via-list` finds the pet through the replacement
 * the spec names, `listPets` (§4.1). The run is in `run.ts`, loaded only when it runs.
 */
import { Argument, Command } from '@commander-js/extra-typings';
import {
  GET_PET_REMOVAL_DATE,
  GET_PET_REPLACEMENT,
  MAX_PAGES_DEFAULT,
  operationLabel,
} from '../../../client/constants.js';
import { RECORD_FLAGS, withTraits } from '../../traits.js';
import { UsageError } from '../../../base/errors.js';
import { parseInt64 } from '../../../base/flag-values.js';
import { GET_PET } from '../../../operations/pets.js';
import { optionOf } from '../../options.js';
import type { Runner } from '../../runner.js';
import type { GetOptions } from './run.js';

/** Declares `pets get`: getPet's inputs (`GET_PET`), its id as the argument. */
export function newGetCommand(f: Runner) {
  const { inputs } = GET_PET;
  return withTraits(new Command('get'), {
    recordFlags: RECORD_FLAGS,
    operations: ['getPet', 'listPets'],
    environment: 'request',
  })
    .description(`show one pet (${operationLabel('getPet')}; deprecated, removed ${GET_PET_REMOVAL_DATE})`)
    .addArgument(new Argument('<id>', inputs.petId.help.cli).argParser((v) => parseInt64(v, 'pet ID')))
    .addOption(optionOf(inputs.viaList))
    .addOption(optionOf(inputs.status))
    .addOption(optionOf(inputs.maxPages))
    .addHelpText(
      'after',
      `
Deprecated: the API removes getPet on ${GET_PET_REMOVAL_DATE}. Its replacement is \`${GET_PET_REPLACEMENT}\`; --via-list uses it now. From the removal date on, after a 410 Gone answer, and under --fail-on-deprecated, \`pets get\` uses it by itself.

Examples:
  $ petstore pets get 7
  $ petstore pets get 7 --via-list --status available
  $ petstore pets get 9007199254740993 --json`,
    )
    .action((petId, flags) =>
      f.run(async (ctx) => {
        const options = toGetOptions(petId, flags, (words) => ctx.suggest(words));
        const { runGet } = await import('./run.js');
        return runGet(ctx, options);
      }),
    );
}

/** The flags of `pets get` as commander parsed them. */
export type GetFlags = ReturnType<ReturnType<typeof newGetCommand>['opts']>;

/**
 * Turns the parsed id and flags into options. `suggest` makes the example of an error
 * message a command of this run (`ctx.suggest`: with its `--env`).
 * @throws UsageError for `--status` or `--max-pages` without `--via-list` (getPet takes
 * neither, so they would be ignored silently).
 */
export function toGetOptions(
  petId: bigint,
  flags: GetFlags,
  suggest: (words: string) => string = (words) => `petstore ${words}`,
): GetOptions {
  const viaList = flags.viaList === true;
  if (!viaList && (flags.status !== undefined || flags.maxPages !== undefined)) {
    const flag = flags.status !== undefined ? '--status' : '--max-pages';
    throw new UsageError(
      `${flag} needs --via-list: ${GET_PET.inputs.maxPages.needs.why.cli}`,
      `Example: \`${suggest(`pets get ${petId} --via-list${flag === '--status' ? ' --status available' : ' --max-pages 50'}`)}\``,
    );
  }
  return {
    petId,
    viaList,
    ...(flags.status === undefined ? {} : { status: flags.status }),
    maxPages: flags.maxPages ?? MAX_PAGES_DEFAULT,
  };
}

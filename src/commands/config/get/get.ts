/** `petstore config get KEY`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';
import { keyArgument } from '../shared/key-argument.js';

/** Declares `config get`. */
export function newGetCommand(f: Runner) {
  return withTraits(new Command('get'), { formats: true })
    .description('print a setting from the config file (or its default); exit 1 if it has neither')
    .addArgument(keyArgument('get'))
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config get environment
  $ petstore config get staging.baseUrl`,
    )
    .action((key) =>
      f.run(async (ctx) => {
        const { runGet } = await import('./run.js');
        return runGet(ctx, key);
      }),
    );
}

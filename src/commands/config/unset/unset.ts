/** `petstore config unset KEY`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../../runner.js';
import { keyArgument } from '../shared/key-argument.js';

/** Declares `config unset`. */
export function newUnsetCommand(f: Runner) {
  return new Command('unset')
    .description('remove a setting from the config file')
    .addArgument(keyArgument('unset'))
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config unset environment
  $ petstore config unset staging.baseUrl`,
    )
    .action((key) =>
      f.run(async (ctx) => {
        const { runUnset } = await import('./run.js');
        return runUnset(ctx, key);
      }),
    );
}

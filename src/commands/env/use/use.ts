/** `petstore env use NAME`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';
import { nameArgument } from '../shared/name-argument.js';

/** Declares `env use`. */
export function newUseCommand(f: Runner) {
  const cmd = new Command('use')
    .description("make an environment the default (the config file's environment setting)")
    .addArgument(nameArgument('to use by default: production, staging, sandbox or a configured name'))
    .addHelpText(
      'after',
      `
--env and PETSTORE_ENV still win over the default where they are given.

Examples:
  $ petstore env use staging
  $ petstore env use sandbox`,
    )
    .action((name) =>
      f.run(async (ctx) => {
        const { runUse } = await import('./run.js');
        return runUse(ctx, name);
      }),
    );
  return withTraits(cmd, { writes: false, argument: 'environment' });
}

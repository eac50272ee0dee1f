/** `petstore env remove NAME [--yes]`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';
import { nameArgument } from '../shared/name-argument.js';

/** Declares `env remove`. */
export function newRemoveCommand(f: Runner) {
  const cmd = new Command('remove')
    .description("remove an environment's settings and stored key (production and staging keep their names)")
    .addArgument(nameArgument('to remove: staging, production or a configured name'))
    .addHelpText(
      'after',
      `
On a terminal it asks first; off one it needs the global --yes (which also skips the question). Removing the default environment makes production the default again. The sandbox has no settings: \`petstore sandbox reset\` resets its data.

Examples:
  $ petstore env remove staging-eu
  $ petstore env remove staging-eu --yes`,
    )
    .action((name) =>
      f.run(async (ctx) => {
        const { runRemove } = await import('./run.js');
        return runRemove(ctx, name);
      }),
    );
  return withTraits(cmd, { writes: false, argument: 'environment', asks: true });
}

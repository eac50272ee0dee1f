/** `petstore sandbox reset`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `sandbox reset`. */
export function newResetCommand(f: Runner) {
  return withTraits(new Command('reset'), { writes: true })
    .description('restore the sandbox data to its seed pets')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore sandbox reset
  $ petstore sandbox reset && petstore --env sandbox pets list`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runReset } = await import('./run.js');
        return runReset(ctx);
      }),
    );
}

/** `petstore auth logout`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `auth logout`. */
export function newLogoutCommand(f: Runner) {
  return withTraits(new Command('logout'), { environment: 'settings' })
    .description('remove the stored key of the selected environment')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore auth logout
  $ petstore --env staging auth logout`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runLogout } = await import('./run.js');
        return runLogout(ctx);
      }),
    );
}

/** `petstore env list`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `env list`. */
export function newListCommand(f: Runner) {
  return withTraits(new Command('list'), { environment: 'settings', formats: true })
    .description('show every environment: its base URL, where its key comes from (masked), and which one is current')
    .addHelpText(
      'after',
      `
The current environment (marked *) is the one every command uses: --env, else PETSTORE_ENV, else the config's environment, else production. No key command is run to list.

Examples:
  $ petstore env list
  $ petstore env list --json`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runList } = await import('./run.js');
        return runList(ctx);
      }),
    );
}

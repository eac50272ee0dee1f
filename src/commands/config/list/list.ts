/** `petstore config list`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `config list`. */
export function newListCommand(f: Runner) {
  return withTraits(new Command('list'), { environment: 'settings', formats: true })
    .description('show every effective setting and where it comes from (flag, env var, file, default)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config list
  $ petstore --env staging config list --json`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runList } = await import('./run.js');
        return runList(ctx);
      }),
    );
}

/** `petstore config path`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `config path`. */
export function newPathCommand(f: Runner) {
  return withTraits(new Command('path'), { formats: true })
    .description("print the config file's path (works even when the file is broken)")
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config path
  $ ls -l "$(petstore config path)"`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runPath } = await import('./run.js');
        return runPath(ctx);
      }),
    );
}

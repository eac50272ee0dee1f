/** `petstore auth status [--check]`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `auth status`. */
export function newStatusCommand(f: Runner) {
  return withTraits(new Command('status'), { environment: 'request', formats: true })
    .description("show each environment's base URL and key (masked) and where they come from")
    .option('--check', 'try each key with one request (GET /pets?limit=1)')
    .addHelpText(
      'after',
      `
Exit code: 0; 4 when the selected environment has no key to send (the sandbox needs none); with --check, also 4 when its key is refused (401), 3 when its server cannot be reached.

Examples:
  $ petstore auth status
  $ petstore --env staging auth status --check
  $ petstore auth status --json | jq '.environments[] | {name, key}'`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const { runStatus } = await import('./run.js');
        return runStatus(ctx, { check: flags.check === true });
      }),
    );
}

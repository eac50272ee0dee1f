/**
 * `petstore auth login [--with-token] [--no-verify]`: the declaration; the run is in
 * `run.ts`.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `auth login`. */
export function newLoginCommand(f: Runner) {
  return withTraits(new Command('login'), { environment: 'request' })
    .description('store the API key of the selected environment (hidden prompt, or stdin with --with-token)')
    .option('--with-token', 'read the key from stdin instead of prompting')
    .addOption(new Option('--no-verify', 'store the key without checking it (GET /pets?limit=1)'))
    .addHelpText(
      'after',
      `
The key is bound to the environment's base URL and never sent anywhere else. There is no flag that takes the key itself: argv is visible to every local user.

Examples:
  $ petstore --env staging auth login
  $ petstore auth login --with-token < ~/petstore-production.key
  $ printenv STAGING_KEY | petstore --env staging auth login --with-token --no-verify`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const { runLogin } = await import('./run.js');
        return runLogin(ctx, { withToken: flags.withToken === true, verify: flags.verify });
      }),
    );
}

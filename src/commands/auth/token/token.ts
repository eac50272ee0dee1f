/** `petstore auth token`: the declaration; the run is in `run.ts`. */
import { Command } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import type { Runner } from '../../runner.js';

/** Declares `auth token`. */
export function newTokenCommand(f: Runner) {
  return withTraits(new Command('token'), { environment: 'settings' })
    .description("print the selected environment's API key, unmasked, on stdout (for other tools)")
    .addHelpText(
      'after',
      `
Prints the key a command would send, and nothing else, followed by a newline: from PETSTORE_API_KEY, the environment's apiKeyCommand (run once), or the stored key. It is the one command that prints a key: keep its output out of logs and shared terminals.

Exit code: 0; 4 when the environment has no key (or its apiKeyCommand fails); 2 for the sandbox, which makes its own key.

Examples:
  $ petstore auth token | wl-copy
  $ curl -H "Authorization: Bearer $(petstore auth token)" "$(petstore config get production.baseUrl)/pets"`,
    )
    .action(() =>
      f.run(async (ctx) => {
        const { runToken } = await import('./run.js');
        return runToken(ctx);
      }),
    );
}

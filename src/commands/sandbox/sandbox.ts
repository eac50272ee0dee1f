/** `petstore sandbox serve|reset`: the group. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';
import { newResetCommand } from './reset/reset.js';
import { newServeCommand } from './serve/serve.js';

/** Declares `sandbox` with its verbs. */
export function newSandboxCommand(f: Runner) {
  return new Command('sandbox')
    .description('the embedded Pet Store server')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore sandbox serve --port 8080
  $ petstore sandbox reset`,
    )
    .addCommand(newServeCommand(f))
    .addCommand(newResetCommand(f));
}

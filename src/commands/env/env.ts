/** `petstore env list|use|remove`: the group. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';
import { newListCommand } from './list/list.js';
import { newRemoveCommand } from './remove/remove.js';
import { newUseCommand } from './use/use.js';

/** Declares `env` with its verbs. */
export function newEnvCommand(f: Runner) {
  return new Command('env')
    .description('list the environments, choose the default, remove one')
    .addHelpText(
      'after',
      `
Add an environment with \`petstore config set NAME.baseUrl https://HOST/v1\`, then log in to it with \`petstore --env NAME auth login\`.

Examples:
  $ petstore env list
  $ petstore env use staging
  $ petstore env remove staging-eu`,
    )
    .addCommand(newListCommand(f))
    .addCommand(newUseCommand(f))
    .addCommand(newRemoveCommand(f));
}

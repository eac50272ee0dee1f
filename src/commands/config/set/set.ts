/** `petstore config set KEY VALUE`: the declaration; the run is in `run.ts`. */
import { Argument, Command } from '@commander-js/extra-typings';
import type { Runner } from '../../runner.js';
import { keyArgument } from '../shared/key-argument.js';

/** Declares `config set`. */
export function newSetCommand(f: Runner) {
  return new Command('set')
    .description('check a value and store it in the config file')
    .addArgument(keyArgument('set'))
    .addArgument(
      new Argument('<value>', 'the value (an environment name, a base URL ending in /v1, a command, or true/false)'),
    )
    .addHelpText(
      'after',
      `
API keys are not settings: store them with \`petstore auth login\`, or set <env>.apiKeyCommand to a command that prints one (split like a shell would, run without a shell, stdin or terminal: unlock your password manager first).

Examples:
  $ petstore config set staging.baseUrl https://staging.petstore.example/v1
  $ petstore config set production.baseUrl https://api.petstore.example/v1
  $ petstore config set environment staging
  $ petstore config set production.apiKeyCommand 'op read op://store/petstore/key'`,
    )
    .action((key, value) =>
      f.run(async (ctx) => {
        const { runSet } = await import('./run.js');
        return runSet(ctx, key, value);
      }),
    );
}

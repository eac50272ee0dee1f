/**
 * `petstore __complete-envs`: a hidden command the completion scripts run at Tab time
 * (as gh's and kubectl's scripts call back into the program, cli-contract.md
 * "Environments"): prints every environment name, one a line — production, staging, the
 * configured names, sandbox. Only names: never a URL or key. It never fails: an unreadable
 * config file gives the built-in names alone, and nothing is written to stderr.
 */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';

/** The hidden command's name; a leading `__` keeps it out of any environment name's shape. */
export const COMPLETE_ENVS = '__complete-envs';

/** Declares the hidden command (registered with `{ hidden: true }`). */
export function newCompleteEnvsCommand(f: Runner) {
  return new Command(COMPLETE_ENVS)
    .description('print the environment names, one a line (for shell completion)')
    .action(() =>
      f.run(async (ctx) => {
        const { runCompleteEnvs } = await import('./envs-run.js');
        return runCompleteEnvs(ctx);
      }),
    );
}

/** `petstore completion bash|zsh|fish`: the declaration; the run is in `run.ts`. */
import { Argument, Command } from '@commander-js/extra-typings';
import { rootOf, type Runner } from '../runner.js';

/** The shells `completion` writes scripts for. */
const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Declares `completion`. */
export function newCompletionCommand(f: Runner) {
  return new Command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(petstore completion bash)                 # in ~/.bashrc
  $ source <(petstore completion zsh)                  # in ~/.zshrc
  $ petstore completion fish > ~/.config/fish/completions/petstore.fish`,
    )
    .action((shell, _flags, cmd) =>
      f.run(async (ctx) => {
        const { runCompletion } = await import('./run.js');
        return runCompletion(ctx, rootOf(cmd), shell);
      }),
    );
}

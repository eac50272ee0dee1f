/** `petstore version`: prints the version, as `--version` does (what `gh version` users type). */
import { Command } from '@commander-js/extra-typings';

/** Declares `version`. It needs no Context: it prints `version` through `write`. */
export function newVersionCommand(version: string, write: (text: string) => void) {
  return new Command('version')
    .description('print the version (same as --version)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore version
  $ petstore --version`,
    )
    .action(() => {
      write(`${version}\n`);
    });
}

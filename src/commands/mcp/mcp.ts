/**
 * `petstore mcp [--allow-writes] [--yes] [--max-result-bytes N]`: the declaration of the
 * Model Context Protocol server on stdio (cli-contract.md "Agents"). The run is in
 * `run.ts`, loaded only when it runs; the SDK in `dist/mcp.cjs`, loaded only by the run.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { withTraits } from '../traits.js';
import { UsageError } from '../../base/errors.js';
import { FLAG_VALUES, quote } from '../../base/flag-values.js';
import type { Runner } from '../runner.js';

/** The cap on one result unless told otherwise: 256 KiB (FLAG_VALUES, which help --json reads). */
const MAX_RESULT_BYTES_DEFAULT = FLAG_VALUES['--max-result-bytes'].default;

/**
 * Parses `--max-result-bytes`: a whole number of bytes from 1024 to 67108864.
 * @throws UsageError otherwise.
 */
function parseMaxResultBytes(raw: string): number {
  const { min, max } = FLAG_VALUES['--max-result-bytes'].range;
  const value = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(
      `invalid --max-result-bytes ${quote(raw)}: must be a whole number of bytes from ${min} to ${max}`,
    );
  }
  return value;
}

/** Declares `mcp`. */
export function newMcpCommand(f: Runner) {
  return withTraits(new Command('mcp'), {
    writes: true,
    environment: 'request',
    operations: ['listPets', 'getPet', 'createPet'],
  })
    .description('serve the Pet Store to AI agents: a Model Context Protocol server on stdio')
    .summary('serve the Pet Store to AI agents (Model Context Protocol)')
    .option('--allow-writes', 'offer the create_pet tool (createPet); without it every tool only reads')
    .addOption(
      new Option(
        '--max-result-bytes <n>',
        `the most bytes of one tool result, ${FLAG_VALUES['--max-result-bytes'].range.min}-${FLAG_VALUES['--max-result-bytes'].range.max} (default: ${MAX_RESULT_BYTES_DEFAULT}); a longer list is cut and says so`,
      ).argParser((v) => parseMaxResultBytes(v)),
    )
    .addHelpText(
      'after',
      `
Tools: list_pets and get_pet (read-only), and create_pet with --allow-writes. Ids and category ids are decimal strings in results. Outside the sandbox, a client that supports elicitation is asked to confirm each create; where the environment has confirmWrites and the client cannot ask, creates are refused unless --yes was given. --timeout bounds each tool call. stdout carries only protocol frames; messages go to stderr. The server ends when stdin ends.

Examples:
  $ petstore --env sandbox mcp
  $ petstore --env staging mcp --allow-writes
  $ petstore --env production mcp --max-result-bytes 65536`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const { runMcp } = await import('./run.js');
        return runMcp(ctx, {
          allowWrites: flags.allowWrites === true,
          maxResultBytes: flags.maxResultBytes ?? MAX_RESULT_BYTES_DEFAULT,
        });
      }),
    );
}

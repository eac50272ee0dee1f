/**
 * `petstore pets create --name NAME --category-id ID [--status S]` and
 * `petstore pets create --from-file FILE`: the declaration (flags, help, typed options).
 * The runs are in `create.run.ts` and `create-from-file.run.ts`, loaded only when they run.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { PET_STATUSES, toJsonInt } from '../../api/constants.js';
import type { NewPet } from '../../api/schemas.js';
import { UsageError } from '../../errors.js';
import { parseInt64, parseStatus } from '../../input.js';
import type { Runner } from '../runner.js';

/** Typed options of `pets create`: one pet from flags, or a file of records. */
export type CreateOptions = { pet: NewPet; fromFile?: undefined } | { fromFile: string; pet?: undefined };

/** Declares `pets create`. */
export function newCreateCommand(f: Runner) {
  return new Command('create')
    .description('add a pet (createPet: POST /pets); prints the created pet')
    .option('--name <name>', "the animal's name (required)")
    .addOption(
      new Option('--category-id <id>', 'category id, an int64 (required)').argParser((v) =>
        parseInt64(v, '--category-id'),
      ),
    )
    .addOption(
      new Option('--status <status>', 'the availability of the new pet')
        .choices(PET_STATUSES)
        .argParser((v) => parseStatus(v)),
    )
    .addOption(
      new Option(
        '--from-file <file>',
        'create every NewPet of a JSON array or NDJSON file, in order (- = stdin)',
      ).conflicts(['name', 'categoryId', 'status']),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets create --name Rex --category-id 1
  $ petstore pets create --name Kiwi --category-id 4 --status pending --json
  $ petstore pets create --from-file new-pets.ndjson --output ndjson

With --from-file, every record is checked before the first is sent. On a failure the
records not created are saved to FILE.remaining.ndjson (for stdin: a file in the temp
directory) for a re-run; a record that may have been created is reported, not saved.`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const options = toCreateOptions(flags);
        if (options.fromFile !== undefined) {
          const { runCreateFromFile } = await import('./create-from-file.run.js');
          return runCreateFromFile(ctx, options.fromFile);
        }
        const { runCreate } = await import('./create.run.js');
        return runCreate(ctx, options.pet);
      }),
    );
}

/** The flags of `pets create` as commander parsed them. */
export type CreateFlags = ReturnType<ReturnType<typeof newCreateCommand>['opts']>;

/**
 * Turns the parsed flags into a NewPet, or a `--from-file` source (commander has already
 * refused `--from-file` together with the other flags).
 * @throws UsageError when `--name` or `--category-id` is missing, or `--from-file` is empty.
 */
export function toCreateOptions(flags: CreateFlags): CreateOptions {
  if (flags.fromFile !== undefined) {
    if (flags.fromFile === '') throw new UsageError('invalid --from-file "": give a file path, or - for stdin');
    return { fromFile: flags.fromFile };
  }
  if (flags.name === undefined) {
    throw new UsageError(
      'missing --name: every pet needs a name',
      'Example: petstore pets create --name Rex --category-id 1',
    );
  }
  if (flags.categoryId === undefined) {
    throw new UsageError(
      'missing --category-id: every pet belongs to a category (an int64 id)',
      'Example: petstore pets create --name Rex --category-id 1',
    );
  }
  const pet: NewPet = { name: flags.name, categoryId: toJsonInt(flags.categoryId) };
  if (flags.status !== undefined) pet.status = flags.status;
  return { pet };
}

/**
 * `petstore pets create --name NAME --category-id ID [-s|--status S]` and
 * `petstore pets create --from-file FILE`: the declaration (flags, help, typed options).
 * The runs are in `run.ts` and `from-file.ts`, loaded only when they run.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { operationLabel } from '../../../client/constants.js';
import { RECORD_FLAGS, withTraits } from '../../traits.js';
import { UsageError } from '../../../base/errors.js';
import { CONCURRENCY_MAX, DEFAULT_CONCURRENCY, parseConcurrency } from '../../../base/flag-values.js';
import { dryRunForm, parseDryRun, type DryRunForm } from '../../../operations/dry-run.js';
import { CREATE_PET } from '../../../operations/pets.js';
import { requiredFlags } from '../../options.js';
import type { Runner } from '../../runner.js';
import { missingFlags, petOptions, toPetDraft, type PetDraft } from '../shared/draft.js';
import { canPrompt, missingPetFlagsError } from '../shared/missing-flags.js';

/** Typed options of `pets create`: one pet from flags, or a file of records. */
export type CreateOptions =
  | { draft: PetDraft; dryRun: DryRunForm | undefined; fromFile?: undefined }
  | {
      fromFile: { file: string; dryRun: boolean; force: boolean; resendUnknown: boolean; concurrency: number };
      draft?: undefined;
    };

/** Declares `pets create`. */
export function newCreateCommand(f: Runner) {
  const [name, categoryId, status] = petOptions();
  return withTraits(new Command('create'), {
    recordFlags: RECORD_FLAGS,
    writes: true,
    operations: ['createPet'],
    together: [requiredFlags(CREATE_PET)],
    environment: 'request',
  })
    .description(`add a pet (${operationLabel('createPet')}); prints the created pet`)
    .addOption(name)
    .addOption(categoryId)
    .addOption(status)
    .addOption(
      new Option(
        '--from-file <file>',
        'create every NewPet of a JSON array or NDJSON file, in order (- = stdin)',
      ).conflicts(['name', 'categoryId', 'status']),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `with --from-file: requests in flight at once, 1-${CONCURRENCY_MAX} (default: ${DEFAULT_CONCURRENCY}); created pets are printed in input order`,
      ).argParser((v) => parseConcurrency(v)),
    )
    .addOption(
      new Option(
        '--dry-run [=curl]',
        'send nothing: print the request (method, URL, headers, body) as JSON, the key as $PETSTORE_API_KEY; --dry-run=curl prints a curl command that reads the key from $PETSTORE_API_KEY; with --from-file: check every record and print what would be sent',
      ).argParser((v) => parseDryRun(v)),
    )
    .option(
      '--force',
      'with --from-file: send an input whose earlier run stopped partway (its created records are created again)',
    )
    .option(
      '--resend-unknown',
      "with --from-file: send again the records an earlier run left unknown (may have been created), with their Idempotency-Keys, within 24 hours; only where the environment's idempotencyKeys is true",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets create --name Rex --category-id 1
  $ petstore pets create --name Kiwi --category-id 4 --status pending --json
  $ petstore pets create --from-file new-pets.ndjson --concurrency 16 --output ndjson

With --from-file, every record is checked before the first is sent; several requests are in flight at once (--concurrency), each on a new connection, and the created pets are printed in input order. A 429 answer is a refusal: that record is sent again after Retry-After, and fewer requests are kept in flight for a while. On a failure the records not created are saved for a re-run to FILE.remaining.ndjson beside the file (else, and for stdin, in the current directory; never over an existing file); a record that may have been created is reported, not saved. Sending again a file whose run stopped partway, or was killed, is refused: send its remaining file, or add --force. Every create carries an Idempotency-Key; where the server honours it (idempotencyKeys), --resend-unknown sends the records that may have been created again with their keys, so each is created at most once.

--dry-run sends nothing and asks nothing; it needs a key source, as the real run does, but never prints the key nor runs apiKeyCommand to read it. The curl command of --dry-run=curl (curl 7.55 or later) is for a shell where PETSTORE_API_KEY holds the key (a note gives the export line that sets it when it is not set); printf, a shell builtin, hands the key to curl on stdin, out of every process's arguments. With --env sandbox it is refused: the embedded sandbox stops when petstore does (run \`petstore sandbox serve\` instead).`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        // What it prints is a record of what was written, and its account must stay in view.
        ctx.io.disablePager();
        const options = toCreateOptions(flags);
        if (options.fromFile !== undefined) {
          const { runCreateFromFile } = await import('./from-file.js');
          return runCreateFromFile(ctx, options.fromFile);
        }
        const missing = missingFlags(options.draft);
        if (missing.length > 0 && !canPrompt(ctx))
          throw missingPetFlagsError(missing, 'pets create --name Rex --category-id 1', (words) => ctx.suggest(words));
        const { runCreate } = await import('./run.js');
        return runCreate(ctx, options.draft, options.dryRun);
      }),
    );
}

/** The flags of `pets create` as commander parsed them. */
type CreateFlags = ReturnType<ReturnType<typeof newCreateCommand>['opts']>;

/**
 * Turns the parsed flags into a pet draft, or a `--from-file` source (commander has already
 * refused `--from-file` together with the other flags). Missing required values are left
 * for the caller (`missingFlags`): asked for on a terminal, refused all at once otherwise.
 * @throws UsageError when `--from-file` is empty or comes with `--dry-run=curl`, when
 * `--force` and `--resend-unknown` come together, or `--force`/`--resend-unknown`/
 * `--concurrency` come without `--from-file`.
 */
function toCreateOptions(flags: CreateFlags): CreateOptions {
  const dryRun = dryRunForm(flags.dryRun);
  if (flags.fromFile !== undefined) {
    if (flags.fromFile === '') throw new UsageError('invalid --from-file "": give a file path, or - for stdin');
    if (dryRun === 'curl') {
      throw new UsageError(
        '--dry-run=curl prints one request, and --from-file sends one per record',
        '--dry-run with --from-file checks every record and prints what would be sent.',
      );
    }
    if (flags.force === true && flags.resendUnknown === true) {
      throw new UsageError(
        '--force and --resend-unknown cannot be used together: --force sends every record again with new Idempotency-Keys, --resend-unknown only the unknown ones with their own',
      );
    }
    const fromFile = {
      file: flags.fromFile,
      dryRun: dryRun !== undefined,
      force: flags.force === true,
      resendUnknown: flags.resendUnknown === true,
      concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    };
    return { fromFile };
  }
  const alone =
    flags.force === true
      ? '--force'
      : flags.resendUnknown === true
        ? '--resend-unknown'
        : flags.concurrency !== undefined
          ? '--concurrency'
          : undefined;
  if (alone !== undefined) {
    throw new UsageError(
      `${alone} works with --from-file only`,
      'Example: petstore pets create --from-file new-pets.ndjson --dry-run',
    );
  }
  return { draft: toPetDraft(flags), dryRun };
}

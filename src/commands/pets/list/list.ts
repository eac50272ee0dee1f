/**
 * `petstore pets list [-L|--limit N] [-s|--status S] [--all [--max-pages N]]`: the declaration
 * (flags, help, typed options). The run is in `run.ts`, loaded only when it runs.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { LIMIT_MAX, MAX_PAGES_DEFAULT, operationLabel, PET_FIELDS } from '../../../client/constants.js';
import { RECORD_FLAGS, withTraits } from '../../traits.js';
import { UsageError } from '../../../base/errors.js';
import { parseLimit, parseSort } from '../../../base/flag-values.js';
import { LIST_PETS } from '../../../operations/pets.js';
import { optionOf } from '../../options.js';
import type { EnvVars } from '../../../config/env.js';
import type { Runner } from '../../runner.js';
import type { ListOptions } from './run.js';
import { collationLocale } from './sort.js';

/** Page size asked for with `--all` when `--limit` is not given: the largest the API allows. */
const ALL_PAGE_SIZE_DEFAULT = LIMIT_MAX;

/** A `--limit` over 100, refused once it is known whether `--all` was given: the hint differs. */
class LimitOverMax {
  constructor(readonly error: UsageError) {}
}

/**
 * `parseLimit`, except that a value over 100 is held (`LimitOverMax`) for `toListOptions`.
 * @throws UsageError for any other value it refuses.
 */
function parseLimitOrDefer(raw: string): number | LimitOverMax {
  try {
    return parseLimit(raw);
  } catch (err) {
    // Only a value over the maximum gets a hint (pointing at --all).
    if (err instanceof UsageError && err.hint !== undefined) return new LimitOverMax(err);
    throw err;
  }
}

/** Declares `pets list`: listPets's inputs (`LIST_PETS`), and `--sort`, the CLI's own. */
export function newListCommand(f: Runner) {
  const { inputs } = LIST_PETS;
  return withTraits(new Command('list'), {
    recordFlags: RECORD_FLAGS,
    operations: ['listPets'],
    environment: 'request',
    // kubectl's `get --watch` (-w): here following the pets is a command of its own.
    elsewhere: { '--watch': 'pets watch', '-w': 'pets watch' },
  })
    .description(`list pets (${operationLabel('listPets')})`)
    .addOption(optionOf(inputs.limit, (v) => parseLimitOrDefer(v)))
    .addOption(optionOf(inputs.status))
    .addOption(optionOf(inputs.all))
    .addOption(optionOf(inputs.maxPages))
    .addOption(
      new Option(
        '--sort <field>',
        'order by a field (-FIELD: descending), client-side: what was fetched is sorted (every page with --all)',
      )
        .choices([...PET_FIELDS, ...PET_FIELDS.map((f) => `-${f}`)])
        .argParser((v) => parseSort(v)),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets list -s available -L 50
  $ petstore pets list --all --sort -id --fields id,name --output csv > pets.csv
  $ petstore pets list --all --jq 'map(select(.status == "sold")) | length'`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const options = toListOptions(flags, (words) => ctx.suggest(words), ctx.env);
        const { runList } = await import('./run.js');
        return runList(ctx, options);
      }),
    );
}

/** The flags of `pets list` as commander parsed them. */
export type ListFlags = ReturnType<ReturnType<typeof newListCommand>['opts']>;

/**
 * Turns the parsed flags into options. With `--all` and no `--limit`, pages of 100 are
 * asked for. `suggest` makes the example of an error message a command of this run
 * (`ctx.suggest`: with its `--env`); `env` gives `--sort name` its collation (`collationLocale`).
 * @throws UsageError for `--max-pages` without `--all`.
 */
export function toListOptions(
  flags: ListFlags,
  suggest: (words: string) => string = (words) => `petstore ${words}`,
  env?: EnvVars,
): ListOptions {
  const all = flags.all === true;
  if (flags.maxPages !== undefined && !all) {
    throw new UsageError(
      `--max-pages needs --all: ${LIST_PETS.inputs.maxPages.needs.why.cli}`,
      `Example: ${suggest('pets list --all --max-pages 50')}`,
    );
  }
  if (flags.limit instanceof LimitOverMax) {
    throw new UsageError(
      flags.limit.error.message,
      all
        ? `With --all, --limit is the size of each page (at most ${LIMIT_MAX}); every page is fetched whatever it is, so leave --limit out.`
        : flags.limit.error.hint,
    );
  }
  const limit = flags.limit ?? (all ? ALL_PAGE_SIZE_DEFAULT : undefined);
  return {
    query: {
      ...(limit === undefined ? {} : { limit }),
      ...(flags.status === undefined ? {} : { status: flags.status }),
    },
    all,
    maxPages: flags.maxPages ?? MAX_PAGES_DEFAULT,
    ...(flags.sort === undefined
      ? {}
      : { sort: flags.sort, locale: env === undefined ? undefined : collationLocale(env) }),
  };
}

/**
 * `petstore pets watch [--status S] [--interval SECONDS] [--watch-only] [--max-pages N]
 * [--max-events N] [--for DURATION]`:
 * the declaration (flags, help, typed options). The run is in `run.ts`, loaded only when
 * it runs.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { LIMIT_MAX, MAX_PAGES_DEFAULT, operationLabel, PET_STATUSES } from '../../../client/constants.js';
import { withTraits } from '../../traits.js';
import {
  FLAG_VALUES,
  parseDuration,
  parseInterval,
  parseMaxEvents,
  parseMaxPages,
  parseStatus,
} from '../../../base/flag-values.js';
import type { Runner } from '../../runner.js';
import type { WatchOptions } from './run.js';

const INTERVAL = FLAG_VALUES['--interval'];
const MAX_EVENTS = FLAG_VALUES['--max-events'];
const FOR = FLAG_VALUES['--for'];

/** Declares `pets watch`. */
export function newWatchCommand(f: Runner) {
  // Events are records of pets: --fields and --jq shape them; csv and --json (an array) are no form of a stream of events.
  return withTraits(new Command('watch'), {
    recordFlags: ['--fields', '--jq'],
    operations: ['listPets'],
    environment: 'request',
    outputs: ['table', 'ndjson'],
  })
    .description(`follow the pets as they change, polling every page (${operationLabel('listPets')})`)
    .addOption(
      new Option('-s, --status <status>', 'only pets with this status (a pet that leaves it is removed)')
        .choices(PET_STATUSES)
        .argParser((v) => parseStatus(v)),
    )
    .addOption(
      new Option(
        '--interval <seconds>',
        `seconds between walks, at least ${INTERVAL.range.min} (default: ${INTERVAL.default}; Retry-After and back-off stretch it)`,
      ).argParser((v) => parseInterval(v)),
    )
    .option('--watch-only', 'report only changes, not the pets there when the watch starts')
    .addOption(
      new Option(
        '--max-pages <n>',
        `stop each walk after N pages, 1-10000 (default: ${MAX_PAGES_DEFAULT}); such a walk reports no removals`,
      ).argParser((v) => parseMaxPages(v)),
    )
    .addOption(
      new Option(
        '--max-events <n>',
        `end with exit 0 after N events, ${MAX_EVENTS.range.min}-${MAX_EVENTS.range.max} (counted before --jq)`,
      ).argParser((v) => parseMaxEvents(v)),
    )
    .addOption(
      new Option(
        '--for <duration>',
        `end with exit 0 after this long: seconds, or 90s, 10m, 2h (${FOR.range.min} s to a week)`,
      ).argParser((v) => parseDuration(v)),
    )
    .addHelpText(
      'after',
      `
Off a terminal (and with --output ndjson) it prints one JSON object per change: {"type": "added", "changed" or "removed", "pet", "previous" (changed only), "at"}. On a terminal it draws a table, redrawn in place. Ctrl-C, --max-events or --for ends the watch; a reader that leaves (| head -1) is noticed only at the next event, so wait for a change with --max-events 1.

Examples:
  $ petstore pets watch --interval 10 --for 8h
  $ petstore pets watch --watch-only --max-events 1
  $ petstore pets watch --jq 'select(.type == "removed")'`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const options = toWatchOptions(flags);
        const { runWatch } = await import('./run.js');
        return runWatch(ctx, options);
      }),
    );
}

/** The flags of `pets watch` as commander parsed them. */
type WatchFlags = ReturnType<ReturnType<typeof newWatchCommand>['opts']>;

/** Turns the parsed flags into options: every walk asks for pages of 100, the most the API gives. */
function toWatchOptions(flags: WatchFlags): WatchOptions {
  return {
    query: { limit: LIMIT_MAX, ...(flags.status === undefined ? {} : { status: flags.status }) },
    intervalMs: flags.interval ?? INTERVAL.default * 1000,
    watchOnly: flags.watchOnly === true,
    maxPages: flags.maxPages ?? MAX_PAGES_DEFAULT,
    ...(flags.maxEvents === undefined ? {} : { maxEvents: flags.maxEvents }),
    ...(flags.for === undefined ? {} : { forMs: flags.for }),
  };
}

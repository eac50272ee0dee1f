/**
 * `pets watch`: walks every page of `listPets` (spec §4.1) each interval, as `pets list
 * --all` does, and reports what changed since the walk before (cli-contract.md, the command
 * table's `pets watch` row): as events, one JSON line each (off a terminal, `-o ndjson`,
 * `--jq`), or on a terminal as a table redrawn in place (`live.ts`). The API has no events
 * (spec §6), so a poll is all there is; what a poll can and cannot see is `view.ts`'s.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { ListPetsQuery, PetstoreClient } from '../../../client/client.js';
import { PET_FIELDS } from '../../../client/constants.js';
import { walkPetPages } from '../../../client/pages.js';
import type { Context } from '../../../context.js';
import {
  ApiError,
  CliError,
  ExitCode,
  InterruptedError,
  NetworkError,
  TimeoutError,
  UsageError,
} from '../../../base/errors.js';
import { parseRetryAfter } from '../../../http/retry.js';
import { writeRecords, type RecordOutput } from '../../../render/output.js';
import { pickFields } from '../../../render/pets.js';
import { watchDeprecation } from '../shared/watch-deprecation.js';
import { byId, frameRoom, LiveScreen, MARK_MS, MARK_WALKS, renderFrame } from './live.js';
import { fromRecord, petKey, PetView, type PetChange, type WalkChanges, type WalkTally } from './view.js';

/** Typed options of `pets watch`. */
export interface WatchOptions {
  query: ListPetsQuery;
  /** Between the end of one walk and the start of the next, in ms (`--interval`, 1 s at least). */
  intervalMs: number;
  /** `--watch-only`: the pets of the first walk are not reported as `added`. */
  watchOnly: boolean;
  /** The most pages one walk fetches; a walk stopped there is incomplete. */
  maxPages: number;
  /** `--max-events`: the watch ends (exit 0) once it has reported this many events. */
  maxEvents?: number;
  /** `--for`, in ms: the watch ends (exit 0) when this much time has passed since it started. */
  forMs?: number;
}

/** The longest back-off between failed walks, in ms, unless the interval is longer. */
const BACKOFF_CAP_MS = 60_000;
/** The longest `Retry-After` a watch waits for, in ms: a longer one is waited for this long. */
const RETRY_AFTER_CAP_MS = 3_600_000;

/**
 * How the watch prints: events (JSON lines, or `--jq`'s values) or the live table.
 * @throws UsageError (exit 2) for `-o json|tsv|csv`, and for `-o table` off a terminal
 * (a table redrawn in place needs one).
 */
function watchForm(ctx: Pick<Context, 'io' | 'output' | 'globals'>): 'events' | 'live' {
  if (ctx.globals.jq !== undefined) return 'events';
  if (ctx.globals.outputExplicit && ctx.output !== 'ndjson' && ctx.output !== 'table') {
    throw new UsageError(
      `pets watch prints events, one JSON object per line, or a table on a terminal; --output ${ctx.output} is not one of them`,
      'Use --output ndjson (the default off a terminal), or leave out --output on a terminal for the live table.',
    );
  }
  if (ctx.output === 'table' && !ctx.io.stdoutIsTTY) {
    throw new UsageError(
      'pets watch draws its table in place, which needs a terminal: stdout is not one',
      'Leave out --output table: off a terminal pets watch prints one JSON event per change (--output ndjson).',
    );
  }
  return ctx.output === 'table' ? 'live' : 'events';
}

/** One walk's outcome: what it saw (`WalkTally`), and whether it reached the last page. */
type Walk = { ok: true; tally: WalkTally; complete: boolean } | { ok: false; error: CliError };

/** How many events are turned back into objects at once to be printed: their memory stays small. */
const EVENT_BATCH = 1000;

/**
 * Whether a walk that failed this way is tried again: the server or the way to it failed
 * (a connection, the deadline, a 5xx), or it asked to wait (429). A 401, a refused input
 * and an answer that breaks the contract end the watch.
 */
function passing(err: unknown): err is CliError {
  if (err instanceof InterruptedError) return false;
  if (err instanceof NetworkError || err instanceof TimeoutError) return true;
  return err instanceof CliError && (err.status === 429 || err.status >= 500);
}

/**
 * One walk of every page, with a deadline of its own (`--timeout`): the pets by id, and
 * whether it reached the last page.
 * @throws what the walk throws, unless `passing` (returned) or the `--max-pages` stop (an incomplete walk).
 */
async function walkOnce(
  tally: WalkTally,
  client: PetstoreClient,
  options: WatchOptions,
  timeoutMs: number,
  observe: (headers: IncomingHttpHeaders) => void,
): Promise<Walk> {
  const endsAt = Date.now() + timeoutMs;
  try {
    const pages = walkPetPages(client, options.query, {
      maxPages: options.maxPages,
      words: { outcome: 'the walk is incomplete', narrow: 'the watch' },
      timeoutMs: () => Math.max(1, endsAt - Date.now()),
    });
    for await (const page of pages) {
      observe(page.headers);
      for (const pet of page.data) tally.see(pet);
    }
    return { ok: true, tally, complete: true };
  } catch (err) {
    if (err instanceof CliError && err.code === 'max_pages') return { ok: true, tally, complete: false };
    if (passing(err)) return { ok: false, error: err };
    throw err;
  }
}

/**
 * The wait after the `failures`-th failed walk in a row: the interval, doubled for each
 * failure after the first up to a minute (or the interval when longer), and at least what
 * the server's `Retry-After` asked.
 */
function backoffAfter(intervalMs: number, failures: number, error: CliError | undefined): number {
  const doubled = Math.min(intervalMs * 2 ** Math.max(0, failures - 1), Math.max(intervalMs, BACKOFF_CAP_MS));
  const asked = error instanceof ApiError ? parseRetryAfter(error.headers?.['retry-after']) : undefined;
  return Math.max(doubled, Math.min(asked ?? 0, RETRY_AFTER_CAP_MS));
}

/** `12:03:05`, local time. */
function clock(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

/** `5 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * What a reporter is told of a successful walk besides its changes. `first`: the first
 * walk, whose changes are the pets already there; `complete`: false when `--max-pages`
 * stopped it; `duplicate`: an id the walk saw with two different records; `number`: the
 * walk's number in the run, 1-based, failed walks counted.
 */
interface WalkFacts {
  number: number;
  first: boolean;
  complete: boolean;
  duplicate?: string;
}

/**
 * The warning for an id seen with two different records in one walk: said once per walk
 * (the walk's number makes each walk's its own message, which `warn` says once).
 */
function duplicateWords(id: string, walk: number): string {
  return `walk ${walk} of the pets saw two different pets with id ${id}; the one sent last is kept`;
}

/** What the watch reports after each walk: events, or the live table. */
interface Reporter {
  /**
   * A walk succeeded with these changes. `first`: the first walk, whose changes are the
   * pets already there; `complete`: false when `--max-pages` stopped it.
   */
  walked(changes: WalkChanges, at: Date, walk: WalkFacts): Promise<void>;
  /** A walk failed and is tried again in `waitMs`. */
  failed(error: CliError, at: Date, waitMs: number): Promise<void>;
  /** The watch ends: the cursor is shown again. */
  end(): Promise<void>;
}

/** The events reporter: one record per change, `--fields` applied to `pet` and `previous`. */
function eventReporter(ctx: Pick<Context, 'warn'>, output: RecordOutput, options: WatchOptions): Reporter {
  return {
    walked: async (changes, at, { number, first, complete, duplicate }) => {
      if (duplicate !== undefined) ctx.warn(duplicateWords(duplicate, number));
      if (!complete) {
        // Said once (`warn` says a message once): scripts learn that no removal will come.
        ctx.warn(
          `each walk stops at --max-pages ${options.maxPages} while the server links to more: removals are not reported`,
        );
      }
      if (first && options.watchOnly) return;
      const stamp = at.toISOString();
      const event = (c: PetChange): Record<string, unknown> => ({
        type: c.type,
        pet: pickFields(fromRecord(c.pet), output.fields),
        ...(c.previous === undefined ? {} : { previous: pickFields(fromRecord(c.previous), output.fields) }),
        at: stamp,
      });
      // A first walk of a large store is as many events as pets: made and printed a batch at a time.
      let batch: Record<string, unknown>[] = [];
      for (const c of changes) {
        batch.push(event(c));
        if (batch.length === EVENT_BATCH) {
          await writeRecords(output, batch);
          batch = [];
        }
      }
      if (batch.length > 0) await writeRecords(output, batch);
    },
    failed: (error, _at, waitMs) => {
      ctx.warn(`a walk of the pets failed (${error.message}); the next starts in ${seconds(waitMs)}`);
      return Promise.resolve();
    },
    end: () => Promise.resolve(),
  };
}

/**
 * The live table's reporter: the view redrawn after each walk, marked rows (`MARK_WALKS`,
 * `MARK_MS`, timed by the run's clock), a status line.
 */
function liveReporter(
  ctx: Pick<Context, 'io' | 'shutdown' | 'now'>,
  view: PetView,
  output: RecordOutput,
  options: WatchOptions,
): Reporter {
  const screen = new LiveScreen(ctx.io, ctx.shutdown);
  /** Marked pets by id: the successful walk that found the change, and when it ended (ms, the run's clock). */
  const marks = new Map<string, { walk: number; at: number }>();
  let walks = 0;
  let staleSince: Date | undefined;
  const every = `every ${seconds(options.intervalMs)}`;
  const draw = async (status: string): Promise<void> => {
    const now = ctx.now().getTime();
    for (const [id, mark] of marks) {
      if (walks - mark.walk >= MARK_WALKS && now - mark.at >= MARK_MS) marks.delete(id);
    }
    const { renderPetTable } = await import('../../../render/table.js');
    const screenSize = { columns: ctx.io.stdoutColumns, rows: ctx.io.stdoutRows, colors: ctx.io.colorOut };
    const marked = new Set(marks.keys());
    // Marked pets first, so that what just changed is on the screen however many pets there
    // are; only the rows that fit are made objects.
    const room = frameRoom(screenSize);
    const pets =
      room === Infinity
        ? [...view.pets()].sort((a, b) => Number(marked.has(petKey(b))) - Number(marked.has(petKey(a))) || byId(a, b))
        : view.firstRows(room, marked);
    const frame = { pets, total: view.size, marked, fields: output.fields, status };
    await screen.draw(renderFrame(frame, screenSize, renderPetTable), screenSize.columns);
  };
  const plural = (n: number): string => (n === 1 ? '1 change' : `${n === 0 ? 'no' : n} changes`);
  return {
    walked: async (changes, at, { first, complete, duplicate }) => {
      walks++;
      const mark = { walk: walks, at: at.getTime() };
      // The pets already there when the watch starts are no news: neither marked nor counted as changes.
      if (!first) for (const c of changes) if (c.type !== 'removed') marks.set(c.id, mark);
      staleSince = undefined;
      const pets = `${view.size} pets${complete ? '' : ` (first ${options.maxPages} pages)`}`;
      // On the status line, not stderr: a warning between frames would break the redraw in place.
      const twice = duplicate === undefined ? '' : ` · two different pets with id ${duplicate}`;
      const news = first ? '' : `${plural(changes.length)} · `;
      await draw(`updated ${clock(at)} · ${news}${pets} · ${every}${twice}`);
    },
    failed: async (error, at, waitMs) => {
      // Since the first failed walk of this outage; the reason last, where the width may cut it.
      staleSince ??= at;
      await draw(`stale since ${clock(staleSince)} · next try in ${seconds(waitMs)} · ${error.message}`);
    },
    end: () => screen.end(),
  };
}

/** The first `n` of `changes`. */
function firstOf(changes: WalkChanges, n: number): WalkChanges {
  if (n >= changes.length) return changes;
  return {
    length: n,
    *[Symbol.iterator]() {
      let left = n;
      for (const c of changes) {
        if (left-- === 0) return;
        yield c;
      }
    },
  };
}

/**
 * `work`, unless `timeUp` (`--for`) aborts first: then undefined, and what `work` later
 * brings or throws is dropped (the process ends with the run; nothing waits for it).
 */
async function beforeTimeUp<T>(work: Promise<T>, timeUp: AbortSignal | undefined): Promise<T | undefined> {
  if (timeUp === undefined) return work;
  work.catch(() => undefined);
  if (timeUp.aborted) return undefined;
  let onAbort = (): void => undefined;
  const up = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    timeUp.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, up]);
  } finally {
    timeUp.removeEventListener('abort', onAbort);
  }
}

/**
 * Waits `ms` between walks: true when the wait ran out, false when `timeUp` (`--for`)
 * cut it short.
 * @throws InterruptedError on a signal.
 */
async function pause(ms: number, signal: AbortSignal, timeUp: AbortSignal | undefined): Promise<boolean> {
  const either = timeUp === undefined ? signal : AbortSignal.any([signal, timeUp]);
  try {
    await sleep(ms, undefined, { signal: either });
    return true;
  } catch {
    if (signal.aborted) throw InterruptedError.from(signal);
    return false;
  }
}

/**
 * Keeps V8's young generation at the size it has now, for the rest of the process. V8
 * doubles it (to 2 x 16 MiB on 64-bit) once the bytes that survived it since it last grew
 * pass its size: every page of a walk leaves a little alive across a scavenge, so a watch
 * reaches the largest size within a few walks of a large store, and keeps it all day, where
 * a single walk (`pets list --all`) stays smaller. Walks allocate steadily and hold little
 * between pages, so a smaller young generation costs only more frequent, shorter scavenges
 * (docs/performance.md, "`pets watch` memory"). `--semi-space-growth-factor` is read by
 * V8 each time it grows the space (the largest size, `--max-semi-space-size`, is fixed at
 * start-up and cannot be set from here); Node leaves V8's flags settable at run time.
 * Measured on Node 20 (V8 11.3). Later V8 releases raise a growth factor below 2 to 2 (a
 * minimum-value implication), where this changes nothing: no harm, and no gain.
 */
async function keepYoungGenerationSize(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Watches the pets until a signal, a closed stdout, an error that is not passing, or its
 * own end: `--max-events` events reported, or `--for` run out (exit 0 for these). An event
 * is what the events form prints: the first walk's pets count unless `--watch-only`; on a
 * terminal the same changes are counted. `--for` is counted from the first walk and cuts a
 * walk or a wait short.
 * @throws UsageError (exit 2) for an output form the watch does not print (`watchForm`);
 * InterruptedError on a signal (130, 143); ApiError for a 401 (exit 4) or another answer
 * that is not passing; OutputError (EPIPE: exit 0).
 */
export async function runWatch(ctx: Context, options: WatchOptions): Promise<number> {
  const form = watchForm(ctx);
  // --timeout bounds each walk: the transport's deadline is each request's, cut to what is left of its walk's.
  const { client } = await ctx.connect({ deadlinePer: 'request', reads: true });
  const output = await ctx.recordOutput();
  ctx.io.disablePager();
  await keepYoungGenerationSize();
  const observe = watchDeprecation(ctx, 'listPets (GET /pets)');
  const view = new PetView(output.fields ?? PET_FIELDS);
  const reporter = form === 'live' ? liveReporter(ctx, view, output, options) : eventReporter(ctx, output, options);
  const timeUp = options.forMs === undefined ? undefined : AbortSignal.timeout(options.forMs);
  let eventsLeft = options.maxEvents ?? Infinity;
  try {
    for (let failures = 0, first = true; ;) {
      // A reader that went away is noticed before the next walk, not only at the next event.
      if (ctx.io.stdoutError()?.code === 'EPIPE') return ExitCode.ok;
      // One snapshot: the view; a walk keeps only the pets that differ from it.
      const walking = walkOnce(view.walk(), client, options, ctx.globals.timeoutMs, observe);
      const walk = await beforeTimeUp(walking, timeUp);
      if (walk === undefined) return ExitCode.ok;
      let waitMs = options.intervalMs;
      if (walk.ok) {
        failures = 0;
        const changes = view.apply(walk.tally, walk.complete);
        const counted = first && options.watchOnly ? 0 : Math.min(changes.length, eventsLeft);
        const { number, duplicate } = walk.tally;
        const facts = { number, first, complete: walk.complete, duplicate };
        await reporter.walked(counted > 0 ? firstOf(changes, counted) : changes, ctx.now(), facts);
        eventsLeft -= counted;
        first = false;
        if (eventsLeft <= 0) return ExitCode.ok;
      } else {
        failures++;
        waitMs = backoffAfter(options.intervalMs, failures, walk.error);
        await reporter.failed(walk.error, ctx.now(), waitMs);
      }
      // Printing waited until stdout took it all: no walk starts while stdout is blocked.
      if (!(await pause(waitMs, ctx.signal, timeUp))) return ExitCode.ok;
    }
  } finally {
    await reporter.end();
  }
}

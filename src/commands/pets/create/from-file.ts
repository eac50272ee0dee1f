/**
 * `pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record of a JSON
 * array or NDJSON (cli-contract.md "Bulk create"). This is the orchestration only — open
 * the input (create/source.ts), check every record (check.ts), then pass 2
 * (send-pass.ts): judge the run by earlier runs of the same input, send into the account,
 * save what remains, report — each pass one pipeline, so that a fault anywhere rejects the
 * one promise awaited here. It is the one part of the bulk create that holds the whole
 * Context: what the parts need from it is resolved here once (the places, the terminal:
 * printer, progress line, warnings) and handed down with the one view of the Context that
 * pass 2 uses (`SendContext`). `--timeout` bounds each record's request;
 * `--concurrency` requests are in flight at once, each POST on a fresh connection unless
 * PETSTORE_BULK_CONNECTIONS says `keep-alive`.
 *
 * Whatever stops a run — a failed request, a stdout that cannot take the output, a signal,
 * an input that changed after it was checked — it ends the same way: sending stops, the
 * records not created are saved to a remaining file, the account (created / failed /
 * unknown / not sent) is reported, and the exit code is non-zero. The answers of requests
 * already sent are awaited first: within their deadline, or after a signal for half of the
 * time the shutdown registry allows (the rest is for saving and reporting), after which
 * those still under way are unknown. If the process is ended before that (`cli-entry.ts`),
 * the account is reported all the same.
 */
import { setMaxListeners } from 'node:events';
import { pipeline } from 'node:stream/promises';
import type { NewPet } from '../../../client/schemas.js';
import { placesOf } from '../../../config/paths.js';
import type { Context } from '../../../context.js';
import { ExitCode, InterruptedError } from '../../../base/errors.js';
import { CONCURRENCY_MAX } from '../../../base/flag-values.js';
import { nothingSent } from './account.js';
import { checkSource } from './check.js';
import type { BulkPlaces } from './places.js';
import { recordPrinter } from './printer.js';
import { formatCount } from '../../../text/count.js';
import { sendChecked, type BulkTerminal } from './send-pass.js';
import { openSource } from './source.js';

/** Typed options of `pets create --from-file`. */
export interface FromFileOptions {
  /** The `--from-file` value (`-` = stdin). */
  file: string;
  /** `--dry-run`: check and print, send nothing. */
  dryRun: boolean;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
  /** `--resend-unknown`: send again, with their keys, the records an earlier run left unknown. */
  resendUnknown: boolean;
  /** `--concurrency`: requests in flight at once (1-32). */
  concurrency: number;
}

/**
 * Creates every record of `options.file` in order. Nothing is sent unless every record is
 * valid and no earlier run of the same input stopped partway (unless `force`).
 * @throws UsageError (exit 2, nothing sent) for unreadable or invalid input; ConfigError
 * (exit 2) when input read once cannot be kept; CliError `already_sent` (exit 2); CliError
 * with the account otherwise: the failure's exit code, 1 (`output`) for stdout, 1
 * (`input_changed`), 129/130/131/143 (`interrupted`) for signals.
 */
export async function runCreateFromFile(ctx: Context, options: FromFileOptions): Promise<number> {
  const { io, signal, shutdown } = ctx;
  // After a signal, requests under way are awaited and what they created printed, for half
  // of the grace the shutdown registry allows (the rest is for saving and reporting); then
  // they are aborted (unknown), and a stdout that does not take the output is given up.
  const settling = abortAfter(signal, shutdown.graceMs / 2);
  ctx.defer(() => settling.dispose());
  const { progress } = io;
  const terminal: BulkTerminal = {
    // Records on a terminal would run into the progress line: it is erased before each.
    print: recordPrinter(await ctx.recordOutput(), {
      signal: settling.signal,
      beforeWrite: io.stdoutIsTTY ? () => progress.clear() : () => undefined,
    }),
    progress,
    showProgress: io.stderrIsTTY,
    // Messages while the progress line is shown erase it first.
    warn: (message) => {
      progress.clear();
      ctx.warn(message);
    },
    summary: (message, target) => io.summary(message, target),
    namesTarget: io.stderrIsTTY,
  };
  const places: BulkPlaces = placesOf(ctx.env);
  // Ended by force before the first request: nothing was sent; once sending, the account.
  const beforeSending = (): unknown => nothingSent(InterruptedError.from(signal));
  let lastWords = beforeSending;
  const clearLastWords = ctx.atForcedEnd(() => lastWords());
  try {
    const source = await openSource(options.file, { io, tempDir: places.temp, signal, shutdown });
    ctx.defer(() => source.close());
    const input = await checkSource(source, signal);
    if (options.dryRun) {
      await pipeline(input.records(), pets, terminal.print);
      const n = input.checked.records;
      ctx.note(`${formatCount(n)} record${n === 1 ? '' : 's'} checked; nothing was sent (--dry-run)`, { always: true });
      return ExitCode.ok;
    }
    return await sendChecked(ctx, input, places, terminal, {
      concurrency: options.concurrency,
      force: options.force,
      resendUnknown: options.resendUnknown,
      timeoutMs: ctx.globals.timeoutMs,
      connectionReuse: ctx.env.get('PETSTORE_BULK_CONNECTIONS') ?? 'fresh',
      settling: settling.signal,
      sending: (words) => (lastWords = words),
    });
  } catch (err) {
    // A signal before the first request (whatever it made the step under way throw): nothing was sent.
    if (lastWords === beforeSending && signal.aborted) throw nothingSent(InterruptedError.from(signal));
    throw err;
  } finally {
    clearLastWords();
  }
}

/**
 * A signal aborted `ms` after `signal` aborts, with its reason (a request it aborts is an
 * interruption); `dispose` forgets `signal`.
 */
function abortAfter(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  // Each request in flight listens to it through its deadline: up to 32 at once, more than
  // Node's default of 10 before it warns of a leak.
  setMaxListeners(4 * CONCURRENCY_MAX, controller.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = (): void => {
    timer = setTimeout(() => controller.abort(signal.reason), ms);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    },
  };
}

/** The NewPets of checked records (`--dry-run` prints them). */
async function* pets(records: AsyncIterable<{ pet: NewPet }>): AsyncGenerator<NewPet> {
  for await (const { pet } of records) yield pet;
}

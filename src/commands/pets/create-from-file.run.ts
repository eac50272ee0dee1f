/**
 * `pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record of a JSON
 * array or NDJSON (cli-contract.md "Bulk create"). This is the orchestration only — open
 * the input (create/source.ts), check every record (check.ts), judge the run by earlier
 * runs of the same input (run-record.ts), send (sender.ts) into the account (account.ts),
 * save what remains (remaining.ts), report — each pass one pipeline, so that a fault
 * anywhere rejects the one promise awaited here. `--timeout` bounds each record's request;
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
import { checkedRecords, recordTexts, type IndexedRecord, type IndexedText } from '../../api/records.js';
import type { NewPet, Pet } from '../../api/schemas.js';
import { bulkPlaces } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { ExitCode, InterruptedError } from '../../errors.js';
import { CONCURRENCY_MAX } from '../../input.js';
import { BulkAccount, nothingSent } from './create/account.js';
import { checkInput, type CheckedInput } from './create/check.js';
import { recordPrinter } from './create/printer.js';
import { formatCount, sendingProgress, sendingSummary, type Progress } from './create/progress.js';
import { remainingPlace, saveRemaining } from './create/remaining.js';
import { RunHistory, runTarget } from './create/run-record.js';
import { BulkSender } from './create/sender.js';
import { InputChangedError, openSource, type BulkSource } from './create/source.js';

/** Typed options of `pets create --from-file`. */
export interface FromFileOptions {
  /** The `--from-file` value (`-` = stdin). */
  file: string;
  /** `--dry-run`: check and print, send nothing. */
  dryRun: boolean;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
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
  const { io, signal } = ctx;
  // After a signal, requests under way are awaited and what they created printed, for half
  // of the grace the shutdown registry allows (the rest is for saving and reporting); then
  // they are aborted (unknown), and a stdout that does not take the output is given up.
  const settling = abortAfter(signal, ctx.shutdown.graceMs / 2);
  ctx.defer(() => settling.dispose());
  const { progress } = io;
  // Records on a terminal would run into the progress line: it is erased before each.
  const beforeWrite = io.stdoutIsTTY ? () => progress.clear() : () => undefined;
  const print = recordPrinter(await ctx.petOutput(), { signal: settling.signal, beforeWrite });
  const places = bulkPlaces(ctx.env);
  // Messages while the progress line is shown erase it first.
  const warn = (message: string): void => {
    progress.clear();
    ctx.warn(message);
  };
  // Ended by force before the first request: nothing was sent; once sending, the account.
  const beforeSending = (): unknown => nothingSent(InterruptedError.from(signal));
  let lastWords = beforeSending;
  const clearLastWords = ctx.atForcedEnd(() => lastWords());
  try {
    const source = await openSource({ file: options.file, io, tempDir: places.temp, signal });
    ctx.defer(() => source.close());
    const checked = await pipeline(source.pass(signal), (bytes) => checkInput(bytes, source.label));
    // The records pass 1 checked, read again; and, for the remaining file, their texts read
    // without the run's signal: what remains is saved even after Ctrl-C.
    const records = () =>
      checkedRecords(source.pass(signal), checked.records, (what) => new InputChangedError(source.label, what));
    const texts = () => recordTexts(source.pass(new AbortController().signal));
    if (options.dryRun) {
      await pipeline(records(), pets, print);
      const n = checked.records;
      ctx.note(`${formatCount(n)} record${n === 1 ? '' : 's'} checked; nothing was sent (--dry-run)`, { always: true });
      return ExitCode.ok;
    }
    return await sendChecked(ctx, options, {
      source,
      checked,
      records,
      texts,
      print,
      progress,
      warn,
      places,
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

/** What pass 2 works with, from the orchestration. */
interface Pass2 {
  source: BulkSource;
  checked: CheckedInput;
  /** The checked records, read again. */
  records: () => AsyncIterable<IndexedRecord>;
  /** The records' texts, read again without the run's signal (the remaining file). */
  texts: () => AsyncIterable<IndexedText>;
  print: (pets: AsyncIterable<Pet>) => Promise<void>;
  progress: Progress;
  warn: (message: string) => void;
  places: ReturnType<typeof bulkPlaces>;
  /** Aborted some time after the run's signal: requests still under way are then given up. */
  settling: AbortSignal;
  /** Sets what to report if the process is ended from now on (the account). */
  sending: (lastWords: () => unknown) => void;
}

/**
 * Pass 2: judges the run by earlier runs of the same input, sends every checked record,
 * saves what remains and reports (see `runCreateFromFile`).
 */
async function sendChecked(ctx: Context, options: FromFileOptions, run: Pass2): Promise<number> {
  const { signal } = ctx;
  const { source, checked, progress } = run;
  const api = await ctx.connect({
    deadlinePer: 'request',
    refusals: 'caller',
    connections: options.concurrency,
    connectionReuse: ctx.env.get('PETSTORE_BULK_CONNECTIONS') ?? 'fresh',
    // Requests under way are aborted (then unknown) when the wait after a signal is over, not at once.
    interrupt: run.settling,
  });
  const input = { label: source.label, sha256: checked.sha256, size: checked.size, file: source.file };
  const history = await RunHistory.open(run.places.state, runTarget(api.connection, run.places.sandboxData), input, {
    now: () => ctx.now(),
    warn: run.warn,
  });
  await history.judge(options.force, (words) => ctx.suggest(words));
  const account = new BulkAccount(checked.records, checked.lastLine);
  await history.begin(account, options.force);
  const report = () =>
    account.toError({ signal, suggest: (w) => ctx.suggest(w), label: source.label, output: ctx.output });
  run.sending(() => {
    history.finishNow(account.endedByForce(InterruptedError.from(signal)));
    return report();
  });
  const started = performance.now();
  const sender = new BulkSender({
    account,
    signal,
    concurrency: options.concurrency,
    timeoutMs: ctx.globals.timeoutMs,
    create: ({ pet }, opts) => api.client.createPet(pet, opts),
    afterRefusal: (headers, refusals, remainingMs) => api.retryPolicy.afterRefusal(headers, refusals, remainingMs),
    warn: run.warn,
    now: () => ctx.now(),
    answered: ctx.io.stderrIsTTY
      ? (flight) =>
          progress.update(sendingProgress(account.createdTotal, checked.records, performance.now() - started, flight))
      : undefined,
    checkpoint: () => history.checkpoint(account),
  });
  const failure = await sendAll(run.records(), sender, run.print, account);
  progress.clear();
  const place = remainingPlace(source.file?.path, source.stem, ctx.cwd);
  const written = account.notCreated > 0 ? await saveRemaining(run.texts, account, place, ctx.shutdown) : undefined;
  const notes = await history.finish(account, written);
  if (failure !== undefined) throw report();
  ctx.note(sendingSummary(account.createdTotal, performance.now() - started));
  for (const note of notes) ctx.note(note, { always: true });
  return ExitCode.ok;
}

/**
 * Pass 2 as one pipeline: the records, the sender, the printer. Resolves with what stopped
 * it (recorded in `account`), or undefined when every record was created.
 */
function sendAll(
  records: AsyncIterable<IndexedRecord>,
  sender: BulkSender,
  print: (pets: AsyncIterable<Pet>) => Promise<void>,
  account: BulkAccount,
): Promise<unknown> {
  return pipeline(records, (r: AsyncIterable<IndexedRecord>) => sender.send(r), print).then(
    () => undefined,
    (err: unknown) => account.stopped(err),
  );
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

/**
 * `pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record of a JSON
 * array or NDJSON (cli-contract.md "Bulk create"). This is the orchestration only — open
 * the input (create/source.ts), check every record (check.ts), judge the run by earlier
 * runs of the same input (run-record.ts), send (sender.ts) into the account (account.ts),
 * save what remains (remaining.ts), report — each pass one pipeline, so that a fault
 * anywhere rejects the one promise awaited here. `--timeout` bounds each record's request.
 *
 * Whatever stops a run — a failed request, a stdout that cannot take the output, a signal,
 * an input that changed after it was checked — it ends the same way: sending stops, the
 * records not created are saved to a remaining file, the account (created / failed /
 * unknown / not sent) is reported, and the exit code is non-zero. If the process is ended
 * before that (`cli-entry.ts`), the account is reported all the same.
 */
import { pipeline } from 'node:stream/promises';
import { checkedRecords, recordTexts } from '../../api/records.js';
import type { NewPet } from '../../api/schemas.js';
import { bulkPlaces } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { ExitCode, InterruptedError } from '../../errors.js';
import { BulkAccount, nothingSent } from './create/account.js';
import { checkInput } from './create/check.js';
import { recordPrinter } from './create/printer.js';
import { sendingProgress, sendingSummary } from './create/progress.js';
import { remainingPlace, saveRemaining } from './create/remaining.js';
import { RunHistory, runTarget } from './create/run-record.js';
import { sendRecords } from './create/sender.js';
import { InputChangedError, openSource } from './create/source.js';

/** Typed options of `pets create --from-file`. */
export interface FromFileOptions {
  /** The `--from-file` value (`-` = stdin). */
  file: string;
  /** `--dry-run`: check and print, send nothing. */
  dryRun: boolean;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
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
  const { progress } = io;
  // Records on a terminal would run into the progress line: it is erased before each.
  const beforeWrite = io.stdoutIsTTY ? () => progress.clear() : () => undefined;
  const print = recordPrinter(await ctx.petOutput(), { signal, beforeWrite });
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
      ctx.note(`${n} record${n === 1 ? '' : 's'} checked; nothing was sent (--dry-run)`, { always: true });
      return ExitCode.ok;
    }
    const { client, connection } = await ctx.connect({ deadlinePer: 'request' });
    const input = { label: source.label, sha256: checked.sha256, size: checked.size, file: source.file };
    const history = await RunHistory.open(places.state, runTarget(connection, places.sandboxData), input, {
      now: () => ctx.now(),
      warn,
    });
    await history.judge(options.force, (words) => ctx.suggest(words));
    const account = new BulkAccount(checked.records, checked.lastLine);
    await history.begin(account, options.force);
    const report = () =>
      account.toError({ signal, suggest: (w) => ctx.suggest(w), label: source.label, output: ctx.output });
    lastWords = () => {
      history.finishNow(account.endedByForce(InterruptedError.from(signal)));
      return report();
    };
    const started = performance.now();
    const deps = {
      account,
      signal,
      create: ({ pet }: { pet: NewPet }) => client.createPet(pet),
      warn,
      now: () => ctx.now(),
      settled: async () => {
        progress.update(sendingProgress(account.createdTotal, checked.records, performance.now() - started));
        await history.checkpoint(account);
      },
    };
    const failure = await pipeline(records(), (r) => sendRecords(r, deps), print).then(
      () => undefined,
      (err: unknown) => account.stopped(err),
    );
    progress.clear();
    const place = remainingPlace(source.file?.path, source.stem, ctx.cwd);
    const written = account.notCreated > 0 ? await saveRemaining(texts, account, place, ctx.shutdown) : undefined;
    const notes = await history.finish(account, written);
    if (failure !== undefined) throw report();
    ctx.note(sendingSummary(account.createdTotal, performance.now() - started));
    for (const note of notes) ctx.note(note, { always: true });
    return ExitCode.ok;
  } catch (err) {
    // A signal before the first request (whatever it made the step under way throw): nothing was sent.
    if (lastWords === beforeSending && signal.aborted) throw nothingSent(InterruptedError.from(signal));
    throw err;
  } finally {
    clearLastWords();
  }
}

/** The NewPets of checked records (`--dry-run` prints them). */
async function* pets(records: AsyncIterable<{ pet: NewPet }>): AsyncGenerator<NewPet> {
  for await (const { pet } of records) yield pet;
}

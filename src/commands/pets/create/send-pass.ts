/**
 * Pass 2 of a bulk create (cli-contract.md "Bulk create"): judge the run by earlier runs of
 * the same input (run-record.ts), send every checked record (sender.ts) into the account
 * (account.ts), save what remains (remaining.ts) and report. It works with plain values and
 * small functions the command resolved from its context (`from-file.ts`), so
 * that the context itself stays in the command.
 */
import { pipeline } from 'node:stream/promises';
import type { IndexedRecord, IndexedText } from './records.js';
import type { Pet } from '../../../client/schemas.js';
import type { BulkPlaces } from './places.js';
import type { Api, ConnectOptions } from '../../../context.js';
import { ExitCode, InterruptedError, type CliError } from '../../../errors.js';
import type { RenderMode } from '../../../render/pets.js';
import type { Shutdown } from '../../../shutdown.js';
import { BulkAccount } from './account.js';
import type { CheckedInput } from './check.js';
import { formatCount, savingProgress, sendingProgress, sendingSummary, type Progress } from './progress.js';
import { remainingPlace, saveRemaining } from './remaining.js';
import { RunHistory, runTarget } from './run-record.js';
import { BulkSender } from './sender.js';
import type { BulkSource } from './source.js';

/** The command's choices for pass 2 (`--concurrency`, `--force`, `--timeout`). */
export interface SendChoices {
  /** `--concurrency`: requests in flight at once (1-32). */
  concurrency: number;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
  /** `--timeout` in milliseconds: bounds each record's request. */
  timeoutMs: number;
}

/** What pass 2 works with: the checked input, and what the command resolved from its context. */
export interface SendPass {
  source: BulkSource;
  checked: CheckedInput;
  /** The checked records, read again. */
  records: () => AsyncIterable<IndexedRecord>;
  /** The records' texts, read again without the run's signal (the remaining file). */
  texts: () => AsyncIterable<IndexedText>;
  /**
   * Prints the pets created (`recordPrinter`); `filterFailed` is told of the first `--jq`
   * failure on one of them, whose record is printed as it is instead.
   */
  print: (pets: AsyncIterable<Pet>, filterFailed: (err: CliError) => void) => Promise<void>;
  progress: Progress;
  /** Whether the progress line is drawn (stderr is a terminal). */
  showProgress: boolean;
  places: BulkPlaces;
  /** The run's signal (Ctrl-C and the other signals): sending stops. */
  signal: AbortSignal;
  /** Aborted some time after the run's signal: requests still under way are then given up. */
  settling: AbortSignal;
  /** Sets what to report if the process is ended from now on (the account). */
  sending: (lastWords: () => unknown) => void;
  /** Connects (`Context.connect`): resolves the environment and builds the client. */
  connect: (options: ConnectOptions) => Promise<Api>;
  /** `fresh` connection for each POST to a remote server, or `keep-alive` (PETSTORE_BULK_CONNECTIONS). */
  connectionReuse: ConnectOptions['connectionReuse'];
  /** A warning on stderr (the progress line erased first). */
  warn: (message: string) => void;
  /** A note on stderr (`Context.note`). */
  note: (message: string, opts?: { always?: boolean }) => void;
  /** A command to suggest in a hint (`Context.suggest`). */
  suggest: (words: string) => string;
  now: () => Date;
  /** The current directory (a remaining file of stdin goes there). */
  cwd: string;
  /** The shutdown registry: a remaining file being written is removed at a forced end. */
  shutdown: Shutdown;
  /** The render mode, for the account's form. */
  output: RenderMode;
}

/**
 * Pass 2: judges the run by earlier runs of the same input, sends every checked record in
 * order, saves what remains and reports. Resolves with exit code 0 when every record was
 * created.
 * @throws CliError `already_sent` (exit 2) when an earlier run stopped partway and not
 * `choices.force`; CliError with the account otherwise (see `runCreateFromFile`).
 */
export async function sendChecked(run: SendPass, choices: SendChoices): Promise<number> {
  const { signal, source, checked } = run;
  // Each record's request has its own deadline, and a refused one is sent again by the sender.
  const api = await run.connect({
    deadlinePer: 'request',
    refusals: 'caller',
    connections: choices.concurrency,
    connectionReuse: run.connectionReuse,
    // Requests under way are aborted (then unknown) when the wait after a signal is over, not at once.
    interrupt: run.settling,
  });
  const input = { label: source.label, sha256: checked.sha256, size: checked.size, file: source.file };
  const history = await RunHistory.open(run.places.state, runTarget(api.connection, run.places.sandboxData), input, {
    now: run.now,
    warn: run.warn,
  });
  await history.judge(choices.force, run.suggest);
  const account = new BulkAccount(checked.records, checked.lastLine);
  await history.begin(account, choices.force);
  const report = () => account.toError({ signal, suggest: run.suggest, label: source.label, output: run.output });
  run.sending(() => {
    history.finishNow(account.endedByForce(InterruptedError.from(signal)));
    return report();
  });
  // From the first request to the account, a signal does not end the process after its
  // grace: what was not created is saved whole, however long the disk takes; only a second
  // signal cuts that short (cli-contract.md "Errors and exit codes").
  const letGo = run.shutdown.add({ holds: () => true });
  try {
    return await sendAndSave(run, choices, { api, history, account, report });
  } finally {
    letGo();
  }
}

/** What `sendChecked` set up before the first request: the client, the run record, the account and its report. */
interface Sending {
  api: Api;
  history: RunHistory;
  account: BulkAccount;
  report: () => unknown;
}

/** Sends every record into the account, saves what remains, reports (`sendChecked`). */
async function sendAndSave(
  run: SendPass,
  choices: SendChoices,
  { api, history, account, report }: Sending,
): Promise<number> {
  const { signal, source, checked, progress } = run;
  const started = performance.now();
  const sender = new BulkSender({
    account,
    signal,
    concurrency: choices.concurrency,
    timeoutMs: choices.timeoutMs,
    create: ({ pet }, opts) => api.client.createPet(pet, opts),
    afterRefusal: (headers, refusals, remainingMs) => api.retryPolicy.afterRefusal(headers, refusals, remainingMs),
    warn: run.warn,
    now: run.now,
    answered: run.showProgress
      ? (flight) =>
          progress.update(sendingProgress(account.createdTotal, checked.records, performance.now() - started, flight))
      : undefined,
    checkpoint: () => history.checkpoint(account),
  });
  // A run that stalls now (cli-entry.ts) says so in its internal error, with the account.
  const unregister = run.shutdown.add({
    doing: () => `sending records (${formatCount(account.createdTotal)} of ${formatCount(checked.records)} created)`,
  });
  // The records, the sender, the printer as one pipeline: what stopped it is recorded in the
  // account. A `--jq` failure stops the sending, not the printing: every pet created by the
  // requests under way still reaches stdout, so none is created unreported.
  const failure = await pipeline(
    run.records(),
    (r: AsyncIterable<IndexedRecord>) => sender.send(r),
    (pets: AsyncIterable<Pet>) => run.print(pets, (err) => sender.halt(err)),
  )
    .then(
      () => undefined,
      (err: unknown) => account.stopped(err),
    )
    .finally(unregister);
  progress.clear();
  const place = remainingPlace(source.file?.path, source.stem, run.cwd);
  const written =
    account.notCreated > 0
      ? await saveRemaining(
          run.texts,
          account,
          place,
          run.shutdown,
          run.showProgress ? savingProgress(progress, account.notCreated) : undefined,
        )
      : undefined;
  progress.clear();
  const notes = await history.finish(account, written);
  if (failure !== undefined) throw report();
  await warnOfLateChange(source, checked.records, run.warn);
  run.note(sendingSummary(account.createdTotal, performance.now() - started));
  for (const note of notes) run.note(note, { always: true });
  return ExitCode.ok;
}

/**
 * Warns when the file changed after the send pass read it whole: the run stands, since
 * every record sent was read (and compared with the check) before the change, and none is
 * left (cli-contract.md "Bulk create": input checked is input sent). A change seen before
 * a chunk is handed on stops the run instead (`InputChangedError`).
 */
async function warnOfLateChange(source: BulkSource, records: number, warn: (message: string) => void): Promise<void> {
  const what = await source.changedSinceCheck().catch(() => undefined);
  if (what === undefined) return;
  const sent = records === 1 ? 'the 1 record sent is the one' : `the ${formatCount(records)} records sent are those`;
  warn(
    `${source.label} changed after it was read (${what}); ${sent} checked, and nothing read after the change was sent`,
  );
}

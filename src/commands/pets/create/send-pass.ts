/**
 * Pass 2 of a bulk create (cli-contract.md "Bulk create"): judge the run by earlier runs of
 * the same input (run-record.ts), send every checked record (sender.ts) into the account
 * (account.ts), save what remains (remaining.ts) and report. It takes what it uses of the
 * Context (`SendContext`) and, grouped by what they are, the values the command resolved
 * once (`from-file.ts`): the checked input, the places, the terminal and the run's choices.
 */
import { pipeline } from 'node:stream/promises';
import type { IndexedRecord } from './records.js';
import type { Pet } from '../../../client/schemas.js';
import type { BulkPlaces } from './places.js';
import { confirmWrite } from '../../../confirm-writes.js';
import type { Api, ConnectOptions, Context } from '../../../context.js';
import { ExitCode, InterruptedError } from '../../../errors.js';
import { BulkAccount } from './account.js';
import type { CheckedSource } from './check.js';
import type { recordPrinter } from './printer.js';
import { formatCount } from '../../../text/count.js';
import { savingProgress, sendingProgress, sendingSummary, type Progress } from './progress.js';
import { remainingPlace, saveRemaining } from './remaining.js';
import { RunHistory, runTarget } from './run-record.js';
import { BulkSender } from './sender.js';
import { describeTarget } from '../../../render/target.js';

/** How pass 2 runs: the command's choices, and how it ends. */
export interface SendChoices {
  /** `--concurrency`: requests in flight at once (1-32). */
  concurrency: number;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
  /** `--timeout` in milliseconds: bounds each record's request. */
  timeoutMs: number;
  /** `fresh` connection for each POST to a remote server, or `keep-alive` (PETSTORE_BULK_CONNECTIONS). */
  connectionReuse: ConnectOptions['connectionReuse'];
  /** Aborted some time after the run's signal: requests still under way are then given up. */
  settling: AbortSignal;
  /** Sets what to report if the process is ended from now on (the account). */
  sending: (lastWords: () => unknown) => void;
}

/** What a bulk create shows: the pets it created on stdout, its progress line and warnings on stderr. */
export interface BulkTerminal {
  /**
   * Prints the records (`recordPrinter`): the pets created, where `filterFailed` is told of
   * the first `--jq` failure on one of them, whose record is printed as it is instead.
   */
  print: ReturnType<typeof recordPrinter>;
  progress: Progress;
  /** Whether the progress line is drawn (stderr is a terminal). */
  showProgress: boolean;
  /** A warning on stderr (the progress line erased first). */
  warn: (message: string) => void;
  /** The summary line on stderr, `message in TARGET` (`Io.summary`: on a terminal only). */
  summary: (message: string, target: string) => void;
  /**
   * Whether the account names the environment and host the pets went to: stderr is a
   * terminal (cli-contract.md "Environments": off a terminal nothing extra is printed).
   */
  namesTarget: boolean;
}

/**
 * What pass 2 takes of the Context: connecting (only once every record is checked), the
 * question of an environment with `confirmWrites` (the terminal, variables and `--yes`), notes
 * and suggested commands, the clock and directory, the run's signal and shutdown registry,
 * and the render mode (the account's form).
 */
export type SendContext = Pick<
  Context,
  'connect' | 'note' | 'suggest' | 'now' | 'cwd' | 'signal' | 'shutdown' | 'output' | 'io' | 'env' | 'globals'
>;

/**
 * Pass 2: judges the run by earlier runs of the same input, sends every checked record in
 * order, saves what remains and reports. Resolves with exit code 0 when every record was
 * created.
 * @throws CliError `already_sent` (exit 2) when an earlier run stopped partway and not
 * `choices.force`; CliError `not_confirmed` (exit 2, nothing sent) when the environment's
 * `confirmWrites` question (asked once, before the first record) is not answered yes;
 * InterruptedError on Ctrl-C at it; CliError with the account otherwise (see `runCreateFromFile`).
 */
export async function sendChecked(
  ctx: SendContext,
  input: CheckedSource,
  places: BulkPlaces,
  terminal: BulkTerminal,
  choices: SendChoices,
): Promise<number> {
  const { signal } = ctx;
  const { source, checked } = input;
  // Each record's request has its own deadline, and a refused one is sent again by the sender.
  const api = await ctx.connect({
    deadlinePer: 'request',
    refusals: 'caller',
    connections: choices.concurrency,
    connectionReuse: choices.connectionReuse,
    // Requests under way are aborted (then unknown) when the wait after a signal is over, not at once.
    interrupt: choices.settling,
  });
  const history = await RunHistory.open(
    places.state,
    runTarget(api.connection, places.sandboxData),
    { label: source.label, sha256: checked.sha256, size: checked.size, file: source.file },
    { now: ctx.now, warn: terminal.warn },
  );
  await history.judge(choices.force, ctx.suggest);
  const n = checked.records;
  await confirmWrite(ctx, api.connection, `create ${formatCount(n)} pet${n === 1 ? '' : 's'} from ${source.label}`);
  const account = new BulkAccount(checked.records, checked.lastLine);
  await history.begin(account, choices.force);
  // On a terminal the account names where the pets went; off one its text stays as it was.
  const target = terminal.namesTarget ? describeTarget(api.connection) : undefined;
  const report = () =>
    account.toError({ signal, suggest: ctx.suggest, label: source.label, output: ctx.output, target });
  choices.sending(() => {
    history.finishNow(account.endedByForce(InterruptedError.from(signal)));
    return report();
  });
  // From the first request to the account, a signal does not end the process after its
  // grace: what was not created is saved whole, however long the disk takes; only a second
  // signal cuts that short (cli-contract.md "Errors and exit codes").
  const letGo = ctx.shutdown.add({ holds: () => true });
  try {
    return await sendAndSave(ctx, input, terminal, choices, { api, history, account, report });
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

/**
 * Sends every record into the account, saves what remains, reports (`sendChecked`). A file
 * that changed after the send pass read it whole is warned of: the run stands, since every
 * record sent was read (and compared with the check) before the change, and none is left
 * (cli-contract.md "Bulk create": input checked is input sent); a change seen before a
 * chunk is handed on stops the run instead (`InputChangedError`).
 */
async function sendAndSave(
  ctx: SendContext,
  { source, checked, records, texts }: CheckedSource,
  { print, progress, showProgress, warn, summary }: BulkTerminal,
  choices: SendChoices,
  { api, history, account, report }: Sending,
): Promise<number> {
  const started = performance.now();
  const sender = new BulkSender({
    account,
    signal: ctx.signal,
    concurrency: choices.concurrency,
    timeoutMs: choices.timeoutMs,
    create: ({ pet }, opts) => api.client.createPet(pet, opts),
    afterRefusal: (headers, refusals, remainingMs) => api.retryPolicy.afterRefusal(headers, refusals, remainingMs),
    warn,
    now: ctx.now,
    answered: showProgress
      ? (flight) =>
          progress.update(sendingProgress(account.createdTotal, checked.records, performance.now() - started, flight))
      : undefined,
    checkpoint: () => history.checkpoint(account),
  });
  // A run that stalls now (cli-entry.ts) says so in its internal error, with the account.
  const unregister = ctx.shutdown.add({
    doing: () => `sending records (${formatCount(account.createdTotal)} of ${formatCount(checked.records)} created)`,
  });
  // The records, the sender, the printer as one pipeline: what stopped it is recorded in the
  // account. A `--jq` failure stops the sending, not the printing: every pet created by the
  // requests under way still reaches stdout, so none is created unreported.
  const failure = await pipeline(
    records(),
    (r: AsyncIterable<IndexedRecord>) => sender.send(r),
    (pets: AsyncIterable<Pet>) => print(pets, (err) => sender.halt(err)),
  )
    .then(
      () => undefined,
      (err: unknown) => account.stopped(err),
    )
    .finally(unregister);
  progress.clear();
  const written =
    account.notCreated > 0
      ? await saveRemaining(
          texts,
          account,
          remainingPlace(source.file?.path, source.stem, ctx.cwd),
          ctx.shutdown,
          showProgress ? savingProgress(progress, account.notCreated) : undefined,
        )
      : undefined;
  progress.clear();
  const notes = await history.finish(account, written);
  if (failure !== undefined) throw report();
  const what = await source.changedSinceCheck().catch(() => undefined);
  if (what !== undefined) {
    const n = checked.records;
    const sent = n === 1 ? 'the 1 record sent is the one' : `the ${formatCount(n)} records sent are those`;
    warn(
      `${source.label} changed after it was read (${what}); ${sent} checked, and nothing read after the change was sent`,
    );
  }
  // On a terminal only, as the note it was: off one, stderr stays what scripts parse.
  summary(sendingSummary(account.createdTotal, performance.now() - started), describeTarget(api.connection));
  for (const note of notes) ctx.note(note, { always: true });
  return ExitCode.ok;
}

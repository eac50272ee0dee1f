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
import { confirmWrite } from '../../../operations/confirm-writes.js';
import type { Api, ConnectOptions, Context } from '../../../context.js';
import { ExitCode, InterruptedError, UsageError } from '../../../base/errors.js';
import { BulkAccount, type Saved } from './account.js';
import type { CheckedSource } from './check.js';
import type { recordPrinter } from './printer.js';
import { formatCount } from '../../../text/count.js';
import { savingProgress, sendingProgress, sendingSummary, type Progress } from './progress.js';
import { remainingPlace, removeIfWritten, saveRemaining, type RemainingPlace, type WrittenFile } from './remaining.js';
import { RunHistory, runTarget, type RunPlan } from './run-record.js';
import { BulkSender } from './sender.js';
import { describeTarget } from '../../../render/target.js';

/** How pass 2 runs: the command's choices, and how it ends. */
export interface SendChoices {
  /** `--concurrency`: requests in flight at once (1-32). */
  concurrency: number;
  /** `--force`: send an input whose earlier run stopped partway. */
  force: boolean;
  /** `--resend-unknown`: send again, with their keys, the records an earlier run left unknown. */
  resendUnknown: boolean;
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
 * Pass 2 (cli-contract.md "Bulk create": "a run takes the record's lock first, then judges
 * what was sent, then asks the `confirmWrites` question, then sends"): holds the run
 * record's lock, folds what a dead run of the same input left, judges the run by the
 * record, asks, then sends every checked record in order (or, with `--resend-unknown`, the
 * records an earlier run left unknown, with their keys), saves what remains and reports.
 * Resolves with exit code 0 when every record sent was created.
 * @throws CliError `already_sent` (exit 2) when an earlier run stopped partway or was killed
 * (naming the remaining file) and not `choices.force`, or when the input is being sent now;
 * UsageError (exit 2) for `--resend-unknown` where the environment does not declare
 * `idempotencyKeys`, or with nothing to send again; ConfigError (exit 2) when the run's
 * record cannot be kept; CliError `not_confirmed` (exit 2, nothing sent) when the
 * environment's `confirmWrites` question (asked once, before the first record) is not
 * answered yes; InterruptedError on Ctrl-C at it; CliError with the account otherwise (see
 * `runCreateFromFile`).
 */
export async function sendChecked(
  ctx: SendContext,
  input: CheckedSource,
  places: BulkPlaces,
  terminal: BulkTerminal,
  choices: SendChoices,
): Promise<number> {
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
  if (choices.resendUnknown && !api.connection.idempotencyKeys) throw keysNotHonoured(api.connection.environment.value);
  const history = RunHistory.open(
    places.state,
    runTarget(api.connection, places.sandboxData),
    {
      label: source.label,
      sha256: checked.sha256,
      size: checked.size,
      file: source.file,
      records: checked.records,
      lastLine: checked.lastLine,
    },
    { now: ctx.now, warn: terminal.warn },
  );
  const place = remainingPlace(source.file?.path, source.stem, ctx.cwd);
  try {
    await history.hold();
    await history.recover(
      choices.force
        ? undefined
        : (account, isRemaining) => saveRemaining(input.texts, adapt(account, isRemaining), place, ctx.shutdown),
    );
    const plan = await history.judge({ force: choices.force, resend: choices.resendUnknown }, ctx.suggest);
    const n = plan.mode === 'resend' ? plan.records.length : checked.records;
    const what =
      plan.mode === 'resend'
        ? `send again ${formatCount(n)} record${n === 1 ? '' : 's'} of ${source.label} that may have been created, with their Idempotency-Keys`
        : `create ${formatCount(n)} pet${n === 1 ? '' : 's'} from ${source.label}`;
    await confirmWrite(ctx, api.connection, what);
    const journal = history.begin(n);
    const account = new BulkAccount(n, checked.lastLine, { log: journal, resend: plan.mode === 'resend' });
    return await sendAccounted(ctx, input, terminal, choices, { api, history, account, plan, place });
  } finally {
    // After `finish` this changes nothing; before it (a refusal, a failure) the lock is let
    // go, and a journal begun stays for the next run to fold.
    await history.close();
  }
}

/** The refusal of `--resend-unknown` where the environment does not declare that its server honours keys. */
function keysNotHonoured(environment: string): UsageError {
  return new UsageError(
    `--resend-unknown sends records again with their Idempotency-Keys, and ${environment} is not declared to honour them (${environment}.idempotencyKeys); nothing was sent`,
    `If its server keeps Idempotency-Keys for 24 hours, say so with \`petstore config set ${environment}.idempotencyKeys true\`; otherwise check which records exist with \`petstore --env ${environment} pets list --all\`.`,
  );
}

/** What `sendChecked` set up before the first request: the client, the run record, the account, the plan. */
interface Sending {
  api: Api;
  history: RunHistory;
  account: BulkAccount;
  plan: RunPlan;
  place: RemainingPlace;
}

/**
 * From the first request to the account: what to report if the process is ended by force
 * is the account (and the journal says it was), and a signal does not end the process
 * after its grace: what was not created is saved whole, however long the disk takes; only
 * a second signal cuts that short (cli-contract.md "Errors and exit codes").
 */
async function sendAccounted(
  ctx: SendContext,
  input: CheckedSource,
  terminal: BulkTerminal,
  choices: SendChoices,
  sending: Sending,
): Promise<number> {
  const { signal } = ctx;
  const { history, account, api } = sending;
  // On a terminal the account names where the pets went; off one its text stays as it was.
  const target = terminal.namesTarget ? describeTarget(api.connection) : undefined;
  const report = () =>
    account.toError({ signal, suggest: ctx.suggest, label: input.source.label, output: ctx.output, target });
  choices.sending(() => {
    const interruption = InterruptedError.from(signal);
    account.endedByForce(interruption);
    history.finishNow(interruption.signal);
    return report();
  });
  const letGo = ctx.shutdown.add({ holds: () => true });
  try {
    return await sendAndSave(ctx, input, terminal, choices, { ...sending, report });
  } finally {
    letGo();
  }
}

/**
 * Sends every record of the plan into the account, saves what remains, reports
 * (`sendChecked`). A file that changed after the send pass read it whole is warned of: the
 * run stands, since every record sent was read (and compared with the check) before the
 * change, and none is left (cli-contract.md "Bulk create": input checked is input sent); a
 * change seen before a chunk is handed on stops the run instead (`InputChangedError`).
 */
async function sendAndSave(
  ctx: SendContext,
  { source, checked, records, texts }: CheckedSource,
  { print, progress, showProgress, warn, summary }: BulkTerminal,
  choices: SendChoices,
  { api, history, account, plan, place, report }: Sending & { report: () => unknown },
): Promise<number> {
  const started = performance.now();
  let replayed = 0;
  const sender = new BulkSender({
    account,
    signal: ctx.signal,
    concurrency: choices.concurrency,
    timeoutMs: choices.timeoutMs,
    create: async ({ pet, index }, opts) => {
      const idempotencyKey = history.idempotencyKey(history.inputIndexOf(index));
      const created = await api.client.createPet(pet, { ...opts, idempotencyKey });
      // The server answered with the pet a request with this key created before.
      if (created.headers['idempotent-replayed'] === 'true') replayed++;
      return created;
    },
    afterRefusal: (headers, refusals, remainingMs) => api.retryPolicy.afterRefusal(headers, refusals, remainingMs),
    warn,
    now: ctx.now,
    answered: showProgress
      ? (flight) =>
          progress.update(sendingProgress(account.createdTotal, account.records, performance.now() - started, flight))
      : undefined,
  });
  // A run that stalls now (cli-entry.ts) says so in its internal error, with the account.
  const unregister = ctx.shutdown.add({
    doing: () => `sending records (${formatCount(account.createdTotal)} of ${formatCount(account.records)} created)`,
  });
  const planned = plan.mode === 'resend' ? () => onlyThese(records(), history) : records;
  // The records, the sender, the printer as one pipeline: what stopped it is recorded in the
  // account. A `--jq` failure stops the sending, not the printing: every pet created by the
  // requests under way still reaches stdout, so none is created unreported.
  const failure = await pipeline(
    planned(),
    (r: AsyncIterable<IndexedRecord>) => sender.send(r),
    (pets: AsyncIterable<Pet>) =>
      print(
        pets,
        (err) => sender.halt(err),
        (pet) => sender.printed(pet),
      ),
  )
    .then(
      () => undefined,
      (err: unknown) => account.stopped(err),
    )
    .finally(unregister);
  progress.clear();
  const written = await saveWhatRemains(
    ctx,
    { source, texts },
    { progress, showProgress },
    { history, account, place },
  );
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
  if (plan.mode === 'resend') notes.unshift(resendNote(account, replayed));
  // On a terminal only, as the note it was: off one, stderr stays what scripts parse.
  summary(sendingSummary(account.createdTotal, performance.now() - started), describeTarget(api.connection));
  for (const note of notes) ctx.note(note, { always: true });
  return ExitCode.ok;
}

/**
 * Saves the records `account` did not create to a remaining file (`saveRemaining`), said in
 * the run's journal so that a run folding it uses that file. One the journal cannot name
 * (its disk is full) is removed again: tied to no record, a second run would write another;
 * the run that folds the journal writes it instead, and the account says so.
 * @returns the file as written and named, if it was.
 */
async function saveWhatRemains(
  ctx: Pick<SendContext, 'shutdown'>,
  { source, texts }: Pick<CheckedSource, 'source' | 'texts'>,
  { progress, showProgress }: Pick<BulkTerminal, 'progress' | 'showProgress'>,
  { history, account, place }: Pick<Sending, 'history' | 'account' | 'place'>,
): Promise<WrittenFile | undefined> {
  if (account.notCreated === 0) return undefined;
  const written = await saveRemaining(
    texts,
    adapt(account, (i) => account.isRemaining(history.positionOf(i))),
    place,
    ctx.shutdown,
    showProgress ? savingProgress(progress, account.notCreated) : undefined,
  );
  if (written === undefined || history.remainingWritten(written)) return written;
  await removeIfWritten(written);
  account.saved = { error: `this run's journal is full, so the next run of ${source.label} saves them` };
  return undefined;
}

/**
 * An account seen by `saveRemaining` through input indexes (`isRemaining`), which a
 * resumption's account counts by its own positions.
 */
function adapt(
  account: BulkAccount,
  isRemaining: (inputIndex: number) => boolean,
): { isRemaining(index: number): boolean; saved: Saved | undefined } {
  return {
    isRemaining,
    get saved() {
      return account.saved;
    },
    set saved(saved) {
      account.saved = saved;
    },
  };
}

/**
 * The records of a resumption: those of `records` the history sends again, by input index,
 * each given its position in this run as its index; reading stops after the last of them.
 */
async function* onlyThese(records: AsyncIterable<IndexedRecord>, history: RunHistory): AsyncGenerator<IndexedRecord> {
  let position = 0;
  let wanted = history.inputIndexOf(position);
  const count = history.resendCount();
  if (count === 0) return;
  for await (const record of records) {
    if (record.index !== wanted) continue;
    yield { ...record, index: position };
    position++;
    if (position >= count) return;
    wanted = history.inputIndexOf(position);
  }
}

/**
 * What a resumption did, in one note: `sent again 4 records that may have been created:
 * 4 created (3 had been created before: the server answered with the pet it made then)`.
 */
function resendNote(account: BulkAccount, replayed: number): string {
  const n = account.records;
  const before =
    replayed > 0
      ? ` (${formatCount(replayed)} had been created before: the server answered with the pet it made then)`
      : '';
  return `sent again ${formatCount(n)} record${n === 1 ? '' : 's'} that may have been created: ${formatCount(account.createdTotal)} created${before}`;
}

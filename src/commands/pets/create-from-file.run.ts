/**
 * `pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record of a JSON
 * array or NDJSON, all checked before the first is sent, created in order and printed as
 * they are created. The input is read twice in chunks (check, then send), so time is linear
 * and memory does not grow with it; `--timeout` bounds each record's request.
 *
 * Whatever stops it — a failed request, a closed or failing stdout, SIGINT or SIGTERM — it
 * ends the same way (cli-contract.md "Network behaviour"): it stops sending, writes the
 * records not created to a file for a re-run, reports the account (created / failed /
 * unknown / not sent) and exits non-zero. A record is "unknown" only if its request may have
 * left the process.
 */
import {
  checkRecord,
  emptyInputProblem,
  isProblem,
  RecordSplitter,
  type NewPetRecord,
  type RecordProblem,
  type RecordText,
} from '../../api/records.js';
import type { Pet } from '../../api/schemas.js';
import { tempDirectory } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import {
  ApiError,
  AuthError,
  CliError,
  ConfigError,
  describeFileError,
  ExitCode,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  OutputError,
  ProxyError,
  TlsError,
  UsageError,
} from '../../errors.js';
import { findErrorCode, NOT_SENT_CODES } from '../../http/retry.js';
import { settleOrAbort } from '../../io.js';
import { describeApiError } from '../../render/escape.js';
import { RecordStream } from '../../render/output.js';
import { BulkAccount, type StopPoint } from './create-account.js';
import { openSource, streamToFile, type RecordSource, type StreamedFile } from './create-source.js';

/**
 * What happened to one record whose `createPet` failed: refused or never made
 * (`not_created`), stopped at the proxy so nothing reached the API (`not_sent`), or unknown.
 */
export type FailureKind = 'not_created' | 'not_sent' | 'unknown';

/**
 * Decides whether a failed `createPet` surely did not create the pet. The server answering
 * with an error status means it did not; a connection that was never made (NOT_SENT_CODES)
 * or a TLS handshake that failed means nothing was sent. A timeout, a reset connection, an
 * interruption, or a success status with a broken body leave it unknown: the POST may have
 * reached the server (cli-contract.md "Network behaviour").
 */
export function classifyCreateFailure(err: unknown): FailureKind {
  // The http layer raises a ProxyError only while the tunnel is opened: the API saw nothing.
  if (err instanceof ProxyError) return 'not_sent';
  // A ConfigError comes from the embedded sandbox's own store: it refused the write.
  if (err instanceof ApiError || err instanceof AuthError || err instanceof TlsError || err instanceof ConfigError)
    return 'not_created';
  if (err instanceof InvalidResponseError) return err.status >= 400 ? 'not_created' : 'unknown';
  if (err instanceof NetworkError)
    return findErrorCode(err.cause, NOT_SENT_CODES) !== undefined ? 'not_created' : 'unknown';
  return 'unknown';
}

/** Where a failed `createPet` leaves its record in the account (see classifyCreateFailure). */
function stopKindOf(err: unknown): StopPoint['kind'] {
  const kind = classifyCreateFailure(err);
  return kind === 'not_created' ? 'failed' : kind === 'not_sent' ? 'none' : 'unknown';
}

/** Most problems listed when records are refused; the rest are counted. */
const PROBLEMS_SHOWN = 20;
/** Why the records not created were not saved, when the process is ended before they are. */
const ENDED_BEFORE_SAVED = 'the run was ended before they could be written';
/** Records checked between two turns of the event loop (signals are seen then). */
const RECORDS_PER_TURN = 2000;

/**
 * Creates every record of `file` in order. Nothing is sent unless every record is valid.
 * @throws UsageError (exit 2, nothing sent) for unreadable input or invalid records;
 * CliError with the account otherwise: the failure's exit code, 1 (`output`) for stdout,
 * 130/143 (`interrupted`) for signals.
 */
export async function runCreateFromFile(ctx: Context, file: string): Promise<number> {
  // Ended while a FIFO is waited for or a file is checked: say that nothing was sent.
  ctx.ifCutShort(() => nothingSent(ctx));
  const source = await openSource(ctx, file);
  const total = await interruptible(ctx, () => checkAll(source));
  // --timeout bounds each record's request: a long file must not run into one deadline.
  const { client } = await interruptible(ctx, () => ctx.connect({ deadlinePer: 'request' }));
  // --jq runs once per created pet, whatever the format (cli-contract.md "Output").
  const out = new RecordStream(await ctx.petOutput(), { jqPerRecord: true });
  const deprecation = new DeprecationReporter(
    (m) => ctx.warn(m),
    () => ctx.now(),
  );
  const account = new BulkAccount(total);
  let index = 0;
  // Each step that can fail says where the run stands; a stop ends the loop.
  const stop = (kind: StopPoint['kind'], at: number, line: number, err: unknown): unknown => {
    account.stop = { index: at, line, kind, cause: describeCause(err) };
    return err;
  };
  let failure: unknown;
  let inFlight: number | undefined;
  // Ended before the loop sees the signal (a second Ctrl-C): the account as it stands, the
  // record whose request was under way unknown, nothing saved.
  ctx.ifCutShort(() => {
    const cause = InterruptedError.from(ctx.signal);
    account.stop ??= {
      index,
      line: inFlight ?? 0,
      kind: inFlight === undefined ? 'none' : 'unknown',
      cause: cause.message,
    };
    if (account.notCreatedCount > 0) {
      account.saved = { error: ENDED_BEFORE_SAVED, count: account.notCreatedCount };
    }
    return accountError(ctx, account, cause);
  });
  try {
    for await (const record of validRecords(source)) {
      if (ctx.signal.aborted) {
        failure = stop('none', index, record.line, InterruptedError.from(ctx.signal));
        break;
      }
      let pet: Pet;
      try {
        inFlight = record.line;
        const res = await client.createPet(record.pet);
        inFlight = undefined;
        deprecation.observeAndFlush(res.headers, 'createPet (POST /pets)');
        pet = res.data;
      } catch (err) {
        failure = stop(stopKindOf(err), index, record.line, err);
        break;
      }
      account.created(record.line, pet.id);
      index++;
      try {
        // Not waited for past a signal: a reader that stopped reading would hold the run.
        await settleOrAbort(out.push([pet]), ctx.signal);
      } catch (err) {
        // Created, but stdout cannot take it (or a signal came first): the pet is in the
        // account, the rest is not sent.
        failure = stop('none', index, record.line, err);
        break;
      }
    }
  } catch (err) {
    // Reading the input again failed (Ctrl-C while waiting for it, a file changed meanwhile).
    failure = stop('none', index, 0, err);
  } finally {
    if (!(failure instanceof OutputError)) await settleOrAbort(out.end(), ctx.signal).catch(() => undefined);
  }
  if (failure === undefined) {
    ctx.ifCutShort(undefined);
    return ExitCode.ok;
  }
  return report(ctx, source, account, failure);
}

/** Runs `fn`, turning an interruption into "nothing was sent" (exit 130/143). */
async function interruptible<T>(ctx: Context, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof InterruptedError) && !ctx.signal.aborted) throw err;
    throw nothingSent(ctx);
  }
}

/** The error of a run interrupted before its first request (exit 130/143). */
function nothingSent(ctx: Context): CliError {
  const stopped = InterruptedError.from(ctx.signal);
  return new CliError(`${stopped.message} before anything was sent; nothing was created`, {
    exitCode: stopped.exitCode,
    code: 'interrupted',
  });
}

/**
 * Reads every record once and checks it. Returns how many there are.
 * @throws UsageError (exit 2, nothing sent) listing the problems by line (the first
 * PROBLEMS_SHOWN), or for input with no record at all.
 */
async function checkAll(source: RecordSource): Promise<number> {
  const splitter = new RecordSplitter();
  const problems: RecordProblem[] = [];
  let bad = 0;
  let sinceTurn = 0;
  const check = (texts: ReturnType<RecordSplitter['push']>): void => {
    for (const text of texts) {
      const r = checkRecord(text);
      if (!isProblem(r)) continue;
      bad++;
      if (problems.length < PROBLEMS_SHOWN) problems.push(r);
    }
  };
  for await (const chunk of source.chunks()) {
    const texts = splitter.push(chunk);
    check(texts);
    sinceTurn += texts.length;
    // A chunk may hold thousands of records: let a signal in now and then.
    if (sinceTurn >= RECORDS_PER_TURN) {
      sinceTurn = 0;
      await new Promise((r) => setImmediate(r));
    }
  }
  check(splitter.end());
  const structural = splitter.problems;
  const empty = emptyInputProblem(splitter);
  const all = [...structural, ...problems, ...(empty === undefined ? [] : [empty])].sort((a, b) => a.line - b.line);
  const count = bad + structural.length + (empty === undefined ? 0 : 1);
  if (count === 0) return splitter.count;
  const list = all
    .slice(0, PROBLEMS_SHOWN)
    .map((p) => `  line ${p.line}: ${p.message}`)
    .join('\n');
  const more = count - Math.min(all.length, PROBLEMS_SHOWN);
  throw new UsageError(
    empty !== undefined
      ? `--from-file ${source.label}: ${empty.message}; nothing was sent`
      : `--from-file ${source.label}: ${count} invalid record${count === 1 ? '' : 's'}; nothing was sent\n${list}${more > 0 ? `\n  … and ${more} more` : ''}`,
    'Each record is a NewPet: {"name": string, "categoryId": int64, "status"?: "available"|"pending"|"sold"}.',
  );
}

/** The records of a source that `checkAll` found valid, read again, in order. */
async function* validRecords(source: RecordSource, signal?: AbortSignal): AsyncGenerator<NewPetRecord> {
  const splitter = new RecordSplitter();
  for await (const chunk of source.chunks(signal)) {
    for (const text of splitter.push(chunk)) yield valid(text);
  }
  for (const text of splitter.end()) yield valid(text);
}

function valid(text: Parameters<typeof checkRecord>[0]): NewPetRecord {
  const r = checkRecord(text);
  // The input changed between the two passes (someone wrote to the file meanwhile).
  if (isProblem(r)) throw new UsageError(`line ${r.line} changed after it was checked: ${r.message}`);
  return r;
}

function describeCause(err: unknown): string {
  // The server's text, escaped here: it must not start a line of its own in the account.
  if (err instanceof ApiError) return describeApiError(err);
  return err instanceof Error ? err.message : String(err);
}

/**
 * Saves the records not created and throws the account as an error with the exit code of
 * what stopped the run.
 */
async function report(ctx: Context, source: RecordSource, account: BulkAccount, failure: unknown): Promise<never> {
  const count = account.notCreatedCount;
  if (count > 0) {
    const saving: { file?: StreamedFile } = {};
    // A large input may take longer to copy than the second a signal leaves: the account is
    // printed all the same, saying the records were not saved.
    ctx.ifCutShort(() => {
      saving.file?.discardNow();
      account.saved = { error: ENDED_BEFORE_SAVED, count };
      return accountError(ctx, account, failure);
    });
    try {
      account.saved = { file: await saveRemaining(ctx, source, account.firstNotCreated, saving), count };
    } catch (err) {
      account.saved = { error: err instanceof CliError ? err.message : describeFileError(err), count };
    }
    ctx.ifCutShort(undefined);
  }
  throw accountError(ctx, account, failure);
}

/** The account as the error a stopped run ends with, exit code and code from what stopped it. */
function accountError(ctx: Context, account: BulkAccount, failure: unknown): CliError {
  const stop = account.stop as StopPoint;
  const count = account.notCreatedCount;
  const interrupted = failure instanceof InterruptedError || ctx.signal.aborted;
  const at = `stopped at record ${stop.index + 1} of ${account.total} (line ${stop.line})`;
  const what =
    stop.kind === 'none'
      ? stop.index === 0
        ? `stopped before the first of ${account.total} records`
        : `stopped after record ${stop.index} of ${account.total}`
      : stop.kind === 'failed'
        ? `${at}, not created`
        : `${at}, which may have been created`;
  const stoppedBy = interrupted ? InterruptedError.from(ctx.signal) : failure instanceof CliError ? failure : undefined;
  const jsonErrors = ctx.output === 'json' || ctx.output === 'ndjson';
  const summary = `${what}: ${stop.cause}`;
  const saved =
    account.saved === undefined
      ? ''
      : 'file' in account.saved
        ? `; saved to ${account.saved.file}`
        : `; not saved: ${account.saved.error}`;
  return new CliError(
    jsonErrors ? `${summary}; ${account.createdTotal} created; ${count} not created${saved}` : summary,
    {
      exitCode: stoppedBy?.exitCode ?? ExitCode.failure,
      code: stoppedBy?.code ?? 'internal',
      status: stoppedBy?.status ?? 0,
      hint: account.lines((words) => ctx.suggest(words)).join('\n'),
      cause: failure,
      details: account.details(),
    },
  );
}

/**
 * Writes the valid records from index `from` on (NDJSON, mode 0600, through a temporary file
 * renamed into place) beside the input as `FILE.remaining.ndjson`, or in the temporary
 * directory for stdin or when the input's folder cannot be written. Returns the path.
 */
async function saveRemaining(
  ctx: Context,
  source: RecordSource,
  from: number,
  saving: { file?: StreamedFile },
): Promise<string> {
  const stamp = `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${process.pid}`;
  const path = await import('node:path');
  const fallback = path.join(
    tempDirectory(ctx.env),
    `petstore-remaining-${stamp}-${Math.random().toString(36).slice(2, 8)}.ndjson`,
  );
  const targets = source.file === '-' ? [fallback] : [`${source.file}.remaining.ndjson`, fallback];
  let lastErr: unknown;
  for (const target of targets) {
    const file = streamToFile(target);
    saving.file = file;
    try {
      let index = 0;
      const splitter = new RecordSplitter();
      // The records were all checked before the first was sent, so each is copied as it was
      // written (one line; the line breaks of a multi-line array element are white space)
      // instead of being parsed again, one write per chunk read: after a signal, this must
      // finish within the second.
      const copy = async (texts: RecordText[]): Promise<void> => {
        let out = '';
        for (const record of texts) if (index++ >= from) out += `${record.text.replace(/[\r\n]+/g, ' ')}\n`;
        if (out !== '') await file.write(out);
      };
      // Read again without the run's signal: the account must be saved even after Ctrl-C.
      for await (const chunk of source.chunks(new AbortController().signal)) await copy(splitter.push(chunk));
      await copy(splitter.end());
      await file.commit();
      return target;
    } catch (err) {
      lastErr = err;
      await file.discard();
    }
  }
  throw lastErr;
}

/**
 * `pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record of a JSON
 * array or NDJSON, all checked before the first is sent, created in order and printed as
 * they are created. On the first failure it stops, reports what was created, and saves the
 * records not yet created to a file for a re-run (cli-contract.md "Commands").
 */
import type { NewPetRecord } from '../../api/records.js';
import type { Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import {
  ApiError,
  AuthError,
  CliError,
  describeFileError,
  ExitCode,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  TlsError,
  UsageError,
} from '../../errors.js';
import { findErrorCode, NOT_SENT_CODES } from '../../http/retry.js';
import { quote } from '../../input.js';
import { RecordStream } from '../../render/output.js';
import { renderNdjson } from '../../render/pets.js';

/** What happened to one record whose `createPet` failed. */
export type FailureKind = 'not_created' | 'unknown';

/**
 * Decides whether a failed `createPet` surely did not create the pet. The server answering
 * with an error status means it did not; a connection that was never made (NOT_SENT_CODES)
 * means nothing was sent. A timeout, a reset connection, an interruption, or a success
 * status with a broken body leave it unknown: the POST may have reached the server
 * (cli-contract.md "Network behaviour").
 */
export function classifyCreateFailure(err: unknown): FailureKind {
  // A TLS handshake that failed sent nothing either.
  if (err instanceof ApiError || err instanceof AuthError || err instanceof TlsError) return 'not_created';
  if (err instanceof InvalidResponseError) return err.status >= 400 ? 'not_created' : 'unknown';
  if (err instanceof NetworkError)
    return findErrorCode(err.cause, NOT_SENT_CODES) !== undefined ? 'not_created' : 'unknown';
  return 'unknown';
}

/** The records created, and the first failure, if any. */
interface SendResult {
  created: { line: number; id: Pet['id'] }[];
  failure: { index: number; err: unknown } | undefined;
}

/**
 * Creates every record of `file` in order, printing each created pet (ndjson and tsv
 * lines at once; json array and table at the end). Nothing is sent unless every record
 * is valid. On the first failure: stops, writes the records surely not created to
 * `<file>.remaining.ndjson` (for stdin: a file in the temp dir), reports on stderr, and
 * fails with the failure's exit code. A record that may have been created (timeout,
 * reset, interruption) is reported as unknown and left out of that file.
 * @throws UsageError (exit 2, nothing sent) for unreadable input or invalid records;
 * CliError with the failure's exit code otherwise.
 */
export async function runCreateFromFile(ctx: Context, file: string): Promise<number> {
  const records = await readRecords(ctx, file);
  // --timeout bounds each record's request: a long file must not run into one deadline.
  const { client } = await ctx.connect({ deadlinePer: 'request' });
  const out = new RecordStream(ctx.io, ctx.output);
  const deprecation = new DeprecationReporter((m) => ctx.warn(m), ctx.now);
  const result: SendResult = { created: [], failure: undefined };
  try {
    for (const [index, record] of records.entries()) {
      let pet: Pet;
      try {
        const res = await client.createPet(record.pet);
        deprecation.observeAndFlush(res.headers, 'createPet (POST /pets)');
        pet = res.data;
      } catch (err) {
        result.failure = { index, err };
        break;
      }
      result.created.push({ line: record.line, id: pet.id });
      await out.push([pet]);
    }
  } finally {
    await out.end();
  }
  if (result.failure === undefined) return ExitCode.ok;
  return reportFailure(ctx, file, records, result.created, result.failure);
}

/**
 * Reads and checks every record of `file`.
 * @throws UsageError (exit 2, nothing sent) for unreadable input or any invalid record,
 * listing every problem with its line.
 */
async function readRecords(ctx: Context, file: string): Promise<NewPetRecord[]> {
  const { readNewPetRecords } = await import('../../api/records.js');
  const result = readNewPetRecords(await readSource(ctx, file));
  if (result.ok) return result.records;
  const list = result.problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n');
  throw new UsageError(
    `--from-file ${file === '-' ? 'stdin' : quote(file)}: ${result.problems.length} invalid record${result.problems.length === 1 ? '' : 's'}; nothing was sent\n${list}`,
    'Each record is a NewPet: {"name": string, "categoryId": int64, "status"?: "available"|"pending"|"sold"}.',
  );
}

/** Reads `--from-file` text: a file, or stdin for `-`. */
async function readSource(ctx: Context, file: string): Promise<string> {
  if (file === '-') {
    if (ctx.io.stdinIsTTY) {
      throw new UsageError(
        '--from-file -: stdin is a terminal; pipe the records in',
        'Example: petstore pets create --from-file - < pets.ndjson',
      );
    }
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString('utf8');
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --from-file ${quote(file)}: ${describeFileError(err)}`);
  }
}

/** "lines 4, 5, 6" / "line 4". */
function lines(rs: readonly { line: number }[]): string {
  return rs.length === 1 ? `line ${rs[0]?.line}` : `lines ${rs.map((r) => r.line).join(', ')}`;
}

/** Where the records not yet created go: beside the input, or in the temp dir for stdin. */
async function writeRemaining(file: string, records: readonly NewPetRecord[]): Promise<string> {
  const [writeFileAtomic, os, path] = await Promise.all([
    import('write-file-atomic'),
    import('node:os'),
    import('node:path'),
  ]);
  const text = records.map((r) => renderNdjson(r.pet)).join('');
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const fallback = path.join(os.tmpdir(), `petstore-remaining-${stamp}-${process.pid}.ndjson`);
  const targets = file === '-' ? [fallback] : [`${file}.remaining.ndjson`, fallback];
  let lastErr: unknown;
  for (const target of targets) {
    try {
      // Atomic (temp file + rename) and private: the records may be business data.
      await writeFileAtomic.default(target, text, { mode: 0o600 });
      return target;
    } catch (err) {
      lastErr = err;
    }
  }
  throw lastErr;
}

/**
 * Saves the records surely not created and reports the account on stderr.
 * @throws CliError with the failure's exit code (InterruptedError after Ctrl-C).
 */
async function reportFailure(
  ctx: Context,
  file: string,
  records: readonly NewPetRecord[],
  created: SendResult['created'],
  { index, err }: NonNullable<SendResult['failure']>,
): Promise<never> {
  const failed = records[index] as NewPetRecord;
  const kind = classifyCreateFailure(err);
  const remaining = kind === 'not_created' ? records.slice(index) : records.slice(index + 1);
  let savedTo: string | undefined;
  let saveError: string | undefined;
  if (remaining.length > 0) {
    try {
      savedTo = await writeRemaining(file, remaining);
    } catch (e) {
      saveError = describeFileError(e);
    }
  }
  const cause =
    err instanceof ApiError
      ? `${err.message} (${err.code}, HTTP ${err.status})`
      : err instanceof Error
        ? err.message
        : String(err);
  const position = `record ${index + 1} of ${records.length} (line ${failed.line})`;
  const summary =
    kind === 'not_created'
      ? `stopped at ${position}, not created: ${cause}`
      : `stopped at ${position}, which may have been created: ${cause}`;
  const detail = [
    created.length === 0
      ? 'created: none'
      : `created (${created.length}): ${created.map((c) => `line ${c.line} → id ${String(c.id)}`).join(', ')}`,
  ];
  if (kind === 'unknown') {
    detail.push(
      `unknown (1): line ${failed.line} — the request may have reached the server and created the pet; it is not retried and not in the remaining file. Check with \`petstore pets list\` before creating it again.`,
    );
  }
  detail.push(
    remaining.length === 0
      ? 'not created: none'
      : savedTo !== undefined
        ? `not created (${remaining.length}): ${lines(remaining)} — saved to ${savedTo}`
        : `not created (${remaining.length}): ${lines(remaining)} — could not save them (${saveError ?? 'unknown error'})`,
  );
  const rerun =
    savedTo !== undefined
      ? `Fix the cause, then run: petstore pets create --from-file ${shellQuote(savedTo)}`
      : undefined;
  if (err instanceof InterruptedError || ctx.signal.aborted) {
    // cli.ts reports an interruption without a message, so the account is written here.
    ctx.io.stderr.write(`${summary}\n${detail.join('\n')}\n${rerun !== undefined ? `${rerun}\n` : ''}`);
    throw new InterruptedError();
  }
  const jsonErrors = ctx.globals.output === 'json' || ctx.globals.output === 'ndjson';
  const message = jsonErrors
    ? `${summary}; ${created.length} created; ${remaining.length} not created${savedTo !== undefined ? ` (saved to ${savedTo})` : ''}${kind === 'unknown' ? `; line ${failed.line} unknown: may have been created` : ''}`
    : summary;
  throw new CliError(message, {
    exitCode: err instanceof CliError ? err.exitCode : ExitCode.failure,
    code: err instanceof CliError ? err.code : 'internal',
    status: err instanceof CliError ? err.status : 0,
    hint: [...detail, ...(rerun !== undefined ? [rerun] : [])].join('\n'),
    cause: err,
  });
}

/** Quotes a path for a POSIX shell when it needs it. */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

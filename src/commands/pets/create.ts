/**
 * `petstore pets create --name NAME --category-id ID [--status S]`: `createPet`
 * (spec §4.2). Prints the created pet, including its `id`.
 *
 * `petstore pets create --from-file FILE` (`-` = stdin): one `createPet` per NewPet record
 * of a JSON array or NDJSON, all checked before the first is sent, created in order and
 * printed as they are created. On the first failure it stops, reports what was created,
 * and saves the records not yet created to a file for a re-run (cli-contract.md "Commands").
 */
import type { NewPetRecord } from '../../api/records.js';
import type { NewPet, Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter } from '../../deprecation.js';
import {
  ApiError,
  CliError,
  ExitCode,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  UsageError,
} from '../../errors.js';
import { parseInt64, parseStatus, quote } from '../../input.js';
import { printPets } from './list.js';

/** Typed options of `pets create`: one pet from flags, or a file of records. */
export type CreateOptions = { pet: NewPet; fromFile?: undefined } | { fromFile: string; pet?: undefined };

/** An int64 as the JSON number type of the schemas: number when safe, bigint beyond 2^53. */
export function toJsonInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/**
 * Turns commander's strings into a NewPet, or a `--from-file` source.
 * @throws UsageError when `--name` or `--category-id` is missing, a value is invalid, or
 * `--from-file` is combined with `--name`, `--category-id` or `--status`.
 */
export function parseCreateOptions(opts: Record<string, unknown>): CreateOptions {
  if (opts.fromFile !== undefined) {
    const clash = (['name', 'categoryId', 'status'] as const).filter((k) => opts[k] !== undefined);
    if (clash.length > 0) {
      const flags = clash.map((k) => (k === 'categoryId' ? '--category-id' : `--${k}`)).join(', ');
      throw new UsageError(
        `--from-file cannot be combined with ${flags}: the records in the file carry their own fields`,
        'Example: petstore pets create --from-file pets.ndjson',
      );
    }
    const file = String(opts.fromFile);
    if (file === '') throw new UsageError('invalid --from-file "": give a file path, or - for stdin');
    return { fromFile: file };
  }
  if (typeof opts.name !== 'string') {
    throw new UsageError(
      'missing --name: every pet needs a name',
      'Example: petstore pets create --name Rex --category-id 1',
    );
  }
  if (typeof opts.categoryId !== 'string') {
    throw new UsageError(
      'missing --category-id: every pet belongs to a category (an int64 id)',
      'Example: petstore pets create --name Rex --category-id 1',
    );
  }
  const pet: NewPet = { name: opts.name, categoryId: toJsonInt(parseInt64(opts.categoryId, '--category-id')) };
  if (typeof opts.status === 'string') pet.status = parseStatus(opts.status);
  return { pet };
}

/** Prints one pet: an object in json, one line in ndjson/tsv, a one-row table on a TTY. */
export async function printPet(ctx: Context, pet: Pet): Promise<void> {
  if (ctx.renderMode() === 'json') {
    const { renderJson } = await import('../../render/pets.js');
    ctx.io.stdout.write(renderJson(pet));
    return;
  }
  await printPets(ctx, [pet]);
}

/**
 * Creates one pet. Sent once: a POST is never repeated (cli-contract.md "Network behaviour").
 * @throws UsageError (nothing sent), ApiError (400 → exit 6), NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runCreate(ctx: Context, options: CreateOptions): Promise<number> {
  if (options.fromFile !== undefined) return runCreateFromFile(ctx, options.fromFile);
  const { client } = await ctx.connect();
  const { data, headers } = await client.createPet(options.pet);
  new DeprecationReporter((m) => ctx.warn(m)).observeAndFlush(headers, 'createPet (POST /pets)');
  await printPet(ctx, data);
  return 0;
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
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
    throw new UsageError(`cannot read --from-file ${quote(file)}: ${why}`);
  }
}

/** What happened to one record whose `createPet` failed. */
export type FailureKind = 'not_created' | 'unknown';

/** Network failures that happen before a request is written: the POST cannot have reached the server. */
const BEFORE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Decides whether a failed `createPet` surely did not create the pet. The server answering
 * with an error status means it did not; a refused connection means nothing was sent.
 * A timeout, a reset connection, an interruption, or a success status with a broken body
 * leave it unknown: the POST may have reached the server (cli-contract.md "Network behaviour").
 */
export function classifyCreateFailure(err: unknown, errorCode: (e: unknown) => string | undefined): FailureKind {
  if (err instanceof ApiError) return 'not_created';
  if (err instanceof InvalidResponseError) return err.status >= 400 ? 'not_created' : 'unknown';
  if (err instanceof NetworkError) {
    const code = errorCode(err.cause);
    return code !== undefined && BEFORE_SEND_CODES.has(code) ? 'not_created' : 'unknown';
  }
  if (err instanceof CliError && err.exitCode === ExitCode.auth) return 'not_created';
  return 'unknown';
}

/** "lines 4, 5, 6" / "line 4". */
function lines(rs: readonly { line: number }[]): string {
  return rs.length === 1 ? `line ${rs[0]?.line}` : `lines ${rs.map((r) => r.line).join(', ')}`;
}

/** Where the records not yet created go: beside the input, or in the temp dir for stdin. */
async function writeRemaining(file: string, records: readonly NewPetRecord[]): Promise<string> {
  const [{ default: writeFileAtomic }, { tmpdir }, { join }, { renderNdjson }] = await Promise.all([
    import('write-file-atomic'),
    import('node:os'),
    import('node:path'),
    import('../../render/pets.js'),
  ]);
  const text = records.map((r) => renderNdjson(r.pet)).join('');
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const fallback = join(tmpdir(), `petstore-remaining-${stamp}-${process.pid}.ndjson`);
  const targets = file === '-' ? [fallback] : [`${file}.remaining.ndjson`, fallback];
  let lastErr: unknown;
  for (const target of targets) {
    try {
      // Atomic (temp file + rename) and private: the records may be business data.
      await writeFileAtomic(target, text, { mode: 0o600 });
      return target;
    } catch (err) {
      lastErr = err;
    }
  }
  throw lastErr;
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
  const { readNewPetRecords } = await import('../../api/records.js');
  const text = await readSource(ctx, file);
  const result = readNewPetRecords(text);
  const label = file === '-' ? 'stdin' : quote(file);
  if (!result.ok) {
    const list = result.problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n');
    throw new UsageError(
      `--from-file ${label}: ${result.problems.length} invalid record${result.problems.length === 1 ? '' : 's'}; nothing was sent\n${list}`,
      'Each record is a NewPet: {"name": string, "categoryId": int64, "status"?: "available"|"pending"|"sold"}.',
    );
  }
  const records = result.records;
  const { client } = await ctx.connect();
  const [{ RecordStream }, { findErrorCode }] = await Promise.all([
    import('../../render/stream.js'),
    import('../../http/transport.js'),
  ]);
  const out = new RecordStream(ctx);
  const deprecation = new DeprecationReporter((m) => ctx.warn(m));
  const created: { line: number; id: Pet['id'] }[] = [];
  let failure: { index: number; err: unknown } | undefined;
  try {
    for (let i = 0; i < records.length; i++) {
      const record = records[i] as NewPetRecord;
      let pet: Pet;
      try {
        const res = await client.createPet(record.pet);
        deprecation.observeAndFlush(res.headers, 'createPet (POST /pets)');
        pet = res.data;
      } catch (err) {
        failure = { index: i, err };
        break;
      }
      created.push({ line: record.line, id: pet.id });
      await out.push([pet]);
    }
  } finally {
    await out.end();
  }
  if (failure === undefined) return 0;

  const { index, err } = failure;
  const failed = records[index] as NewPetRecord;
  const kind = classifyCreateFailure(err, findErrorCode);
  const remaining = kind === 'not_created' ? records.slice(index) : records.slice(index + 1);
  let savedTo: string | undefined;
  let saveError: string | undefined;
  if (remaining.length > 0) {
    try {
      savedTo = await writeRemaining(file, remaining);
    } catch (e) {
      saveError = (e as Error).message;
    }
  }
  const cause =
    err instanceof ApiError
      ? `${err.message} (${err.code}, HTTP ${err.status})`
      : ((err as Error)?.message ?? String(err));
  const position = `record ${index + 1} of ${records.length} (line ${failed.line})`;
  const summary =
    kind === 'not_created'
      ? `stopped at ${position}, not created: ${cause}`
      : `stopped at ${position}, which may have been created: ${cause}`;
  const detail: string[] = [];
  detail.push(
    created.length === 0
      ? 'created: none'
      : `created (${created.length}): ${created.map((c) => `line ${c.line} → id ${String(c.id)}`).join(', ')}`,
  );
  if (kind === 'unknown') {
    detail.push(
      `unknown (1): line ${failed.line} — the request may have reached the server and created the pet; it is not retried and not in the remaining file. Check with \`petstore pets list\` before creating it again.`,
    );
  }
  if (remaining.length > 0) {
    detail.push(
      savedTo !== undefined
        ? `not created (${remaining.length}): ${lines(remaining)} — saved to ${savedTo}`
        : `not created (${remaining.length}): ${lines(remaining)} — could not save them (${saveError ?? 'unknown error'})`,
    );
  } else {
    detail.push('not created: none');
  }
  const rerun =
    savedTo !== undefined
      ? `Fix the cause, then run: petstore pets create --from-file ${shellQuote(savedTo)}`
      : undefined;
  const jsonErrors = ctx.globals.output === 'json' || ctx.globals.output === 'ndjson';
  if (err instanceof InterruptedError || ctx.signal.aborted) {
    // cli.ts reports an interruption without a message, so the account is written here.
    ctx.io.stderr.write(`${summary}\n${detail.join('\n')}\n${rerun !== undefined ? `${rerun}\n` : ''}`);
    throw new InterruptedError();
  }
  const exitCode = err instanceof CliError ? err.exitCode : ExitCode.failure;
  const code = err instanceof CliError ? err.code : 'internal';
  const status = err instanceof CliError ? err.status : 0;
  const message = jsonErrors
    ? `${summary}; ${created.length} created; ${remaining.length} not created${savedTo !== undefined ? ` (saved to ${savedTo})` : ''}${kind === 'unknown' ? `; line ${failed.line} unknown: may have been created` : ''}`
    : summary;
  throw new CliError(message, {
    exitCode,
    code,
    status,
    hint: [...detail, ...(rerun !== undefined ? [rerun] : [])].join('\n'),
    cause: err,
  });
}

/** Quotes a path for a POSIX shell when it needs it. */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, opts: Record<string, unknown>): Promise<number> {
  return runCreate(ctx, parseCreateOptions(opts));
}

/**
 * The input of `pets create --from-file`: a file, or stdin (`-`), read in chunks of text
 * twice — once to check every record, once to send them — so memory does not grow with the
 * input. stdin cannot be read twice, so the first pass copies it to a private temporary file
 * (mode 0600, removed when the command ends) that the second pass reads. Every read stops
 * at once when the run is interrupted, even while waiting for a writer (a FIFO, a slow pipe).
 */
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirectory } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { describeFileError, UsageError } from '../../errors.js';
import { quote } from '../../input.js';
import { abortable } from '../../io.js';

/** Where the records come from. */
export interface RecordSource {
  /** The `--from-file` value as given (`-` for stdin). */
  readonly file: string;
  /** For messages: the quoted path, or `stdin`. */
  readonly label: string;
  /**
   * The text in chunks, from the start; may be called again once the previous pass ended.
   * Reading stops when `signal` (default: the run's) aborts.
   */
  chunks(signal?: AbortSignal): AsyncIterable<string>;
}

/**
 * Opens `file`, or stdin for `-`. A regular file is read again for each pass; anything else
 * (stdin, a pipe such as `<(...)` or `/dev/stdin`, a FIFO, a device) can be read only once,
 * so its first pass also copies it to a private spool file that later passes read. The
 * spool is removed when the command ends.
 * @throws UsageError when stdin is a terminal (the records must be piped in), or the file
 * cannot be found or read.
 */
export async function openSource(ctx: Context, file: string): Promise<RecordSource> {
  if (file === '-' && ctx.io.stdinIsTTY) {
    throw new UsageError(
      '--from-file -: stdin is a terminal; pipe the records in',
      'Example: petstore pets create --from-file - < pets.ndjson',
    );
  }
  const label = file === '-' ? 'stdin' : quote(file);
  if (file !== '-') {
    let regular: boolean;
    try {
      regular = (await stat(file)).isFile();
    } catch (err) {
      throw new UsageError(`cannot read --from-file ${label}: ${describeFileError(err)}`);
    }
    if (regular) return { file, label, chunks: (signal = ctx.signal) => abortable(readFile(file, signal), signal) };
  }
  const spool = join(tempDirectory(ctx.env), `petstore-input-${process.pid}-${Date.now().toString(36)}.tmp`);
  ctx.defer(() => rm(spool, { force: true }));
  let passes = 0;
  const once = (signal: AbortSignal): AsyncIterable<string> => (file === '-' ? stdinText(ctx) : readFile(file, signal));
  return {
    file,
    label,
    chunks: (signal = ctx.signal) =>
      abortable(passes++ === 0 ? tee(once(signal), spool) : readFile(spool, signal), signal),
  };
}

/** stdin's text in chunks. */
async function* stdinText(ctx: Context): AsyncGenerator<string> {
  ctx.io.stdin.setEncoding('utf8');
  for await (const chunk of ctx.io.stdin) yield chunk as string;
}

/** A file's text in chunks. @throws UsageError naming the file and the problem. */
async function* readFile(file: string, signal: AbortSignal): AsyncGenerator<string> {
  const release = await unblockFifoOnAbort(file, signal);
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) yield chunk as string;
  } catch (err) {
    throw new UsageError(`cannot read --from-file ${quote(file)}: ${describeFileError(err)}`);
  } finally {
    release();
    stream.destroy();
  }
}

/**
 * Opening a FIFO for reading waits, in Node's thread pool, until a writer opens it; an
 * abandoned wait would also keep the process from exiting. For a FIFO, abort opens its
 * writing end without blocking and closes it again, which ends the wait (the read sees an
 * empty end). Returns the function that removes the abort listener.
 */
async function unblockFifoOnAbort(file: string, signal: AbortSignal): Promise<() => void> {
  const { open, stat, constants } = await import('node:fs/promises');
  const isFifo = await stat(file).then(
    (s) => s.isFIFO(),
    () => false,
  );
  if (!isFifo) return () => undefined;
  const unblock = (): void => {
    open(file, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (handle) => void handle.close(),
      () => undefined,
    );
  };
  signal.addEventListener('abort', unblock, { once: true });
  return () => {
    signal.removeEventListener('abort', unblock);
  };
}

/** The chunks of `source`, each also appended to `spool` (mode 0600) for the next passes. */
async function* tee(source: AsyncIterable<string>, spool: string): AsyncGenerator<string> {
  const out = createWriteStream(spool, { mode: 0o600, flags: 'wx' });
  let failed: Error | undefined;
  out.on('error', (err) => (failed ??= err));
  const check = (): void => {
    if (failed !== undefined) {
      throw new UsageError(`cannot keep a copy of the input in ${spool}: ${describeFileError(failed)}`);
    }
  };
  // Settles on 'drain' or 'finish', or on the stream's error.
  const settled = (event: 'drain' | 'finish'): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        out.off(event, done);
        out.off('error', done);
        resolve();
      };
      out.on(event, done);
      out.on('error', done);
    });
  try {
    for await (const text of source) {
      if (!out.write(text)) await settled('drain');
      check();
      yield text;
    }
  } finally {
    const finished = settled('finish');
    out.end();
    await finished;
  }
  check();
}

/** A private file written as a stream and moved into place when complete. */
export interface StreamedFile {
  write(text: string): Promise<void>;
  /** Finishes and renames it to its final name. */
  commit(): Promise<void>;
  /** Removes what was written. */
  discard(): Promise<void>;
  /** Removes what was written, synchronously (for a process about to exit). */
  discardNow(): void;
}

/**
 * Starts writing `target` through a temporary file beside it (mode 0600), so a reader never
 * sees half of it and an interrupted write leaves none.
 */
export function streamToFile(target: string): StreamedFile {
  const temp = `${target}.${process.pid}.tmp`;
  const out: WriteStream = createWriteStream(temp, { mode: 0o600 });
  let failed: Error | undefined;
  out.on('error', (err) => (failed ??= err));
  const check = (): void => {
    if (failed !== undefined) throw failed;
  };
  return {
    write: async (text) => {
      check();
      if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
      check();
    },
    commit: async () => {
      await new Promise<void>((resolve, reject) => {
        out.end((err?: Error | null) => (err ? reject(err) : resolve()));
      });
      check();
      const { rename } = await import('node:fs/promises');
      await rename(temp, target);
    },
    discard: async () => {
      out.destroy();
      await rm(temp, { force: true });
    },
    discardNow: () => {
      out.destroy();
      rmSync(temp, { force: true });
    },
  };
}

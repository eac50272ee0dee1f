/**
 * The input of `pets create --from-file`, read once per pass (check, send, save what
 * remains) as chunks of bytes, so memory does not grow with it.
 *
 * A regular file is opened once and read again through that one file handle, so a file
 * renamed over it meanwhile is never read instead; a later pass stops with
 * InputChangedError before it hands over bytes read after the file changed (its size or
 * modification time differ from the check's). Anything that can be read only once (stdin
 * `-`, a pipe such as `<(...)` or `/dev/stdin`, a FIFO, a device) is copied by its first
 * pass to a private spool file that later passes read: created exclusively (O_EXCL, no
 * symlink followed, mode 0600) under an unpredictable name in the temp directory, and
 * removed at once, so nothing of it outlives the process, however it ends.
 */
import { randomBytes } from 'node:crypto';
import { close, constants, openSync, read, unlinkSync, write } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  ConfigError,
  CliError,
  describeFileError,
  ExitCode,
  InterruptedError,
  UsageError,
} from '../../../base/errors.js';
import { quote } from '../../../base/flag-values.js';
import { bytesOf, openOnceReadable } from '../../../fs/read-input.js';
import type { Shutdown } from '../../../base/shutdown.js';
import { formatCount } from '../../../text/count.js';

/** Bytes read per chunk. */
const CHUNK_BYTES = 64 * 1024;

/** The input changed after it was checked: what is read now was not checked (exit 1). */
export class InputChangedError extends CliError {
  constructor(label: string, what: string) {
    super(`${label} changed after it was checked (${what}); records read after that are not sent`, {
      exitCode: ExitCode.failure,
      code: 'input_changed',
    });
    this.name = 'InputChangedError';
  }
}

/** How the input is read. */
export interface SourceOptions {
  /** stdin, and whether it is a terminal (`Io`). */
  io: { stdin: Readable; stdinIsTTY: boolean };
  /** The directory for the spool, and the words that say where it came from ("TMPDIR"). */
  tempDir: { path: string; from: string };
  /** The run's signal: no input is handed over once it aborted (a FIFO's open waits for nothing: read-input.ts). */
  signal: AbortSignal;
  /** The shutdown registry: the copy to the spool says there what it is doing. */
  shutdown: Shutdown;
}

/** The input, readable once per pass. */
export interface BulkSource {
  /** For messages: the quoted path, or `stdin`. */
  readonly label: string;
  /**
   * A regular file's real path (symlinks resolved: beside it a remaining file may go),
   * device and inode (to recognise it later); undefined for input read only once.
   */
  readonly file: { path: string; dev: number; ino: number } | undefined;
  /** The name a remaining file starts with: the file's name, or `stdin`. */
  readonly stem: string;
  /**
   * The input's bytes from the start. The first pass reads the input itself (and, for one
   * that can be read only once, copies it to the spool); it stops at once when `signal`
   * aborts, even while a read is pending. Later passes read the file again, or the spool.
   * @throws UsageError when the input cannot be read; ConfigError when the spool cannot be
   * written; InputChangedError (later passes of a regular file); InterruptedError.
   */
  pass(signal: AbortSignal): AsyncIterable<Buffer>;
  /**
   * How a regular file differs now from what the check saw ("it was modified", "its size
   * went from 10 to 12 bytes"), or undefined when it does not (and for input read only once,
   * whose copy nothing else writes). A pass that ended without an error handed on only bytes
   * read before any change: a change this reports came after them.
   */
  changedSinceCheck(): Promise<string | undefined>;
  /** Closes the file handles (the spool's space is freed then). */
  close(): Promise<void>;
}

/**
 * Opens `file` (the `--from-file` value), or stdin for `-`.
 * @throws UsageError when stdin is a terminal (the records must be piped in), or the file
 * cannot be found or read; InterruptedError when `opts.signal` aborted while it was opened.
 */
export async function openSource(file: string, opts: SourceOptions): Promise<BulkSource> {
  if (file === '-' && opts.io.stdinIsTTY) {
    throw new UsageError(
      '--from-file -: stdin is a terminal; pipe the records in',
      'Example: petstore pets create --from-file - < pets.ndjson',
    );
  }
  const label = file === '-' ? 'stdin' : quote(file);
  const unreadable = (err: unknown): UsageError =>
    new UsageError(`cannot read --from-file ${label}: ${describeFileError(err)}`);
  const info =
    file === '-'
      ? undefined
      : await stat(file).catch((err: unknown) => {
          throw unreadable(err);
        });
  if (info?.isDirectory() === true) throw unreadable(Object.assign(new Error('EISDIR'), { code: 'EISDIR' }));
  if (info?.isFile() === true) return openRegular(file, label, unreadable);
  return openOnce(file, opts, label, unreadable, info?.isFIFO() === true);
}

/** A regular file: one handle, read again for each pass, watched for changes. */
async function openRegular(file: string, label: string, unreadable: (err: unknown) => UsageError): Promise<BulkSource> {
  const [handle, real] = await Promise.all([open(file, 'r'), realpath(file)]).catch((err: unknown) => {
    throw unreadable(err);
  });
  const first = await handle.stat({ bigint: true });
  const seen = { size: first.size, mtimeNs: first.mtimeNs };
  let passes = 0;
  const changed = async (): Promise<string | undefined> => {
    const now = await handle.stat({ bigint: true });
    if (now.size !== seen.size) return `its size went from ${formatCount(seen.size)} to ${formatCount(now.size)} bytes`;
    return now.mtimeNs === seen.mtimeNs ? undefined : 'it was modified';
  };
  return {
    label,
    file: { path: real, dev: Number(first.dev), ino: Number(first.ino) },
    stem: basename(real),
    pass: (signal) => watched(readAll(handle, signal, unreadable), changed, passes++ === 0, label, seen.size),
    changedSinceCheck: changed,
    close: () => handle.close(),
  };
}

/**
 * `chunks`, with the file compared to what the check saw before each chunk is handed on
 * (the chunk was read before that comparison, so a chunk handed on was read before any
 * change): the check itself fails at its end if the file changed while it was read
 * (nothing was sent yet, exit 2); a later pass fails before the first chunk read after a
 * change, or at its end when it read fewer bytes than the check (`size`). A change after a
 * later pass read the whole file is no failure: every byte it handed on was read before it
 * (`BulkSource.changedSinceCheck` tells of it).
 */
async function* watched(
  chunks: AsyncIterable<Buffer>,
  changed: () => Promise<string | undefined>,
  checking: boolean,
  label: string,
  size: bigint,
): AsyncGenerator<Buffer> {
  let read = 0n;
  for await (const chunk of chunks) {
    const what = checking ? undefined : await changed();
    if (what !== undefined) throw new InputChangedError(label, what);
    read += BigInt(chunk.length);
    yield chunk;
  }
  if (checking) {
    const what = await changed();
    if (what !== undefined) {
      throw new UsageError(`--from-file ${label} changed while it was checked (${what}); nothing was sent`);
    }
  } else if (read !== size) {
    throw new InputChangedError(
      label,
      (await changed()) ?? `${formatCount(read)} of its ${formatCount(size)} bytes could be read`,
    );
  }
}

/** What `readAll` reads from: a FileHandle, or the spool's descriptor (`fdFile`). */
interface PositionalFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** The whole content of `handle` from its start, in chunks, until `signal` aborts. */
async function* readAll(
  handle: PositionalFile,
  signal: AbortSignal,
  unreadable: (err: unknown) => UsageError,
): AsyncGenerator<Buffer> {
  for (let position = 0; ;) {
    if (signal.aborted) throw InterruptedError.from(signal);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position).catch((err: unknown) => {
      throw unreadable(err);
    });
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/** Input that can be read only once: the first pass copies it to the spool, later ones read that. */
async function openOnce(
  file: string,
  opts: SourceOptions,
  label: string,
  unreadable: (err: unknown) => UsageError,
  fifo: boolean,
): Promise<BulkSource> {
  const spool = openSpool(opts.tempDir, label, opts.shutdown);
  const input = file === '-' ? opts.io.stdin : await openOnceReadable(file, fifo, opts.signal, unreadable);
  let passes = 0;
  return {
    label,
    file: undefined,
    stem: file === '-' ? 'stdin' : basename(file),
    pass: (signal) =>
      passes++ > 0 ? readAll(spool.handle, signal, unreadable) : spool.copy(bytesOf(input, signal, unreadable)),
    changedSinceCheck: () => Promise.resolve(undefined),
    close: async () => {
      await spool.handle.close();
      if (input !== opts.io.stdin) input.destroy();
    },
  };
}

/** The spool: an unlinked private file, and the copy of the first pass into it. */
function openSpool(
  tempDir: SourceOptions['tempDir'],
  label: string,
  shutdown: Shutdown,
): { handle: ReturnType<typeof fdFile>; copy: (chunks: AsyncIterable<Buffer>) => AsyncGenerator<Buffer> } {
  const cannot = (err: unknown): ConfigError =>
    new ConfigError(
      `cannot keep a copy of ${label} in ${tempDir.path} (${tempDir.from}): ${describeFileError(err)}; nothing was sent`,
      `Input that can be read only once is copied there to be read again (once to check every record, once to send them): point TMPDIR at a writable directory with room for it.`,
    );
  const path = join(tempDir.path, `petstore-input-${randomBytes(12).toString('hex')}`);
  // Created and removed synchronously, between two turns of the event loop: no open is in
  // flight in the thread pool should the process end now (it would create the file after
  // the exit), and the data stays reachable through the descriptor alone, so nothing is
  // left behind whatever ends the process (a signal, a crash, SIGKILL).
  let handle: ReturnType<typeof fdFile>;
  try {
    handle = fdFile(
      openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600),
    );
    unlinkSync(path);
  } catch (err) {
    throw cannot(err);
  }
  async function* copy(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    // A run that stalls now (cli-entry.ts) says so in its internal error.
    const unregister = shutdown.add({ doing: () => `copying ${label} to a temporary file` });
    try {
      let position = 0;
      for await (const chunk of chunks) {
        for (let done = 0; done < chunk.length;) {
          const { bytesWritten } = await handle
            .write(chunk, done, chunk.length - done, position + done)
            .catch((err: unknown) => {
              throw cannot(err);
            });
          done += bytesWritten;
        }
        position += chunk.length;
        yield chunk;
      }
    } finally {
      unregister();
    }
  }
  return { handle, copy };
}

/** A file descriptor with FileHandle's positional `read` and `write`, and `close`. */
function fdFile(fd: number): {
  read: (buffer: Buffer, offset: number, length: number, position: number) => Promise<{ bytesRead: number }>;
  write: (buffer: Buffer, offset: number, length: number, position: number) => Promise<{ bytesWritten: number }>;
  close: () => Promise<void>;
} {
  return {
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) => {
        read(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead })));
      }),
    write: (buffer, offset, length, position) =>
      new Promise((resolve, reject) => {
        write(fd, buffer, offset, length, position, (err, bytesWritten) =>
          err ? reject(err) : resolve({ bytesWritten }),
        );
      }),
    close: () =>
      new Promise((resolve, reject) => {
        close(fd, (err) => (err ? reject(err) : resolve()));
      }),
  };
}

/**
 * Reading the files and streams a user names on the command line (`api --input FILE`,
 * `-F key=@FILE`, `@-` and `--input -` for stdin, `pets create --from-file`), whatever they
 * are: a regular file, a FIFO, a device such as /dev/zero, a pipe.
 *
 * cli-contract.md "Network behaviour": every file or stream petstore reads is read with its
 * byte cap counted while reading, under the command's deadline and abort signal, and a FIFO
 * never blocks an exit. `stat` says nothing of how much a FIFO or a device holds (size 0),
 * so the cap is counted on the bytes themselves.
 *
 * A FIFO is opened without blocking and read on the event loop, as a pipe: no thread of
 * Node's pool ever waits in the kernel for its writer or its next bytes. Such a thread
 * would keep the process from exiting, even through `process.exit` (libuv joins its
 * threads on the way out), and no signal or deadline could end it.
 */
import { constants, open as openFd } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { on } from 'node:events';
import type { Readable } from 'node:stream';
import { InterruptedError, UsageError, describeFileError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';
import { formatCount } from '../text/count.js';

/** Bytes read per chunk from a file or device. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A read stream of a FIFO, device or pipe path (`/dev/stdin`, `<(...)`), opened at once.
 * A FIFO (`fifo`: its `stat` says so) is opened with O_NONBLOCK, which does not wait for a
 * writer, and read as a pipe on the event loop: a read that waits for a writer that never
 * comes, or for bytes it never writes, holds no thread and ends when the stream is
 * destroyed. Until a writer comes and goes the stream neither gives bytes nor ends
 * (Linux reports no hang-up to a reader that never saw a writer), so a writer that comes
 * late is waited for.
 * @throws InterruptedError when `signal` aborted before the stream could be handed over;
 * the UsageError `unreadable` makes of the failure to open it (missing, permission).
 */
export async function openOnceReadable(
  file: string,
  fifo: boolean,
  signal: AbortSignal,
  unreadable: (err: unknown) => UsageError,
): Promise<Readable> {
  let stream: Readable;
  try {
    if (fifo) {
      const fd = await new Promise<number>((resolve, reject) => {
        openFd(file, constants.O_RDONLY | constants.O_NONBLOCK, (err, opened) => (err ? reject(err) : resolve(opened)));
      });
      stream = new Socket({ fd, readable: true, writable: false });
    } else {
      stream = (await open(file, 'r')).createReadStream({ highWaterMark: CHUNK_BYTES });
    }
  } catch (err) {
    throw unreadable(err);
  }
  // The open ran in Node's thread pool: a signal may have come meanwhile.
  if (signal.aborted) {
    stream.destroy();
    throw InterruptedError.from(signal);
  }
  return stream;
}

/**
 * A stream's chunks as bytes (a test's stdin may hand over strings), ending at once when
 * `signal` aborts, even while a read is pending (a pipe or FIFO nobody writes to): its
 * events are taken with `events.on`, which pauses the stream while chunks wait.
 * @throws InterruptedError for the signal's reason once `signal` aborted (SIGINT when the
 * reason names no signal: the caller tells a deadline apart); the UsageError `unreadable`
 * makes of a read error.
 */
export async function* bytesOf(
  input: Readable,
  signal: AbortSignal,
  unreadable: (err: unknown) => UsageError,
): AsyncGenerator<Buffer> {
  try {
    for await (const [chunk] of on(input, 'data', { signal, close: ['end'], highWaterMark: 16 })) {
      yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    }
  } catch (err) {
    if (signal.aborted) throw InterruptedError.from(signal);
    throw unreadable(err);
  }
}

/** What bounds one read (`readBounded`); a `Deadline` (http/deadline.ts) is one. */
export interface ReadBounds {
  /** The most bytes accepted (a request body's cap, MAX_BODY_BYTES: 10 MiB). */
  maxBytes: number;
  /** Aborted on Ctrl-C or SIGTERM (its reason names the signal) or when the deadline passes. */
  signal: AbortSignal;
  /** Aborted when the deadline passes, only: tells a timeout from an interruption. */
  timeoutSignal: AbortSignal;
  /** The deadline (`--timeout`) in ms, for the message. */
  timeoutMs: number;
}

/** A file (a path) or stdin, and how the user named it (`--input`, `-F note=@`). */
export interface NamedInput {
  /** The flag it was given with, as messages start: `--input`, `-F note=@`. */
  what: string;
  /** A path, or `-` for `stdin`. */
  name: string;
  /** stdin, read for `-`. */
  stdin: Readable;
}

/**
 * Reads a file the user named (`-` = stdin) whole, counting its bytes as they come: a
 * regular file larger than `maxBytes` is refused before it is read, anything else (a FIFO,
 * /dev/zero, a pipe) once it gave one byte more. A FIFO with no writer is waited for until
 * `bounds.signal` aborts; stdin is left open (paused), a file is closed.
 * @throws UsageError (exit 2; nothing was sent): `cannot read --input "x": no such file or
 * directory` (also a directory, a permission), `--input "x" is larger than 10485760 bytes`,
 * `timed out reading --input "x" after 1 s` when the deadline passes; InterruptedError
 * (exit 130, 143, ...) when the run is interrupted.
 */
export async function readBounded(input: NamedInput, bounds: ReadBounds): Promise<Buffer> {
  const label = input.name === '-' ? 'stdin' : quote(input.name);
  try {
    return await readWhole(input, label, bounds);
  } catch (err) {
    if (!(err instanceof InterruptedError) || !bounds.timeoutSignal.aborted) throw err;
    throw new UsageError(
      `timed out reading ${input.what} ${label} after ${bounds.timeoutMs / 1000} s (--timeout); nothing was sent`,
      input.name === '-'
        ? 'Give the body on stdin and close it (Ctrl-D on a terminal), or allow more time with --timeout SECONDS.'
        : 'It is read to its end (a FIFO: until its writer closes it): start the writer first, or allow more time with --timeout SECONDS.',
    );
  }
}

/** `readBounded` but for the deadline's message: a deadline that passed is an InterruptedError here. */
async function readWhole(input: NamedInput, label: string, bounds: ReadBounds): Promise<Buffer> {
  const unreadable = (err: unknown): UsageError =>
    new UsageError(`cannot read ${input.what} ${label}: ${describeFileError(err)}`);
  const tooLarge = (): UsageError =>
    new UsageError(`${input.what} ${label} is larger than ${formatCount(bounds.maxBytes)} bytes`);
  const stream =
    input.name === '-' ? input.stdin : await openPath(input.name, bounds.maxBytes, bounds.signal, unreadable, tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of bytesOf(stream, bounds.signal, unreadable)) {
      size += chunk.length;
      if (size > bounds.maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } finally {
    // stdin is the run's (Io's): only paused, so nothing more is taken from it.
    if (stream === input.stdin) stream.pause();
    else stream.destroy();
  }
  return Buffer.concat(chunks, size);
}

/**
 * Opens a path to read: a regular file over `maxBytes` is refused before it is read, a
 * directory as `readFile` would (`it is a directory`).
 */
async function openPath(
  file: string,
  maxBytes: number,
  signal: AbortSignal,
  unreadable: (err: unknown) => UsageError,
  tooLarge: () => UsageError,
): Promise<Readable> {
  const info = await stat(file).catch((err: unknown) => {
    throw unreadable(err);
  });
  if (info.isDirectory()) throw unreadable(Object.assign(new Error('EISDIR'), { code: 'EISDIR' }));
  if (info.isFile() && info.size > maxBytes) throw tooLarge();
  return openOnceReadable(file, info.isFIFO(), signal, unreadable);
}

/**
 * The remaining file of a bulk create: the records not created, one NDJSON line each, for
 * a re-run (cli-contract.md "Bulk create"). It goes beside the input when that is a
 * regular file in a writable directory, else in the current directory; never beside a
 * device or FIFO. It never replaces a file: it takes the first free name of
 * `x.remaining.ndjson`, `x.remaining-2.ndjson`, ... It is written to a private temp file
 * in that directory (created exclusively, no symlink followed, mode 0600, an unpredictable
 * name) and then linked to its name, which fails rather than replace anything that is
 * there, a planted symlink included; the temp file is removed on every path, a forced end
 * of the process included. Its device, inode, size and SHA-256 are recorded as written
 * (`WrittenFile`), and it is deleted later only when the file at its path is proven to be
 * that very file, unchanged (`removeIfWritten`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fdatasync, fstatSync, openSync, rmSync, write } from 'node:fs';
import { copyFile, link, open, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeFileError } from '../../../base/errors.js';
import type { Shutdown } from '../../../base/shutdown.js';
import type { Saved } from './account.js';
import type { IndexedText } from './records.js';

/** Where a remaining file may go, in order, and the name it starts with. */
export interface RemainingPlace {
  /** Directories to try in turn (beside the input, then the current directory). */
  dirs: string[];
  /** `x` of `x.remaining.ndjson`: the input's name, or `stdin`. */
  stem: string;
}

/** A remaining file as written: what a later run recognises it by. */
export interface WrittenFile {
  path: string;
  size: number;
  sha256: string;
  dev: number;
  ino: number;
}

/** Most names tried in one directory (`x.remaining-999.ndjson`). */
const MAX_NAMES = 999;

/**
 * The directories a remaining file may go to: beside `regularPath` (a regular input file's
 * real path), then `cwd`.
 */
export function remainingPlace(regularPath: string | undefined, stem: string, cwd: string): RemainingPlace {
  const beside = regularPath === undefined ? [] : [dirname(regularPath)];
  return { dirs: [...new Set([...beside, cwd])], stem };
}

/**
 * Saves the records that `account` did not create (`isRemaining`, by the input index of
 * each of `texts`) to a remaining file in `place`, and records in the account (`saved`)
 * where they went, or why they could not be saved. `texts` reads
 * the input's records once more (each time it is called), which must go on after Ctrl-C:
 * the account must be saved. `written`, when given, is called with the records written so
 * far after each batch of about 64 KiB (a progress line). Never rejects.
 * @returns the file as written, when it was.
 */
export async function saveRemaining(
  texts: () => AsyncIterable<IndexedText>,
  account: { isRemaining(index: number): boolean; saved: Saved | undefined },
  place: RemainingPlace,
  shutdown: Shutdown,
  written?: (records: number) => void,
): Promise<WrittenFile | undefined> {
  const lines = async function* (): AsyncGenerator<string> {
    let batch = '';
    let count = 0;
    for await (const record of texts()) {
      if (!account.isRemaining(record.index)) continue;
      // Checked before the first was sent, each record is copied as it was written, on one
      // line (the line breaks of a multi-line array element are white space).
      batch += `${record.text.replace(/[\r\n]+/g, ' ')}\n`;
      count++;
      if (batch.length >= 64 * 1024) {
        yield batch;
        batch = '';
        written?.(count);
      }
    }
    if (batch !== '') yield batch;
    written?.(count);
  };
  try {
    const file = await writeRemaining(lines, place, shutdown);
    account.saved = { file: file.path };
    return file;
  } catch (err) {
    account.saved = { error: err instanceof Error ? err.message : String(err) };
    return undefined;
  }
}

/**
 * Writes the lines `lines()` yields (each ending in `\n`) to a new remaining file, in the
 * first directory of `place` where that succeeds (`lines` is called again for each).
 * @returns the file as written.
 * @throws Error whose message says, for each directory tried, why it failed (a full disk,
 * no permission, a read-only file system), or what reading the lines threw.
 */
export async function writeRemaining(
  lines: () => AsyncIterable<string>,
  place: RemainingPlace,
  shutdown: Shutdown,
): Promise<WrittenFile> {
  const reasons: string[] = [];
  for (const dir of place.dirs) {
    try {
      return await writeIn(dir, place.stem, lines, shutdown);
    } catch (err) {
      if (!isFileSystemError(err)) throw err;
      reasons.push(`${dir}: ${describeFileError(err)}`);
    }
  }
  throw new Error(reasons.join('; '));
}

/** A failure of the file system (errno code), as opposed to one of reading the input. */
function isFileSystemError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** Writes the remaining file in `dir` through a private temp file there. */
async function writeIn(
  dir: string,
  stem: string,
  lines: () => AsyncIterable<string>,
  shutdown: Shutdown,
): Promise<WrittenFile> {
  const temp = join(dir, `.${stem}.remaining-${randomBytes(12).toString('hex')}.tmp`);
  // Created synchronously, its removal registered before the next turn of the event loop:
  // no open is in flight in the thread pool should the process end (it would create the
  // file after the exit).
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  const unregister = shutdown.add({
    onForcedEnd: () => {
      rmSync(temp, { force: true });
      return false;
    },
    doing: () => 'writing the remaining file',
  });
  try {
    const hash = createHash('sha256');
    let size = 0;
    for await (const text of lines()) {
      const bytes = Buffer.from(text);
      hash.update(bytes);
      for (let done = 0; done < bytes.length;) done += await writeAt(fd, bytes.subarray(done), size + done);
      size += bytes.length;
    }
    await new Promise<void>((resolve, reject) => {
      fdatasync(fd, (err) => (err ? reject(err) : resolve()));
    });
    const { dev, ino } = fstatSync(fd);
    const path = await linkToFreeName(temp, dir, stem);
    return { path, size, sha256: hash.digest('hex'), dev, ino };
  } finally {
    closeSync(fd);
    await unlink(temp).catch(() => undefined);
    unregister();
  }
}

/** Writes `bytes` at `position` of `fd`; resolves with how many were written (a full disk: fewer, then ENOSPC). */
function writeAt(fd: number, bytes: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    write(fd, bytes, 0, bytes.length, position, (err, written) => (err ? reject(err) : resolve(written)));
  });
}

/**
 * Gives `temp` the first free name of `stem.remaining.ndjson`, `stem.remaining-2.ndjson`,
 * ... in `dir`: a hard link fails with EEXIST rather than replace anything, a symlink
 * included. Where hard links are not supported, an exclusive copy does the same.
 */
async function linkToFreeName(temp: string, dir: string, stem: string): Promise<string> {
  for (let n = 1; n <= MAX_NAMES; n++) {
    const path = join(dir, `${stem}.remaining${n === 1 ? '' : `-${n}`}.ndjson`);
    try {
      await link(temp, path).catch(async (err: unknown) => {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw err;
        await copyFile(temp, path, constants.COPYFILE_EXCL);
      });
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw Object.assign(new Error(`every name up to ${stem}.remaining-${MAX_NAMES}.ndjson is taken`), { code: 'EEXIST' });
}

/**
 * What `removeIfWritten` did: removed the file, or left it, saying why (a phrase that ends
 * a sentence about it: "it was changed since petstore wrote it"); `why` is undefined when
 * there was no file to remove.
 */
export type Removal = { removed: true } | { removed: false; why: string | undefined };

/**
 * Deletes the remaining file `file` only when petstore can prove that the file at its path
 * is the very file it wrote, unchanged (cli-contract.md "What petstore trusts"): opened
 * without following a link and without blocking, the open descriptor's device and inode are
 * those recorded when it was written, and its size and the SHA-256 of the bytes read from
 * that descriptor are too. The unlink that follows is by path: only someone who may write
 * that directory could swap the file in between, and so could delete it themselves.
 * @returns what it did (see `Removal`); never throws.
 */
export async function removeIfWritten(file: WrittenFile): Promise<Removal> {
  let handle: FileHandle;
  try {
    handle = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { removed: false, why: undefined };
    if (code === 'ELOOP') return { removed: false, why: 'it is a symbolic link now' };
    return { removed: false, why: `it cannot be read (${describeFileError(err)})` };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { removed: false, why: 'it is not a regular file now' };
    if (st.dev !== file.dev || st.ino !== file.ino) {
      return { removed: false, why: 'it is another file than the one petstore wrote (replaced since)' };
    }
    if (st.size !== file.size || (await sha256Of(handle, file.size)) !== file.sha256) {
      return { removed: false, why: 'it was changed since petstore wrote it' };
    }
    await unlink(file.path);
    return { removed: true };
  } catch (err) {
    return { removed: false, why: `it could not be removed (${describeFileError(err)})` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The SHA-256 (hex) of the bytes read from `handle` from its start, reading at most `size` + 1. */
async function sha256Of(handle: FileHandle, size: number): Promise<string> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let at = 0; at <= size;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size + 1 - at), at);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
  return hash.digest('hex');
}

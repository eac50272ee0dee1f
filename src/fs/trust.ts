/**
 * What petstore trusts of its own folders and files (docs/configuration.md "Who may own
 * petstore's files"): ssh's rule (sshd_config(5) `StrictModes`, ssh_config(5) for
 * `~/.ssh/config`). A config, cache or state folder, and each file petstore reads from it,
 * is used only when it is owned by the effective user or by root and is writable by neither
 * its group nor others. Parent folders are not checked (ssh checks them; a home under a
 * group-writable `/home` would then refuse everything).
 *
 * Files are judged on the open descriptor (`fstat`), never on a path looked at earlier, so
 * nothing can be swapped in between the check and the read; they are opened non-blocking
 * (a FIFO planted in their place never stalls a run) and, where petstore alone writes,
 * without following a symbolic link. A leaf: node's modules only.
 */
// `promises` is read on use: Node loads its promise API (about 5 ms) on first use, and the
// start-up path reads its files synchronously.
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fsp, readSync, statSync } from 'node:fs';
import { formatCount } from '../text/count.js';

/** Group- and other-writable mode bits. */
const SHARED_WRITE = 0o022;

/** The identity and mode of a folder or file, as `stat` gives them. */
export interface Owned {
  uid: number;
  mode: number;
}

/**
 * Why a folder or file fails ssh's rule, in words that end a sentence starting with its path
 * ("is owned by uid 1001", "is writable by its group (mode 0775)"), or `undefined` when it
 * passes. Always passes where there are no uids (Windows).
 * @param euid the effective uid the rule is judged for (default: this process's; `null`: no uids).
 */
export function untrustedBecause(st: Owned, euid: number | null = process.geteuid?.() ?? null): string | undefined {
  if (euid === null) return undefined;
  if (st.uid !== euid && st.uid !== 0) return `is owned by uid ${st.uid}, not by you (uid ${euid}) or root`;
  const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
  if ((st.mode & 0o002) !== 0) return `is writable by other users (mode ${mode})`;
  if ((st.mode & 0o020) !== 0) return `is writable by its group (mode ${mode})`;
  return undefined;
}

/** The command that makes a path pass the rule (`chmod go-w`), or the advice when only its owner can. */
function fixFor(path: string, st: Owned, euid: number | null): string {
  if (euid !== null && st.uid !== euid && st.uid !== 0) {
    return `Use a folder of your own (or have its owner, uid ${st.uid}, remove it).`;
  }
  return (st.mode & SHARED_WRITE) !== 0 ? `Fix it with: chmod go-w ${path}` : '';
}

/**
 * A folder or file petstore will not use: its path, why (see `untrustedBecause`, or "is a
 * symbolic link", "is not a regular file"), and the fix.
 */
export class UntrustedPathError extends Error {
  constructor(
    readonly path: string,
    readonly why: string,
    readonly fix: string,
  ) {
    super(`${path} ${why}`);
    this.name = 'UntrustedPathError';
  }
}

/**
 * Checks a folder petstore keeps its files in. `follow: false` (the cache and state folders,
 * which petstore alone writes) refuses a symbolic link in the folder's own place; `true`
 * (the config folder) judges the link's target.
 * @returns `false` when the folder does not exist (yet), `true` when it passes.
 * @throws UntrustedPathError when it is not a folder, is a link where none is followed, or
 * fails the rule; a stat error other than ENOENT as it is.
 */
export function checkFolder(path: string, follow: boolean): boolean {
  let st;
  try {
    st = follow ? statSync(path) : lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (st.isSymbolicLink()) throw new UntrustedPathError(path, 'is a symbolic link', `Remove the link: rm ${path}`);
  if (!st.isDirectory()) throw new UntrustedPathError(path, 'is not a folder', '');
  judge(path, st);
  return true;
}

/** Throws UntrustedPathError when `st` fails the rule. */
function judge(path: string, st: Owned): void {
  const euid = process.geteuid?.() ?? null;
  const why = untrustedBecause(st, euid);
  if (why !== undefined) throw new UntrustedPathError(path, why, fixFor(path, st, euid));
}

/** How `openOwned`/`readOwnedFile` open a file. */
export interface OwnedOpen {
  /**
   * Whether a symbolic link in the file's place is followed (its target then judged):
   * `true` only for the config file, which dotfile managers (stow, home-manager) link.
   */
  follow: boolean;
}

/**
 * Opens a file of petstore's own for reading, synchronously: non-blocking, close-on-exec,
 * and with `O_NOFOLLOW` unless `follow`; then judges the open descriptor: a regular file
 * that passes the rule.
 * @returns the descriptor (the caller closes it), or `undefined` when the file does not exist.
 * @throws UntrustedPathError (a link where none is followed, not a regular file, failing the
 * rule; the descriptor is closed); an open error other than ENOENT as it is.
 */
export function openOwnedSync(path: string, how: OwnedOpen): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, flagsFor(how));
  } catch (err) {
    openFailed(path, err);
    return undefined;
  }
  try {
    judgeOpen(path, fstatSync(fd));
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Reads a whole file of petstore's own (opened and judged as `openOwnedSync`), at most
 * `maxBytes` bytes, counted while reading whatever `stat` said.
 * @returns the bytes, or `undefined` when the file does not exist.
 * @throws UntrustedPathError as `openOwnedSync`; FileTooLargeError past `maxBytes`; a read
 * error as it is.
 */
export async function readOwnedFile(path: string, how: OwnedOpen & { maxBytes: number }): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await fsp.open(path, flagsFor(how));
  } catch (err) {
    openFailed(path, err);
    return undefined;
  }
  try {
    judgeOpen(path, await handle.stat());
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, how.maxBytes + 1 - size));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > how.maxBytes) throw new FileTooLargeError(path, how.maxBytes);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, size);
  } finally {
    await handle.close();
  }
}

/** Reads a whole file of petstore's own synchronously: `readOwnedFile`'s rules. */
export function readOwnedFileSync(path: string, how: OwnedOpen & { maxBytes: number }): Buffer | undefined {
  const fd = openOwnedSync(path, how);
  if (fd === undefined) return undefined;
  try {
    return readRestSync(fd, path, how.maxBytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads an open descriptor (one `openOwnedSync` gave) from its current position to its end,
 * at most `maxBytes` bytes, counted while reading whatever `stat` said. The caller closes it.
 * @param path the file's path, for the error only.
 * @throws FileTooLargeError past `maxBytes`; a read error as it is.
 */
export function readRestSync(fd: number, path: string, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - size));
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    size += bytesRead;
    if (size > maxBytes) throw new FileTooLargeError(path, maxBytes);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, size);
}

/**
 * Checks, without opening it, a file petstore is about to replace (rename a new one over it)
 * or write in place, where petstore alone writes (the sandbox's files): no link is followed
 * (a link in its place is refused, never written through), only a regular file is accepted,
 * and it must pass the rule. The folder around it must have passed `checkFolder` first, so
 * that nobody else can swap the file between this check and the write.
 * @returns `false` when the file does not exist (yet), `true` when it passes.
 * @throws UntrustedPathError (a link, not a regular file, failing the rule); an lstat error
 * other than ENOENT as it is.
 */
export function checkFile(path: string): boolean {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (st.isSymbolicLink()) throw new UntrustedPathError(path, 'is a symbolic link', `Remove the link: rm ${path}`);
  judgeOpen(path, st);
  return true;
}

/**
 * A refusal in words, for the error a caller builds from it (a leaf makes no CLI errors):
 * `<what> <path> <why>` and what is wrong with that, and the fix as its hint (empty when
 * there is none, e.g. a file where a folder belongs). Root refusing another user's folder
 * or file is most often `sudo -E` (or a sudo that keeps HOME): the hint says so.
 * @param what the words naming it before its path: `the config directory`, `the sandbox journal`.
 */
export function refusalText(what: string, err: UntrustedPathError): { message: string; hint: string } {
  const { path, why, fix } = err;
  if (why === 'is a symbolic link') {
    return { message: `${what} ${path} is a symbolic link: petstore neither reads nor writes through one`, hint: fix };
  }
  if (why === 'is not a regular file' || why === 'is not a folder')
    return { message: `${what} ${path} ${why}`, hint: fix };
  const hints = [fix];
  if (process.geteuid?.() === 0 && why.startsWith('is owned by')) {
    hints.push("Running as root with another user's HOME (sudo -E)? Run sudo without -E, so that root uses its own.");
  }
  return {
    message: `${what} ${path} ${why}: petstore uses it only when no other user can change it`,
    hint: hints.filter((h) => h !== '').join('\n'),
  };
}

/** A file of petstore's own larger than its reader's cap. */
export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${formatCount(maxBytes)} bytes`);
    this.name = 'FileTooLargeError';
  }
}

function flagsFor(how: OwnedOpen): number {
  // libuv adds O_CLOEXEC itself.
  const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = constants;
  return O_RDONLY | O_NONBLOCK | (how.follow ? 0 : O_NOFOLLOW);
}

/** Rethrows an open error; ENOENT ("no file yet") returns. ELOOP under O_NOFOLLOW is a link in the file's place. */
function openFailed(path: string, err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return;
  if (code === 'ELOOP') throw new UntrustedPathError(path, 'is a symbolic link', `Remove the link: rm ${path}`);
  throw err;
}

function judgeOpen(path: string, st: Owned & { isFile(): boolean }): void {
  if (!st.isFile()) throw new UntrustedPathError(path, 'is not a regular file', `Remove it: rm ${path}`);
  judge(path, st);
}

/**
 * petstore's state folder (`config/paths.ts` `placesOf(env).state`): what it remembers between
 * runs, today the records of bulk creates (`commands/pets/create/run-record.ts`), which
 * decide whether a re-run may send an input again and which remaining files petstore may
 * delete. So nobody but the user may write there (cli-contract.md "What petstore trusts",
 * ssh's rule: `trust.ts`):
 *
 * - The folder is used only when it is owned by the effective user or by root and is
 *   writable by neither its group nor others, and is not a symbolic link: in the state
 *   folder nothing is followed. Otherwise it is refused (ConfigError, exit 2) before
 *   anything is sent. Its parent folders are not checked (nor does ssh's rule here).
 * - Each file read there is opened without following a link and without blocking (a FIFO
 *   planted there never stalls a run), and judged on the open descriptor: a regular file
 *   that passes the same rule, else the run is refused.
 * - Each file written there is written to a new temp file beside it (created exclusively,
 *   `O_NOFOLLOW`, mode 0600, an unpredictable name), synced, and renamed into place: a
 *   link in its place is replaced, never written through.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsync, openSync, write } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../base/errors.js';
import { FileLock, LockBusyError } from './file-lock.js';
import { checkFolder, FileTooLargeError, readOwnedFile, UntrustedPathError } from './trust.js';
import { formatCount } from '../text/count.js';

/** What the state folder is for, in the words of a refusal. */
const PURPOSE = 'the records of bulk creates, which keep a re-run from creating pets twice';

/** petstore's state folder at `path`, used by the rules of the module comment. */
export class StateFolder {
  constructor(readonly path: string) {}

  /**
   * Checks the folder by ssh's rule, not following a link in its place.
   * @returns whether it exists.
   * @throws ConfigError (`config`, exit 2) naming the path, why (owner, mode, a link, not a
   * folder) and the fix; a stat error other than ENOENT as it is.
   */
  check(): boolean {
    try {
      return checkFolder(this.path, false);
    } catch (err) {
      if (!(err instanceof UntrustedPathError)) throw err;
      const fix =
        err.why === 'is a symbolic link'
          ? `Set PETSTORE_STATE_DIR to the folder it points to, or remove the link: rm ${this.path}`
          : err.fix !== ''
            ? err.fix
            : 'Remove it, or set PETSTORE_STATE_DIR to a folder of your own.';
      throw new ConfigError(`the state folder ${this.path} ${err.why}: petstore does not use it (${PURPOSE})`, fix);
    }
  }

  /**
   * Makes the folder when it is missing (mode 0700, its parents too), then checks it: one
   * made meanwhile by someone else is refused all the same.
   * @throws ConfigError as `check`; mkdir's error as it is.
   */
  async ensure(): Promise<void> {
    if (this.check()) return;
    await mkdir(this.path, { recursive: true, mode: 0o700 });
    this.check();
  }

  /**
   * Reads the file `name` of the folder, at most `maxBytes` bytes (counted while reading).
   * @returns its bytes, or undefined when there is no such file.
   * @throws ConfigError (exit 2) when it is a link, not a regular file, fails ssh's rule, or
   * is larger than `maxBytes`, naming it and the fix; a read error as it is.
   */
  async read(name: string, maxBytes: number): Promise<Buffer | undefined> {
    const path = join(this.path, name);
    try {
      return await readOwnedFile(path, { follow: false, maxBytes });
    } catch (err) {
      if (err instanceof UntrustedPathError) {
        throw new ConfigError(`${path}, in petstore's state folder, ${err.why}: petstore does not read it`, err.fix);
      }
      if (err instanceof FileTooLargeError) {
        throw new ConfigError(
          `${path}, in petstore's state folder, is larger than ${formatCount(maxBytes)} bytes: petstore does not read it`,
          `Remove it: rm ${path}`,
        );
      }
      throw err;
    }
  }

  /**
   * Replaces the file `name` of the folder with `text` (see the module comment: a temp file
   * renamed into place, never written through a link).
   * @throws the file system's error (the temp file removed).
   */
  async write(name: string, text: string): Promise<void> {
    const { temp, fd } = this.createTemp(name);
    let open = true;
    try {
      const bytes = Buffer.from(text);
      for (let done = 0; done < bytes.length;) {
        done += await new Promise<number>((resolve, reject) => {
          write(fd, bytes, done, bytes.length - done, done, (err, n) => (err ? reject(err) : resolve(n)));
        });
      }
      await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
      open = false;
      closeSync(fd);
      await rename(temp, join(this.path, name));
    } catch (err) {
      // Closed once only: after a close, the number may be another file's.
      if (open) closeSync(fd);
      await rm(temp, { force: true });
      throw err;
    }
  }

  /**
   * Removes the file `name` of the folder, if it is there (a link in its place is removed,
   * never followed).
   * @throws the file system's error other than ENOENT.
   */
  async remove(name: string): Promise<void> {
    await rm(join(this.path, name), { force: true });
  }

  /** The path of the file `name` of the folder. */
  pathOf(name: string): string {
    return join(this.path, name);
  }

  /**
   * The file `name` of the folder with its lock, for one run that owns it (`HeldFile`).
   * Nothing is done on disk until it is held.
   */
  file(name: string): HeldFile {
    return new HeldFile(this, name);
  }

  /**
   * A new temp file beside `name`: created exclusively, without following a link, mode
   * 0600, synchronously (no open left in flight in the thread pool should the process end,
   * which would create it after the exit).
   */
  private createTemp(name: string): { temp: string; fd: number } {
    const temp = join(this.path, `.${name}.${randomBytes(8).toString('hex')}.tmp`);
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
    return { temp, fd: openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600) };
  }
}

/**
 * A file of the state folder with its lock (`file-lock.ts`: `<name>.lock`), owned by one
 * run from `hold` to `close` or `releaseSync`: while it holds the lock, no other process
 * takes the file (one left by a dead holder is taken over).
 */
export class HeldFile {
  private lock: FileLock | undefined;
  private holding = false;

  constructor(
    private readonly folder: StateFolder,
    private readonly name: string,
  ) {}

  /**
   * Makes the folder when it is missing (`StateFolder.ensure`), then takes the lock without
   * waiting for it (one left by a dead holder is taken over).
   * @returns true when it holds the lock now; else the holder as its owner file names it
   * (`pid 123 on host`), or undefined when that cannot be read.
   * @throws ConfigError as `ensure`; LockFileError or the file system's error otherwise.
   */
  async hold(): Promise<true | { holder: string | undefined }> {
    await this.folder.ensure();
    this.lock = new FileLock(join(this.folder.path, this.name));
    try {
      await this.lock.hold({ deadline: Date.now() });
    } catch (err) {
      if (err instanceof LockBusyError) return { holder: err.holder };
      throw err;
    }
    this.holding = true;
    return true;
  }

  /** Whether this process holds the lock. */
  get held(): boolean {
    return this.holding;
  }

  /** Lets go of the lock, if held. */
  async close(): Promise<void> {
    if (this.holding) await this.lock?.close();
    this.holding = false;
  }

  /** Lets go of the lock at once, if held (the process is about to end). */
  releaseSync(): void {
    if (this.holding) this.lock?.releaseSync();
    this.holding = false;
  }
}

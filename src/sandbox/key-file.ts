/**
 * The sandbox's key: one per data file, kept in `<data file>.key` (mode 0600, one line) so
 * that it survives `sandbox serve` restarts and `sandbox reset` (cli-contract.md
 * "Environments"): environments and scripts pointed at a served sandbox keep working.
 * `PETSTORE_SANDBOX_KEY` wins over the file and is never written to it.
 *
 * The file is made on first use without the data's lock: written under a temporary name
 * (created exclusively, no link followed), then hard-linked into place, which fails when
 * another process got there first; that process's key is then read. So every process
 * sharing a data file agrees on its key, and a reader never sees a half-written one.
 *
 * Trust (src/fs/trust.ts): the folder has passed ssh's rule before (the store's read); the
 * file is read without following a link and judged on its descriptor.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ConfigError, UsageError, describeFileError } from '../base/errors.js';
import { FileTooLargeError, readOwnedFileSync, refusalText, UntrustedPathError } from '../fs/trust.js';

/** What a key may hold: visible ASCII only, so an `Authorization` header can carry it. */
const KEY_SHAPE = /^[\x21-\x7e]{1,1024}$/;
/** The most bytes of the key file read. */
const KEY_FILE_MAX_BYTES = 4096;

/** Creates a key in the shape of a real one (`sbx_` + 32 hex digits). */
export function newSandboxKey(): string {
  return `sbx_${randomBytes(16).toString('hex')}`;
}

/** The key file of a data file: `<data file>.key`. */
function sandboxKeyFile(dataFile: string): string {
  return `${dataFile}.key`;
}

/**
 * The key the sandbox of `dataFile` accepts: `fromEnv` (`PETSTORE_SANDBOX_KEY`) when given,
 * else the one kept in its key file, made now if there is none.
 * @throws UsageError (exit 2) when `fromEnv` holds characters a header cannot carry (the
 * value is not shown); ConfigError (exit 2) naming the path when the key file cannot be
 * read or written, fails the trust rule, or holds no key.
 */
export function sandboxKey(dataFile: string, fromEnv: string | undefined): string {
  if (fromEnv !== undefined) {
    if (!KEY_SHAPE.test(fromEnv)) {
      throw new UsageError(
        'PETSTORE_SANDBOX_KEY contains characters an HTTP header cannot carry (only visible ASCII is allowed)',
        'Set PETSTORE_SANDBOX_KEY to the key alone, without spaces or line breaks, or unset it.',
      );
    }
    return fromEnv;
  }
  const file = sandboxKeyFile(dataFile);
  return readKey(file) ?? createKey(file);
}

/** The key kept in `file`, or undefined when there is no such file. @throws ConfigError */
function readKey(file: string): string | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFileSync(file, { follow: false, maxBytes: KEY_FILE_MAX_BYTES });
  } catch (err) {
    if (err instanceof UntrustedPathError) {
      const { message, hint } = refusalText("the sandbox's key file", err);
      throw new ConfigError(message, hint === '' ? undefined : hint);
    }
    if (err instanceof FileTooLargeError) throw notAKey(file);
    throw new ConfigError(`cannot read the sandbox's key file ${file}: ${describeFileError(err)}`);
  }
  if (bytes === undefined) return undefined;
  const key = bytes.toString('latin1').replace(/\r?\n$/, '');
  if (!KEY_SHAPE.test(key)) throw notAKey(file);
  return key;
}

/** What is said of a key file that holds no key (its content is never shown: it may be one). */
function notAKey(file: string): ConfigError {
  return new ConfigError(
    `the sandbox's key file ${file} does not hold a key (one line of visible ASCII)`,
    `Remove ${file}: the sandbox makes a new key on its next start (log in again where its old key was used).`,
  );
}

/**
 * Makes the key file with a new key, or reads the one another process made first.
 * @throws ConfigError naming the path.
 */
function createKey(file: string): string {
  const key = newSandboxKey();
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  try {
    const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeFileSync(fd, `${key}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temp, file);
    return key;
  } catch (err) {
    // Another process made it between our read and our link: its key is the one.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readKey(file);
      if (theirs !== undefined) return theirs;
    }
    throw new ConfigError(`cannot write the sandbox's key file ${file}: ${describeFileError(err)}`);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

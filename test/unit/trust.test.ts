/**
 * src/fs/trust.ts: ssh's rule for petstore's own folders and files, judged on real files in a
 * temp dir (other owners made with chown, which needs root: skipped with the reason printed).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkFile,
  checkFolder,
  FileTooLargeError,
  openOwnedSync,
  readOwnedFile,
  readOwnedFileSync,
  readRestSync,
  refusalText,
  untrustedBecause,
  UntrustedPathError,
} from '../../src/fs/trust.js';
import { OTHER, otherUsersUnavailable } from '../helpers/other-user.js';

describe('untrustedBecause', () => {
  it.each([
    [{ uid: 500, mode: 0o100600 }, 500, undefined],
    [{ uid: 0, mode: 0o100644 }, 500, undefined],
    [{ uid: 500, mode: 0o40755 }, 500, undefined],
    [{ uid: 501, mode: 0o100600 }, 500, 'is owned by uid 501, not by you (uid 500) or root'],
    [{ uid: 500, mode: 0o100620 }, 500, 'is writable by its group (mode 0620)'],
    [{ uid: 500, mode: 0o41777 }, 500, 'is writable by other users (mode 1777)'],
    [{ uid: 0, mode: 0o40775 }, 500, 'is writable by its group (mode 0775)'],
    [{ uid: 501, mode: 0o100666 }, null, undefined],
  ])('%j for euid %s: %s', (st, euid, why) => {
    expect(untrustedBecause(st, euid)).toBe(why);
  });
});

describe('refusalText', () => {
  it('names the path, why, and what is wrong with that; the fix is the hint', () => {
    const err = new UntrustedPathError(
      '/c/config.json',
      'is writable by its group (mode 0664)',
      'Fix it with: chmod go-w /c/config.json',
    );
    expect(refusalText('the config file', err)).toEqual({
      message:
        'the config file /c/config.json is writable by its group (mode 0664): petstore uses it only when no other user can change it',
      hint: 'Fix it with: chmod go-w /c/config.json',
    });
    const link = new UntrustedPathError('/c/sandbox.json', 'is a symbolic link', 'Remove the link: rm /c/sandbox.json');
    expect(refusalText('the sandbox data file', link)).toEqual({
      message:
        'the sandbox data file /c/sandbox.json is a symbolic link: petstore neither reads nor writes through one',
      hint: 'Remove the link: rm /c/sandbox.json',
    });
  });

  it.skipIf(process.geteuid?.() !== 0)("root refusing another user's folder suggests sudo without -E", () => {
    const err = new UntrustedPathError(
      '/home/sam/.config/petstore',
      'is owned by uid 1000, not by you (uid 0) or root',
      'Use a folder of your own.',
    );
    expect(refusalText('the config directory', err).hint).toBe(
      "Use a folder of your own.\nRunning as root with another user's HOME (sudo -E)? Run sudo without -E, so that root uses its own.",
    );
  });
});

describe('files and folders', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'petstore-trust-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing folder or file is "nothing yet", not a refusal', async () => {
    expect(checkFolder(join(dir, 'none'), false)).toBe(false);
    expect(openOwnedSync(join(dir, 'none'), { follow: false })).toBeUndefined();
    await expect(readOwnedFile(join(dir, 'none'), { follow: false, maxBytes: 10 })).resolves.toBeUndefined();
  });

  it('a private folder and file pass; their bytes are read whole', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, '{"a":1}', { mode: 0o600 });
    expect(checkFolder(dir, false)).toBe(true);
    expect((await readOwnedFile(file, { follow: false, maxBytes: 7 }))?.toString()).toBe('{"a":1}');
    expect(readOwnedFileSync(file, { follow: false, maxBytes: 7 })?.toString()).toBe('{"a":1}');
  });

  it('group- or other-writable folders and files are refused, with chmod go-w as the fix', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0o664);
    const err = await readOwnedFile(file, { follow: false, maxBytes: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UntrustedPathError);
    expect(err).toMatchObject({ why: 'is writable by its group (mode 0664)', fix: `Fix it with: chmod go-w ${file}` });
    chmodSync(dir, 0o777);
    expect(() => checkFolder(dir, false)).toThrow(`${dir} is writable by other users (mode 0777)`);
  });

  it('a link in a file or folder place is refused unless followed; followed, its target is judged', async () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, '{}', { mode: 0o600 });
    const link = join(dir, 'link.json');
    symlinkSync(target, link);
    await expect(readOwnedFile(link, { follow: false, maxBytes: 10 })).rejects.toThrow(`${link} is a symbolic link`);
    expect(() => readOwnedFileSync(link, { follow: false, maxBytes: 10 })).toThrow(`${link} is a symbolic link`);
    expect((await readOwnedFile(link, { follow: true, maxBytes: 10 }))?.toString()).toBe('{}');
    chmodSync(target, 0o666);
    await expect(readOwnedFile(link, { follow: true, maxBytes: 10 })).rejects.toThrow('is writable by other users');
    const folderLink = join(dir, 'folder-link');
    mkdirSync(join(dir, 'real'), { mode: 0o700 });
    symlinkSync(join(dir, 'real'), folderLink);
    expect(() => checkFolder(folderLink, false)).toThrow(`${folderLink} is a symbolic link`);
    expect(checkFolder(folderLink, true)).toBe(true);
  });

  it('a FIFO or a device is refused at once, never waited on', async () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    // Nobody writes to it: a blocking open would never return.
    await expect(readOwnedFile(fifo, { follow: false, maxBytes: 10 })).rejects.toThrow(`${fifo} is not a regular file`);
    expect(() => openOwnedSync(fifo, { follow: false })).toThrow('is not a regular file');
    await expect(readOwnedFile('/dev/zero', { follow: true, maxBytes: 10 })).rejects.toThrow('is not a regular file');
  });

  it('a file larger than the cap is refused, counted while reading', async () => {
    const file = join(dir, 'big.json');
    writeFileSync(file, 'x'.repeat(100_001), { mode: 0o600 });
    await expect(readOwnedFile(file, { follow: false, maxBytes: 100_000 })).rejects.toBeInstanceOf(FileTooLargeError);
    expect(() => readOwnedFileSync(file, { follow: false, maxBytes: 100_000 })).toThrow(FileTooLargeError);
    expect((await readOwnedFile(file, { follow: false, maxBytes: 100_001 }))?.length).toBe(100_001);
  });

  it('checkFile judges a file about to be replaced without opening it: no link, no FIFO, the rule', () => {
    const file = join(dir, 'data.json');
    expect(checkFile(file)).toBe(false);
    writeFileSync(file, '{}', { mode: 0o600 });
    expect(checkFile(file)).toBe(true);
    const link = join(dir, 'link.json');
    symlinkSync(file, link);
    expect(() => checkFile(link)).toThrow(`${link} is a symbolic link`);
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    expect(() => checkFile(fifo)).toThrow(`${fifo} is not a regular file`);
    chmodSync(file, 0o620);
    expect(() => checkFile(file)).toThrow(`${file} is writable by its group (mode 0620)`);
  });

  it('readRestSync reads an open descriptor to its end, the cap counted while reading', () => {
    const file = join(dir, 'data.json');
    writeFileSync(file, 'y'.repeat(70_000), { mode: 0o600 });
    const fd = openOwnedSync(file, { follow: false })!;
    try {
      expect(() => readRestSync(fd, file, 69_999)).toThrow(FileTooLargeError);
    } finally {
      closeSync(fd);
    }
    const again = openOwnedSync(file, { follow: false })!;
    try {
      expect(readRestSync(again, file, 70_000).length).toBe(70_000);
    } finally {
      closeSync(again);
    }
  });

  it.skipIf(otherUsersUnavailable !== undefined)(
    "another user's folder or file is refused, naming its uid; root's passes",
    async () => {
      const file = join(dir, 'f.json');
      writeFileSync(file, '{}', { mode: 0o600 });
      chownSync(file, OTHER.uid, OTHER.gid);
      await expect(readOwnedFile(file, { follow: false, maxBytes: 10 })).rejects.toMatchObject({
        why: `is owned by uid ${OTHER.uid}, not by you (uid 0) or root`,
        fix: `Use a folder of your own (or have its owner, uid ${OTHER.uid}, remove it).`,
      });
      const folder = join(dir, 'theirs');
      mkdirSync(folder, { mode: 0o700 });
      chownSync(folder, OTHER.uid, OTHER.gid);
      expect(() => checkFolder(folder, true)).toThrow(`is owned by uid ${OTHER.uid}`);
    },
  );
});

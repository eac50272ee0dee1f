/**
 * src/fs/state-folder.ts: the state folder is used only when it passes ssh's rule and is no
 * link; each file read there is judged on its descriptor and never blocks; each file written
 * there replaces what is in its place, a link included, never writing through it. Real
 * files in a temp dir; other owners made with chown, which needs root (skipped with the
 * reason printed).
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { StateFolder } from '../../src/fs/state-folder.js';
import { OTHER, otherUsersUnavailable } from '../helpers/other-user.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'petstore-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The ConfigError `fn` throws (or rejects with). */
async function refusal(fn: () => unknown): Promise<ConfigError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('not refused');
}

describe('the folder', () => {
  it('missing: made with mode 0700 (its parents too), then used', async () => {
    const state = new StateFolder(join(dir, 'a', 'petstore'));
    expect(state.check()).toBe(false);
    await state.ensure();
    expect(statSync(state.path).mode & 0o777).toBe(0o700);
    expect(state.check()).toBe(true);
  });

  it.each([
    [0o777, 'is writable by other users (mode 0777)'],
    [0o1777, 'is writable by other users (mode 1777)'],
    [0o770, 'is writable by its group (mode 0770)'],
  ])('mode %o: refused, exit 2, naming the path, the mode and the fix', async (mode, why) => {
    const path = join(dir, 'state');
    mkdirSync(path);
    chmodSync(path, mode);
    const err = await refusal(() => new StateFolder(path).ensure());
    expect(err.exitCode).toBe(2);
    expect(err.code).toBe('config');
    expect(err.message).toBe(
      `the state folder ${path} ${why}: petstore does not use it (the records of bulk creates, which keep a re-run from creating pets twice)`,
    );
    expect(err.hint).toBe(`Fix it with: chmod go-w ${path}`);
  });

  it('a symbolic link, even to a folder of your own: refused (nothing is followed there), the fix names both ways', async () => {
    const real = join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(dir, 'state');
    symlinkSync(real, link);
    const err = await refusal(() => new StateFolder(link).check());
    expect(err.message).toContain(`the state folder ${link} is a symbolic link`);
    expect(err.hint).toBe(`Set PETSTORE_STATE_DIR to the folder it points to, or remove the link: rm ${link}`);
  });

  it('a file in its place: refused', async () => {
    const path = join(dir, 'state');
    writeFileSync(path, '');
    const err = await refusal(() => new StateFolder(path).ensure());
    expect(err.message).toContain(`the state folder ${path} is not a folder`);
    expect(err.hint).toBe('Remove it, or set PETSTORE_STATE_DIR to a folder of your own.');
  });

  it.skipIf(otherUsersUnavailable !== undefined)("another user's folder: refused, naming its uid", async () => {
    const path = join(dir, 'state');
    mkdirSync(path, { mode: 0o700 });
    chownSync(path, OTHER.uid, OTHER.gid);
    const err = await refusal(() => new StateFolder(path).ensure());
    expect(err.message).toContain(`${path} is owned by uid ${OTHER.uid}, not by you (uid 0) or root`);
    expect(err.hint).toBe(`Use a folder of your own (or have its owner, uid ${OTHER.uid}, remove it).`);
  });
});

describe('files read there', () => {
  it('a record is read whole; a missing one is none', async () => {
    const state = new StateFolder(dir);
    writeFileSync(join(dir, 'k.json'), '{"a":1}', { mode: 0o600 });
    expect((await state.read('k.json', 100))?.toString()).toBe('{"a":1}');
    expect(await state.read('none.json', 100)).toBeUndefined();
  });

  it('a link in its place: refused, its target unread', async () => {
    writeFileSync(join(dir, 'target'), '{}');
    symlinkSync(join(dir, 'target'), join(dir, 'k.json'));
    const err = await refusal(() => new StateFolder(dir).read('k.json', 100));
    expect(err.message).toBe(
      `${join(dir, 'k.json')}, in petstore's state folder, is a symbolic link: petstore does not read it`,
    );
  });

  it('a FIFO in its place: refused at once, without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'k.path')]);
    const err = await refusal(() => new StateFolder(dir).read('k.path', 100));
    expect(err.message).toContain('is not a regular file');
    expect(err.hint).toBe(`Remove it: rm ${join(dir, 'k.path')}`);
  });

  it('larger than its cap: refused', async () => {
    writeFileSync(join(dir, 'k.json'), 'x'.repeat(101));
    const err = await refusal(() => new StateFolder(dir).read('k.json', 100));
    expect(err.message).toContain('is larger than 100 bytes');
  });

  it.skipIf(otherUsersUnavailable !== undefined)("a file of another user's: refused, naming its uid", async () => {
    writeFileSync(join(dir, 'k.json'), '{}', { mode: 0o600 });
    chownSync(join(dir, 'k.json'), OTHER.uid, OTHER.gid);
    const err = await refusal(() => new StateFolder(dir).read('k.json', 100));
    expect(err.message).toContain(`is owned by uid ${OTHER.uid}`);
  });
});

describe('files written there', () => {
  it('replaces the file whole, mode 0600, no temp file left', async () => {
    const state = new StateFolder(dir);
    writeFileSync(join(dir, 'k.json'), 'old');
    await state.write('k.json', 'new');
    expect(readFileSync(join(dir, 'k.json'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'k.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['k.json']);
  });

  it('a link in its place is replaced, its target untouched', async () => {
    const target = join(dir, 'victim');
    writeFileSync(target, 'precious');
    symlinkSync(target, join(dir, 'k.json'));
    const state = new StateFolder(dir);
    await state.write('k.json', 'record');
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(lstatSync(join(dir, 'k.json')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'k.json'), 'utf8')).toBe('record');
  });

  it('a FIFO in its place is replaced, without waiting for a reader', async () => {
    execFileSync('mkfifo', [join(dir, 'k.json')]);
    await new StateFolder(dir).write('k.json', 'record');
    expect(readFileSync(join(dir, 'k.json'), 'utf8')).toBe('record');
  });

  it('a failed write leaves no temp file', async () => {
    mkdirSync(join(dir, 'k.json'));
    writeFileSync(join(dir, 'k.json', 'x'), '');
    await expect(new StateFolder(dir).write('k.json', 'record')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['k.json']);
  });
});

/**
 * remaining.ts `removeIfWritten`: a remaining file is deleted only when petstore can prove
 * the file at its path is the very file it wrote, unchanged (device, inode, size and
 * SHA-256, judged on the open descriptor); otherwise it is kept, saying why. Real files in
 * a temp dir.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeIfWritten, type WrittenFile } from '../../src/commands/pets/create/remaining.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'petstore-remaining-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('removeIfWritten: a remaining file is deleted only when it is the very file petstore wrote', () => {
  /** Writes `text` at `path` and returns it as petstore would have recorded it. */
  function written(path: string, text: string): WrittenFile {
    writeFileSync(path, text);
    const st = statSync(path);
    const sha256 = createHash('sha256').update(text).digest('hex');
    return { path, size: st.size, sha256, dev: st.dev, ino: st.ino };
  }

  it('as written: removed', async () => {
    const file = written(join(dir, 'r.ndjson'), '{"name":"a"}\n');
    expect(await removeIfWritten(file)).toEqual({ removed: true });
    expect(existsSync(file.path)).toBe(false);
  });

  it('gone: nothing to say', async () => {
    const file = written(join(dir, 'r.ndjson'), 'x\n');
    rmSync(file.path);
    expect(await removeIfWritten(file)).toEqual({ removed: false, why: undefined });
  });

  it('changed in place, even to the same size: kept', async () => {
    const file = written(join(dir, 'r.ndjson'), '{"name":"a"}\n');
    writeFileSync(file.path, '{"name":"b"}\n');
    expect(statSync(file.path).ino).toBe(file.ino);
    expect(await removeIfWritten(file)).toEqual({ removed: false, why: 'it was changed since petstore wrote it' });
    expect(existsSync(file.path)).toBe(true);
  });

  it('another file with the same content in its place: kept', async () => {
    const file = written(join(dir, 'r.ndjson'), 'same\n');
    writeFileSync(`${file.path}.new`, 'same\n');
    renameSync(`${file.path}.new`, file.path);
    expect(await removeIfWritten(file)).toEqual({
      removed: false,
      why: 'it is another file than the one petstore wrote (replaced since)',
    });
    expect(existsSync(file.path)).toBe(true);
  });

  it('a link to it, or a FIFO, in its place: kept, never followed nor waited on', async () => {
    const file = written(join(dir, 'r.ndjson'), 'x\n');
    const link = join(dir, 'link.ndjson');
    symlinkSync(file.path, link);
    expect(await removeIfWritten({ ...file, path: link })).toEqual({
      removed: false,
      why: 'it is a symbolic link now',
    });
    expect(existsSync(file.path)).toBe(true);
    const fifo = join(dir, 'fifo.ndjson');
    execFileSync('mkfifo', [fifo]);
    expect(await removeIfWritten({ ...file, path: fifo })).toEqual({
      removed: false,
      why: 'it is not a regular file now',
    });
  });
});

/**
 * The shim's code cache (bin/petstore.js `loadWithCodeCache`): V8's compiled code of what a
 * run used, kept in petstore's cache directory ($XDG_CACHE_HOME/petstore, else
 * ~/.cache/petstore) for the next run. A cache never changes what a run prints: not when
 * it is written, used, damaged, out of reach or turned off.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/** `pets list --json` against the sandbox with the cache in `cacheHome`. */
function list(config: string, cacheHome: string, extra: Record<string, string> = {}) {
  return runCli(['--env', 'sandbox', 'pets', 'list', '--json'], {
    env: { PETSTORE_CONFIG_DIR: config, XDG_CACHE_HOME: cacheHome, ...extra },
  });
}

const cacheFiles = (cacheHome: string): string[] => readdirSync(join(cacheHome, 'petstore'));

describe('the code cache', () => {
  it('is written by the first run, private to the user, and read by the next, which prints the same', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const first = await list(config, cacheHome);
    expect(first.code).toBe(0);
    const files = cacheFiles(cacheHome);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^code-${process.version}-${process.arch}-\\d+-\\d+\\.v8$`));
    const file = join(cacheHome, 'petstore', files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(cacheHome, 'petstore')).mode & 0o777).toBe(0o700);
    const written = statSync(file).mtimeMs;
    const second = await list(config, cacheHome);
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: first.stderr });
    // Accepted, so not written again.
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('a damaged cache is rejected by V8 and written anew; the run prints what it would have', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const clean = await list(config, cacheHome);
    const file = join(cacheHome, 'petstore', cacheFiles(cacheHome)[0]!);
    writeFileSync(file, Buffer.alloc(4096, 0x5a));
    const r = await list(config, cacheHome);
    expect(r).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
    expect(statSync(file).size).not.toBe(4096);
  });

  it('a cache directory that cannot be written costs only the cache', async () => {
    const cacheHome = tempDir('petstore-cache-');
    chmodSync(cacheHome, 0o500);
    // Root writes anyway; a file where the directory should be stops everyone.
    writeFileSync(join(cacheHome, 'petstore'), 'not a directory');
    const r = await list(tempDir(), cacheHome);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expect.any(Array));
  });

  it('NODE_DISABLE_COMPILE_CACHE (Node’s own switch) turns it off; 0 and false are no', async () => {
    const off = tempDir('petstore-cache-');
    const r = await list(tempDir(), off, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.code).toBe(0);
    expect(readdirSync(off)).toEqual([]);
    for (const no of ['0', 'false']) {
      const on = tempDir('petstore-cache-');
      expect((await list(tempDir(), on, { NODE_DISABLE_COMPILE_CACHE: no })).code).toBe(0);
      expect(cacheFiles(on)).toHaveLength(1);
    }
  });

  it('never writes through a planted symlink: not at a pid-named temp file, not for a cache directory elsewhere', async () => {
    const cacheHome = tempDir('petstore-cache-');
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    // Another local user's trap: links at every temp name a pid-based scheme would use next.
    const stats = statSync(join(import.meta.dirname, '..', '..', 'dist', 'petstore.cjs'));
    const name = `code-${process.version}-${process.arch}-${stats.size}-${Math.trunc(stats.mtimeMs)}.v8`;
    mkdirSync(join(cacheHome, 'petstore'), { mode: 0o700 });
    const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
    for (let pid = last + 1; pid <= last + 400; pid++) {
      symlinkSync(victim, join(cacheHome, 'petstore', `${name}.${pid}.tmp`));
    }
    const r = await list(tempDir(), cacheHome);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(cacheFiles(cacheHome).filter((f) => !f.endsWith('.tmp'))).toEqual([name]);
    expect(cacheFiles(cacheHome).filter((f) => f.startsWith('.'))).toEqual([]);

    // A cache directory that is a symlink to someone else's directory is not written into.
    const elsewhere = tempDir();
    const linkedHome = tempDir('petstore-cache-');
    symlinkSync(elsewhere, join(linkedHome, 'petstore'));
    expect((await list(tempDir(), linkedHome)).code).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

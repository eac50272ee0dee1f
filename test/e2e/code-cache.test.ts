/**
 * The shim's code cache (bin/petstore.js `loadWithCodeCache`): V8's compiled code of what a
 * run used, kept in petstore's cache directory ($XDG_CACHE_HOME/petstore, else
 * ~/.cache/petstore) for the next run. A cache never changes what a run prints: not when
 * it is written, used, damaged, planted, out of reach or turned off. V8 checks its own
 * version, its flags, the source's length and (with the flag the shim sets) a checksum of
 * its data; the shim lets through only a cache that passes ssh's rule (folder and file
 * owned by the user or root, writable by no one else, nothing followed) and whose header
 * names this build and the length of V8's data. A `--jq` run, which sets no V8 flag while
 * jq's thread starts, keeps a cache of its own kind, whose data the shim checks against
 * the CRC-32 in its header.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, collectRun, RUN_TIMEOUT_MS, runCli, type CliResult } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

const ROOT = join(import.meta.dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** The cache file's header length (bin/petstore.js codeCacheHeader). */
const HEADER = 52;

/** `pets list --json` against the sandbox with the cache in `cacheHome`. */
function list(config: string, cacheHome: string, extra: Record<string, string> = {}) {
  return runCli(['--env', 'sandbox', 'pets', 'list', '--json'], {
    env: { PETSTORE_CONFIG_DIR: config, XDG_CACHE_HOME: cacheHome, ...extra },
  });
}

/** `pets list --jq .[].name` against the sandbox with the cache in `cacheHome`. */
function listJq(config: string, cacheHome: string) {
  return runCli(['--env', 'sandbox', 'pets', 'list', '--jq', '.[].name'], {
    env: { PETSTORE_CONFIG_DIR: config, XDG_CACHE_HOME: cacheHome },
  });
}

const cacheFiles = (cacheHome: string): string[] => readdirSync(join(cacheHome, 'petstore'));

/** The bundle's SHA-256 the build wrote beside it in package folder `pkg`, in hex. */
const bundleHash = (pkg = ROOT): string =>
  readFileSync(join(pkg, 'dist', 'petstore.cjs.sha256'), 'latin1').slice(0, 64);

/**
 * Whether `file` is a whole cache of the build whose hash is `hash`, read independently of
 * the shim: the format's magic, the bundle's hash, the length and the CRC-32 in its header,
 * and V8's data accepted by a V8 set as the shim sets it (its checksum verified; for the
 * kind a `--jq` run keeps, `jq`, no flag set) for that build's bundle, in a process of its
 * own.
 */
function isCacheOf(file: string, hash: string, pkg = ROOT, { jq = false } = {}): boolean {
  const bytes = readFileSync(file);
  const data = bytes.subarray(HEADER);
  const header =
    bytes.subarray(0, 8).toString('latin1') === 'PSV8CC04' &&
    bytes.subarray(8, 40).toString('hex') === hash &&
    bytes.readUInt32LE(44) === data.length &&
    bytes.readUInt32LE(48) === crc32(data) &&
    data.length > 0;
  return header && v8Accepts(data, join(pkg, 'dist', 'petstore.cjs'), jq ? '' : SHIM_FLAGS);
}

/** The V8 flags a run without `--jq` sets before it loads the bundle (bin/petstore.js). */
const SHIM_FLAGS = '--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering --verify-snapshot-checksum';

/** Whether V8, with `flags` set, takes `data` as the code cache of `bundle` (a path). */
function v8Accepts(data: Buffer, bundle: string, flags: string): boolean {
  const check = `const v8 = require('node:v8'); const vm = require('node:vm'); const fs = require('node:fs');
    if (process.argv[2] !== '') v8.setFlagsFromString(process.argv[2]);
    const file = process.argv[1];
    const source = fs.readFileSync(file, 'utf8');
    const script = new vm.Script('(function (exports, require, module, __filename, __dirname) {\\n' + source + '\\n})',
      { filename: file, lineOffset: -1, cachedData: fs.readFileSync(0) });
    process.stdout.write(String(script.cachedDataRejected));`;
  const r = spawnSync(process.execPath, ['-e', check, bundle, flags], { input: data, encoding: 'utf8' });
  return r.status === 0 && r.stdout === 'false';
}

let nameOnce: Promise<string> | undefined;
/** The name of this build's cache file for this Node, as the shim makes it (from a first run). */
function cacheName(): Promise<string> {
  nameOnce ??= (async () => {
    const home = tempDir('petstore-cache-');
    expect((await runCli(['version'], { env: { XDG_CACHE_HOME: home } })).code).toBe(0);
    const [name] = cacheFiles(home);
    expect(name).toMatch(
      new RegExp(`^code-${process.version}-${process.arch}-[0-9a-f]{8}-${bundleHash().slice(0, 16)}\\.v8$`),
    );
    return name!;
  })();
  return nameOnce;
}

/** Who runs a shim: this process's user, or `uid` (and its group) through setpriv with `node`. */
interface As {
  uid: number;
  node: string;
}

/**
 * Runs `node shim ...args` with only PATH, LANG, HOME (/nonexistent unless given) and `env`
 * (no XDG_CACHE_HOME unless given), as `as` when given; killed as hung after RUN_TIMEOUT_MS.
 */
function runShim(shim: string, args: string[], env: Record<string, string>, as?: As): Promise<CliResult> {
  const argv =
    as === undefined
      ? [process.execPath, shim, ...args]
      : ['setpriv', `--reuid=${as.uid}`, `--regid=${as.uid}`, '--clear-groups', as.node, shim, ...args];
  const started = Date.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: '/nonexistent', ...env },
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collectRun(child, started, RUN_TIMEOUT_MS);
}

/** Copies what an installed petstore runs from (bin/ and dist/, no source maps) into `dir`. */
function copyPackage(dir: string): string {
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true, preserveTimestamps: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), {
    recursive: true,
    preserveTimestamps: true,
    filter: (src) => !src.endsWith('.map'),
  });
  return dir;
}

/**
 * Another build of this package in `dir`, of the same size and modification time, whose
 * `version` prints another version of the same length (what 0.1.0 -> 0.1.1 was); its
 * hash written beside it, as the build does, unless `rehash` is false (a bundle edited by
 * hand, whose hash file still names this build). Returns the copy's folder and its version.
 */
function otherBuild(dir: string, { rehash = true } = {}): { pkg: string; version: string } {
  const pkg = copyPackage(dir);
  const bundle = join(pkg, 'dist', 'petstore.cjs');
  const version = `${VERSION.slice(0, -1)}${VERSION.endsWith('9') ? '8' : '9'}`;
  const source = readFileSync(bundle, 'latin1');
  const edited = source.replace(`VERSION="${VERSION}"`, `VERSION="${version}"`);
  expect(edited).not.toBe(source);
  writeFileSync(bundle, edited, 'latin1');
  const original = join(ROOT, 'dist', 'petstore.cjs');
  expect(spawnSync('touch', ['-r', original, bundle]).status).toBe(0);
  const [was, is] = [statSync(original, { bigint: true }), statSync(bundle, { bigint: true })];
  expect([is.size, is.mtimeNs]).toEqual([was.size, was.mtimeNs]);
  if (rehash) {
    const hash = createHash('sha256').update(readFileSync(bundle)).digest('hex');
    writeFileSync(`${bundle}.sha256`, `${hash}  petstore.cjs\n`);
  }
  return { pkg, version };
}

/**
 * Flips `count` bytes of V8's data in `file` at places spread over it, past V8's own
 * header (its magic, version, flags, source length and payload length, which V8 does
 * check): damage V8 would run into.
 */
function flipBytes(file: string, count: number): void {
  const bytes = readFileSync(file);
  const start = HEADER + 64;
  const step = Math.floor((bytes.length - start) / count);
  for (let i = 0; i < count; i++) bytes[start + i * step + (i % step)]! ^= 0xa5;
  writeFileSync(file, bytes);
}

/** The lines of `stderr` that say the code cache was not used. */
const notes = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('code cache not used: '));

describe('the code cache', () => {
  it('is written by the first run, private to the user, and read by the next, which prints the same', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const first = await list(config, cacheHome);
    expect(first.code).toBe(0);
    const files = cacheFiles(cacheHome);
    expect(files).toEqual([await cacheName()]);
    const file = join(cacheHome, 'petstore', files[0]!);
    expect(isCacheOf(file, bundleHash())).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(cacheHome, 'petstore')).mode & 0o777).toBe(0o700);
    const written = statSync(file).mtimeMs;
    const second = await list(config, cacheHome);
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: first.stderr });
    // Accepted, so not written again.
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('a damaged cache (bytes flipped at 100 places, cut short, or not a cache) is never handed to V8, and is replaced', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const clean = await list(config, cacheHome);
    expect(clean.code).toBe(0);
    const file = join(cacheHome, 'petstore', await cacheName());
    const good = readFileSync(file);
    const damages: [string, () => void][] = [
      ['bytes flipped at 100 places', () => flipBytes(file, 100)],
      ['cut to half its length', () => writeFileSync(file, good.subarray(0, good.length >> 1))],
      ['its header alone', () => writeFileSync(file, good.subarray(0, HEADER))],
      ['its last byte lost', () => writeFileSync(file, good.subarray(0, -1))],
      ['not a cache', () => writeFileSync(file, Buffer.alloc(4096, 0x5a))],
    ];
    for (const [what, damage] of damages) {
      writeFileSync(file, good);
      damage();
      const damaged = readFileSync(file);
      // Twice: the run after the replacement is well too.
      for (const run of ['the run that finds it', 'the next run']) {
        const r = await list(config, cacheHome);
        expect(r, `${what}: ${run}`).toMatchObject({ code: 0, signal: null, stdout: clean.stdout, stderr: '' });
      }
      expect(readFileSync(file).equals(damaged), `${what}: replaced`).toBe(false);
      expect(isCacheOf(file, bundleHash()), `${what}: replaced by a whole cache`).toBe(true);
    }
  });

  it('a --jq run keeps one of its own, made with no V8 flag set; the next --jq run reads it, and a --json run its own', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const first = await listJq(config, cacheHome);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/^[^\n]+\n/);
    const [name] = cacheFiles(cacheHome);
    expect(name).toMatch(
      new RegExp(`^code-jq-${process.version}-${process.arch}-[0-9a-f]{8}-${bundleHash().slice(0, 16)}\\.v8$`),
    );
    const file = join(cacheHome, 'petstore', name!);
    expect(isCacheOf(file, bundleHash(), ROOT, { jq: true })).toBe(true);
    // Made with V8's flags as Node started: V8 refuses it under the flags of a run without --jq.
    expect(isCacheOf(file, bundleHash())).toBe(false);
    const written = statSync(file).mtimeMs;
    expect(await listJq(config, cacheHome)).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
    expect(statSync(file).mtimeMs).toBe(written);
    // The two kinds live side by side: neither run removes the other's.
    expect((await list(config, cacheHome)).code).toBe(0);
    expect(cacheFiles(cacheHome).sort()).toEqual([await cacheName(), name].sort());
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('a --jq run’s damaged cache, which V8 would not check, is refused by its CRC-32 and replaced', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const clean = await listJq(config, cacheHome);
    expect(clean.code).toBe(0);
    const [name] = cacheFiles(cacheHome);
    const file = join(cacheHome, 'petstore', name!);
    const good = readFileSync(file);
    for (const count of [1, 100]) {
      writeFileSync(file, good);
      flipBytes(file, count);
      const damaged = readFileSync(file);
      for (const run of ['the run that finds it', 'the next run']) {
        const r = await listJq(config, cacheHome);
        expect(r, `${count} bytes flipped: ${run}`).toMatchObject({
          code: 0,
          signal: null,
          stdout: clean.stdout,
          stderr: '',
        });
      }
      expect(readFileSync(file).equals(damaged), `${count} bytes flipped: replaced`).toBe(false);
      expect(isCacheOf(file, bundleHash(), ROOT, { jq: true }), `${count} bytes flipped: by a whole cache`).toBe(true);
    }
  });

  it('the cache of another build of the same size and time is not this build’s: `version` prints this one’s', async () => {
    const cacheHome = tempDir('petstore-cache-');
    const other = otherBuild(tempDir());
    const env = { XDG_CACHE_HOME: cacheHome };
    expect(await runShim(join(other.pkg, 'bin', 'petstore.js'), ['version'], env)).toMatchObject({
      code: 0,
      stdout: `${other.version}\n`,
    });
    const [otherCache] = cacheFiles(cacheHome);
    expect(isCacheOf(join(cacheHome, 'petstore', otherCache!), bundleHash(other.pkg), other.pkg)).toBe(true);
    // An upgrade of the same size and time (npm's tarballs all date from 1985) finds it.
    const r = await runShim(CLI, ['version'], env);
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const name = await cacheName();
    expect(cacheFiles(cacheHome)).toEqual([name]);
    const file = join(cacheHome, 'petstore', name);
    expect(isCacheOf(file, bundleHash())).toBe(true);

    // Even under this build's name, the other build's cache is refused, and replaced.
    const foreign = tempDir('petstore-cache-');
    const made = await runShim(join(other.pkg, 'bin', 'petstore.js'), ['version'], { XDG_CACHE_HOME: foreign });
    expect(made.code).toBe(0);
    writeFileSync(file, readFileSync(join(foreign, 'petstore', cacheFiles(foreign)[0]!)));
    expect((await runShim(CLI, ['version'], env)).stdout).toBe(`${VERSION}\n`);
    expect(isCacheOf(file, bundleHash())).toBe(true);
    expect((await runShim(CLI, ['version'], env)).stdout).toBe(`${VERSION}\n`);
  });

  it('a bundle edited by hand, its hash file left as built, writes no cache for its build to run', async () => {
    const cacheHome = tempDir('petstore-cache-');
    const edited = otherBuild(tempDir(), { rehash: false });
    const env = { XDG_CACHE_HOME: cacheHome };
    for (let i = 0; i < 2; i++) {
      const r = await runShim(join(edited.pkg, 'bin', 'petstore.js'), ['version'], env);
      expect(r).toMatchObject({ code: 0, stdout: `${edited.version}\n`, stderr: '' });
    }
    expect(readdirSync(cacheHome)).toEqual([]);
    expect(await runShim(CLI, ['version'], env)).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
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
    const name = await cacheName();
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

  it('a symlinked cache file is not followed, and a FIFO there does not hang the run: both are replaced', async () => {
    const config = tempDir();
    const cacheHome = tempDir('petstore-cache-');
    const clean = await list(config, cacheHome);
    const file = join(cacheHome, 'petstore', await cacheName());
    // A whole cache of this build behind the link: followed, it would be used and kept.
    const target = join(tempDir(), 'target.v8');
    copyFileSync(file, target);
    const before = readFileSync(target);
    symlinkSync(target, `${file}.link`);
    renameSync(`${file}.link`, file);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(await list(config, cacheHome)).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
    expect(lstatSync(file).isFile()).toBe(true);
    expect(isCacheOf(file, bundleHash())).toBe(true);
    expect(readFileSync(target).equals(before)).toBe(true);

    rmSync(file);
    expect(spawnSync('mkfifo', ['-m', '600', file]).status).toBe(0);
    const r = await list(config, cacheHome);
    expect(r.timedOut).toBeUndefined();
    expect(r).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
    expect(lstatSync(file).isFile()).toBe(true);
    expect(isCacheOf(file, bundleHash())).toBe(true);
  });

  it('a symlinked cache folder is neither read nor written; --verbose says why, once', async () => {
    const config = tempDir();
    const real = tempDir('petstore-cache-');
    const clean = await list(config, real);
    const linkedHome = tempDir('petstore-cache-');
    symlinkSync(join(real, 'petstore'), join(linkedHome, 'petstore'));
    const before = statSync(join(real, 'petstore', await cacheName())).mtimeMs;
    const r = await list(config, linkedHome, { PETSTORE_DEBUG: '1' });
    expect(r).toMatchObject({ code: 0, stdout: clean.stdout });
    expect(notes(r.stderr)).toEqual([
      `code cache not used: ${join(linkedHome, 'petstore')} is a symbolic link: remove it`,
    ]);
    expect(cacheFiles(real)).toEqual([await cacheName()]);
    expect(statSync(join(real, 'petstore', await cacheName())).mtimeMs).toBe(before);
    // Without --verbose, nothing is said.
    expect(await list(config, linkedHome)).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
  });

  it('a cache folder or file writable by group or others is neither used nor written; --verbose says why, once', async () => {
    const cacheHome = tempDir('petstore-cache-');
    const env = { XDG_CACHE_HOME: cacheHome };
    expect((await runShim(CLI, ['version'], env)).code).toBe(0);
    const folder = join(cacheHome, 'petstore');
    const file = join(folder, await cacheName());
    // Damaged where V8 would crash on it: only the rule keeps it from V8 here.
    flipBytes(file, 100);
    const damaged = readFileSync(file);
    /** A verbose run once `path` has `mode`: it works, says why the cache is not used, and leaves the file alone. */
    const refusedWhen = async (path: string, mode: number): Promise<void> => {
      chmodSync(path, mode);
      const r = await runShim(CLI, ['--verbose', 'version'], env);
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
      const shown = mode.toString(8).padStart(4, '0');
      expect(notes(r.stderr)).toEqual([
        `code cache not used: ${path} is writable by group or others (mode ${shown}): chmod go-w ${path}`,
      ]);
      expect(readFileSync(file).equals(damaged)).toBe(true);
    };
    await refusedWhen(folder, 0o777);
    chmodSync(folder, 0o700);
    await refusedWhen(file, 0o620);
    expect(cacheFiles(cacheHome)).toEqual([await cacheName()]);
  });
});

// Another user is played with setpriv, which root alone may use.
const AS_ROOT = process.platform === 'linux' && process.geteuid?.() === 0;
const HAS_SETPRIV = spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
if (!AS_ROOT || !HAS_SETPRIV) {
  console.log(
    `code-cache.test.ts: the tests of another user's cache are skipped: they need ${AS_ROOT ? 'setpriv (util-linux)' : 'root, to play other users with setpriv'}`,
  );
}

describe.skipIf(!AS_ROOT || !HAS_SETPRIV)('another user’s cache (setpriv as uid 1001)', () => {
  const ATTACKER = 1001;
  /** Where the other users run from: a copy of the package they can read. */
  let shared: string;
  let node: string;
  let shim: string;
  let other: { pkg: string; version: string };

  beforeAll(() => {
    shared = tempDir('petstore-shared-');
    chmodSync(shared, 0o755);
    shim = join(copyPackage(join(shared, 'petstore')), 'bin', 'petstore.js');
    other = otherBuild(join(shared, 'other'));
    spawnSync('chmod', ['-R', 'a+rX', shared]);
    // This Node, unless another user cannot reach it (under root's home): then a copy.
    node = process.execPath;
    if (
      spawnSync('setpriv', [`--reuid=${ATTACKER}`, `--regid=${ATTACKER}`, '--clear-groups', node, '-e', '0']).status !==
      0
    ) {
      node = join(shared, 'node');
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
    }
  });

  /** uid 1001's cache for this build under this build's name: V8's code of the other build. */
  async function plant(cacheHome: string): Promise<string> {
    const as = { uid: ATTACKER, node };
    const made = await runShim(join(other.pkg, 'bin', 'petstore.js'), ['version'], { XDG_CACHE_HOME: cacheHome }, as);
    expect(made).toMatchObject({ code: 0, stdout: `${other.version}\n` });
    const folder = join(cacheHome, 'petstore');
    const [made1] = readdirSync(folder);
    const planted = join(folder, await cacheName());
    // The header rewritten to name this build; V8's data, and so its checksum, unchanged.
    const forge = `const fs = require('fs'); const b = fs.readFileSync(process.argv[1]);
      Buffer.from(process.argv[3], 'hex').copy(b, 8); fs.writeFileSync(process.argv[2], b, { mode: 0o644 });
      fs.chmodSync(process.argv[2], 0o644); fs.chmodSync(process.argv[4], 0o755);`;
    const r = spawnSync('setpriv', [
      `--reuid=${ATTACKER}`,
      `--regid=${ATTACKER}`,
      '--clear-groups',
      node,
      '-e',
      forge,
      join(folder, made1!),
      planted,
      bundleHash(),
      folder,
    ]);
    expect(r.status, r.stderr.toString()).toBe(0);
    expect(statSync(planted).uid).toBe(ATTACKER);
    expect(isCacheOf(planted, bundleHash(), other.pkg)).toBe(true);
    return planted;
  }

  /** The names, owners, sizes and times of everything under `dir`. */
  function snapshot(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .sort()
      .map((f) => {
        const s = lstatSync(join(dir, f));
        return `${f} ${s.uid} ${s.mode.toString(8)} ${s.size} ${s.mtimeMs}`;
      });
  }

  it('planted in a shared XDG_CACHE_HOME: neither root nor another user runs it; --verbose says why, once', async () => {
    const cacheHome = tempDir('petstore-xdg-');
    chmodSync(cacheHome, 0o1777);
    const planted = await plant(cacheHome);
    const folder = join(cacheHome, 'petstore');

    // Trusted, the planted cache runs the other build's code: only the rule stops it.
    const own = tempDir('petstore-cache-');
    mkdirSync(join(own, 'petstore'), { mode: 0o700 });
    // Written, not copied: libuv's copy keeps the owner.
    writeFileSync(join(own, 'petstore', await cacheName()), readFileSync(planted), { mode: 0o600 });
    expect((await runShim(shim, ['version'], { XDG_CACHE_HOME: own })).stdout).toBe(`${other.version}\n`);

    const before = snapshot(cacheHome);
    for (const victim of [undefined, { uid: 1002, node }]) {
      const who = victim === undefined ? 'root' : 'uid 1002';
      const r = await runShim(shim, ['version'], { XDG_CACHE_HOME: cacheHome }, victim);
      expect(r, who).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
      const v = await runShim(shim, ['--verbose', 'version'], { XDG_CACHE_HOME: cacheHome }, victim);
      expect(v, who).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
      const you = victim === undefined ? 'you (uid 0)' : 'you (uid 1002) or root';
      expect(notes(v.stderr), who).toEqual([
        `code cache not used: ${folder} is owned by uid ${ATTACKER}, not by ${you}: set XDG_CACHE_HOME to a folder of your own`,
      ]);
      expect(snapshot(cacheHome), `${who} wrote nothing`).toEqual(before);
    }
  });

  it('sudo -E: root with the user’s HOME neither uses nor writes the user’s cache', async () => {
    const home = tempDir('petstore-home-');
    chownSync(home, ATTACKER, ATTACKER);
    chmodSync(home, 0o755);
    // No cache folder yet: root does not make one in the user's home.
    const fresh = await runShim(shim, ['--verbose', 'version'], { HOME: home });
    expect(fresh).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    expect(notes(fresh.stderr)).toEqual([
      `code cache not used: ${home} is owned by uid ${ATTACKER}, not by you (uid 0): set XDG_CACHE_HOME to a folder of your own`,
    ]);
    expect(readdirSync(home)).toEqual([]);

    // The user's own cache folder, with a cache that is not this build's code.
    const planted = await plant(join(home, '.cache'));
    expect(planted.startsWith(join(home, '.cache', 'petstore'))).toBe(true);
    const before = snapshot(home);
    const r = await runShim(shim, ['version'], { HOME: home });
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const v = await runShim(shim, ['--verbose', 'version'], { HOME: home });
    expect(notes(v.stderr)).toEqual([
      `code cache not used: ${join(home, '.cache', 'petstore')} is owned by uid ${ATTACKER}, not by you (uid 0): set XDG_CACHE_HOME to a folder of your own`,
    ]);
    expect(snapshot(home)).toEqual(before);
  });
});

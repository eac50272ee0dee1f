#!/usr/bin/env node
// Shim: run the built CLI (dist/petstore.cjs, one CommonJS file, loaded with V8's code
// cache: loadWithCodeCache), which exits with its code once stdout and stderr are flushed.
// CommonJS (bin/package.json), because Node starts a CommonJS entry faster than an ES
// module one. The standalone executable (scripts/build-exe.mjs) runs this file as its main
// script, with the bundle and its hash inside it as assets (executableBundle).
//
// Fast path: `--version`, `-V`, `--help` and `-h` alone print text captured from the full
// path at build time (dist/static/, see scripts/build.mjs), so they cost little more than
// starting Node; test/e2e/fast-path.test.ts proves both paths print the same bytes. Help
// was captured at 80 columns, the width it has when stdout is not a terminal: a terminal
// of another width takes the full path, which wraps help at its width, and so does one
// with fewer rows than help has lines, where the full path pages it (cli-contract.md
// "Output").
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Set by scripts/build-exe.mjs in the executable: the fast path's texts, and `true`. */
/* global __PETSTORE_STATIC__, __PETSTORE_SEA__ */
const EMBEDDED = typeof __PETSTORE_STATIC__ === 'object' ? __PETSTORE_STATIC__ : undefined;
const IN_EXECUTABLE = typeof __PETSTORE_SEA__ === 'boolean';

/** The code cache file's format and its version (codeCacheHeader), and its header's length. */
const CODE_CACHE_MAGIC = Buffer.from('PSV8CC04', 'latin1');
const CODE_CACHE_HEADER = 52;
/** Far more than any cache petstore writes (about 1 MB): a larger file is replaced unread. */
const CODE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The V8 flags every run sets (runCli): undici's HTTP parser and jq are WebAssembly, which
 * V8 compiles with Liftoff, then again with TurboFan on background threads that process
 * exit waits for: about 100 ms and 35 MiB per run, for a parser that reads a few kilobytes
 * (docs/performance.md). Liftoff code is plenty. Node 20's V8 derives the other two from
 * `--liftoff-only`; Node 24's does so only at start-up, so they are named. RESET_WASM_FLAGS
 * sets all three back to V8's defaults.
 */
const WASM_FLAGS = '--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering';
const RESET_WASM_FLAGS = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';

const argv = process.argv.slice(2);
const STATIC = { '--version': 'version.txt', '-V': 'version.txt', '--help': 'help.txt', '-h': 'help.txt' };
const HELP_COLUMNS = 80;
/**
 * Whether `text`, the fast path's `file`, is printed as it is: anything but help; help when
 * stdout is not a terminal, or is one of 80 columns whose screen it fits, with a row left
 * for the prompt (Io's wouldPage). isatty(1) first: `process.stdout` (a stream made on first
 * use) is needed only on a terminal.
 */
const fits = (file, text) => {
  if (file !== 'help.txt' || !require('node:tty').isatty(1)) return true;
  const { columns, rows } = process.stdout;
  return columns === HELP_COLUMNS && rows !== undefined && text.split('\n').length - 1 <= rows - 1;
};
let text;
if (argv.length === 1 && Object.hasOwn(STATIC, argv[0])) {
  const file = STATIC[argv[0]];
  try {
    text = EMBEDDED?.[file] ?? readFileSync(join(__dirname, '..', 'dist', 'static', file), 'utf8');
  } catch {
    // Built without static outputs: the full path prints the same.
  }
  if (text !== undefined && !fits(file, text)) text = undefined;
}
if (text !== undefined) {
  printStatic(text);
} else if (wantsJq(argv)) {
  runCli(startJqWorker());
} else {
  runCli();
}

/**
 * Whether the command line asks for `--jq` (before a `--`). A guess is enough: a value
 * that happens to read `--jq` only starts a thread that the run never uses.
 */
function wantsJq(args) {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--jq' || arg.startsWith('--jq=')) return true;
  }
  return false;
}

/**
 * Starts `--jq`'s worker thread (src/render/jq.ts takes it over: jqWorkerFromShim) first of
 * all, and returns a promise of the moment WASM_FLAGS are set. A thread that starts while
 * V8's flags differ from those Node started with compiles Node's own modules without their
 * code cache: about twice the start's time (docs/performance.md). So the thread sets
 * WASM_FLAGS itself once it has started, before jq runs, and the bundle meanwhile
 * loads with no flag set (runCli). Until it is taken, the shim keeps what the thread says
 * (its `ready`, or why it failed: events no one else would hear), and, once the flags are
 * set, leaves it unreferenced, so that a run that never reaches jq ends then. A thread
 * that fails to start still settles the promise, the flags then set here.
 */
function startJqWorker() {
  const { Worker } = require('node:worker_threads');
  const workerData = { wasm: IN_EXECUTABLE ? 'sea' : join(__dirname, '..', 'dist', 'jq.wasm'), v8Flags: WASM_FLAGS };
  let worker;
  try {
    worker = IN_EXECUTABLE
      ? new Worker(require('node:sea').getAsset('jq-worker.cjs', 'utf8'), {
          eval: true,
          stdout: true,
          stderr: true,
          env: {},
          workerData,
        })
      : new Worker(join(__dirname, '..', 'dist', 'jq-worker.cjs'), { stdout: true, stderr: true, env: {}, workerData });
  } catch {
    // The CLI starts its own.
    require('node:v8').setFlagsFromString(WASM_FLAGS);
    return Promise.resolve();
  }
  // The flags are said once, by the thread, or here when it ends first. Until then the thread
  // holds the process (a request waits for them: src/base/shim.ts); then only once taken.
  let taken = false;
  let flagsSet;
  const flags = new Promise((resolve) => (flagsSet = resolve));
  const setHere = () => {
    require('node:v8').setFlagsFromString(WASM_FLAGS);
    flagsSet();
  };
  const onFlags = (answer) => answer?.v8Flags === true && flagsSet();
  worker.on('message', onFlags).once('error', setHere).once('exit', setHere);
  flags.then(() => {
    worker.off('message', onFlags).off('error', setHere).off('exit', setHere);
    if (!taken) worker.unref();
  });
  // Until the CLI takes the thread: what it says, and why it ended, kept for the CLI.
  const early = [];
  const keep = (answer) => answer?.v8Flags !== true && early.push(answer);
  const onError = (err) => early.push({ failure: err && err.message ? err.message : String(err) });
  const onExit = () => early.push({ failure: 'the jq worker stopped' });
  worker.on('message', keep).on('error', onError).on('exit', onExit);
  const release = () => {
    taken = true;
    worker.off('message', keep).off('error', onError).off('exit', onExit);
  };
  globalThis[Symbol.for('petstore.jqWorker')] = { worker, early, release };
  return flags;
}

/**
 * Loads the built CLI (with its code cache) and runs it on argv. `wasmFlags`, for a `--jq`
 * run, is the promise of the jq thread setting WASM_FLAGS (startJqWorker): until then the
 * bundle loads with none (its own code cache: loadWithCodeCache), and the CLI sends no
 * request before it settles (src/base/shim.ts). Any other run sets them now.
 */
function runCli(wasmFlags) {
  if (wasmFlags === undefined) require('node:v8').setFlagsFromString(WASM_FLAGS);
  else globalThis[Symbol.for('petstore.wasmFlags')] = wasmFlags;
  // petstore lets NO_COLOR win over FORCE_COLOR (no-color.org; see src/io/io.ts). Node >= 22
  // warns, when both are set, that it ignores NO_COLOR for its own colours, which would
  // tell the user the opposite of what petstore does; that one warning is dropped.
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    if (typeof warning === 'string' && warning.includes("'NO_COLOR' env is ignored")) return;
    return emitWarning.call(process, warning, ...rest);
  };
  let cli;
  let codeCacheNote;
  try {
    const bundle = IN_EXECUTABLE ? executableBundle() : installedBundle();
    ({ exports: cli, note: codeCacheNote } = loadWithCodeCache(bundle, { flagsHeld: wasmFlags !== undefined }));
  } catch (err) {
    // A clone where `npm install` (which builds through `prepare`) has not run yet.
    if (err && err.code === 'ENOENT' && !require('node:fs').existsSync(join(__dirname, '..', 'dist'))) {
      process.stderr.write('petstore is not built: run npm install (or npm run build) in its folder\n');
    } else {
      process.stderr.write(`petstore cannot start: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  }
  // The CLI says the note under --verbose: only it knows, once its flags are parsed.
  if (cli !== undefined) cli.run(argv, { codeCacheNote });
}

/**
 * Writes a fast-path text to stdout as the full path would: a closed stdout ends the run
 * quietly with exit 0; any other failure to write (a full disk) is exit 1 with the reason,
 * never a stack trace. A direct write(2) spares creating `process.stdout` (a few ms of
 * this path's ~25); a non-blocking stdout that is full (EAGAIN) gets the rest through
 * `process.stdout`, which waits.
 */
function printStatic(text) {
  const fail = (err) => {
    if (err.code === 'EPIPE') return;
    const why = err.code === 'ENOSPC' ? 'no space left on the device' : err.message;
    process.stderr.write(`error: cannot write to stdout: ${why}\n`);
    process.exitCode = 1;
  };
  const { writeSync } = require('node:fs');
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
  } catch (err) {
    if (err.code !== 'EAGAIN') return fail(err);
    process.stdout.on('error', () => undefined);
    process.stdout.write(rest, (e) => e && fail(e));
  }
}

/**
 * The bundle of an installed copy: dist/petstore.cjs beside this file's folder, its hash in
 * dist/petstore.cjs.sha256 (written by the build), and a `require` of its own place (the
 * loader's createRequire: the `node:module` built-in is the same class, and requiring it
 * would load it and its source-map support for one function).
 * @throws the read's error (ENOENT when petstore is not built).
 */
function installedBundle() {
  const file = join(__dirname, '..', 'dist', 'petstore.cjs');
  return {
    file,
    source: readFileSync(file, 'utf8'),
    hashLine: () => readFileSync(`${file}.sha256`, 'latin1'),
    hashName: `${file}.sha256`,
    require: module.constructor.createRequire(file),
    kind: '',
  };
}

/**
 * The bundle inside the standalone executable: the same dist/petstore.cjs and its hash, as
 * SEA assets (scripts/build-exe.mjs), run as this script's own code would be (its `require`,
 * the executable's path as `__filename`). Loaded through loadWithCodeCache as an installed
 * copy is: the code cache V8 can make when the executable is built holds only what is
 * compiled before anything runs, and the functions a run compiles cost more than that.
 */
function executableBundle() {
  const { getAsset } = require('node:sea');
  return {
    file: process.execPath,
    source: getAsset('petstore.cjs', 'utf8'),
    hashLine: () => getAsset('petstore.cjs.sha256', 'utf8'),
    hashName: "the executable's petstore.cjs.sha256",
    require,
    // Its own caches: a copy installed under the same Node, of another build, is not told to
    // remove them (saveCodeCache removes older caches of its own kind and Node).
    kind: 'exe-',
  };
}

/**
 * Loads the bundle (one CommonJS script: installedBundle, executableBundle) the way Node's
 * loader would, with V8's code cache:
 * the compiled code of the functions a run used is kept in petstore's cache directory
 * (XDG Base Directory: $XDG_CACHE_HOME/petstore when that is an absolute path, else
 * ~/.cache/petstore) and handed to V8 on the next run, which then skips compiling them.
 * Node 20 has no compile cache of its own, and Node >= 22's (module.enableCompileCache)
 * caches only what is compiled before the code runs: this one, written once the run is
 * over, measured faster on both (docs/performance.md). What the cache must pass before V8
 * sees it is openCodeCache's; it is written at exit when there was none that passed, or V8
 * rejected it. A cache that cannot be read or written only costs the speed.
 * NODE_DISABLE_COMPILE_CACHE (Node's own switch) turns it off. Both variables are declared
 * in src/config/env-vars.ts (`readBy: 'shim'`): this file runs before the CLI, and reads
 * them itself.
 * `bundle` is `{ file, source, hashLine, hashName, require, kind }`: the path that names it
 * (its `__filename`, and in stack traces), its text, a function reading its hash file (the
 * key of its cache) and that file's name for messages, the `require` it is given, and a
 * word in its cache files' names. `flagsHeld` is true when no V8 flag may be set yet (a
 * `--jq` run: startJqWorker): the cache is then of the `jq-` kind, its CRC-32 checked here.
 * Returns `{ exports, note }`: the bundle's exports, and why the cache was not used at all
 * (one line, for --verbose), or undefined.
 */
function loadWithCodeCache(bundle, { flagsHeld }) {
  const vm = require('node:vm');
  const { dirname } = require('node:path');
  const { file, source } = bundle;
  // A yes-or-no variable, read by the registry's rule (src/config/env-vars.ts): set and not
  // `0` or `false`.
  const off = /^(?!0$|false$)./i.test(process.env.NODE_DISABLE_COMPILE_CACHE ?? '');
  // V8 then writes a checksum (Adler-32) of its data into every cache it makes and checks it
  // before using one: a damaged cache is rejected, where a release build would crash on it.
  // The flag is part of V8's version tag (in the cache's name) and of the flags V8 checks,
  // so a cache made without it is never read with it. Set before the tag is read. A `--jq`
  // run holds every flag back while jq's thread starts (startJqWorker): its cache is one of
  // its own kind, made and read with V8's flags as Node started, whose data the shim checks
  // itself (the header's CRC-32).
  if (!off && !flagsHeld) require('node:v8').setFlagsFromString('--verify-snapshot-checksum');
  const kind = flagsHeld ? { ...bundle, kind: `${bundle.kind}jq-`, checkCrc: true } : bundle;
  const cache = off ? undefined : openCodeCache(kind);
  // Node's own module wrapper, on a line of its own so that line numbers stay the file's.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, lineOffset: -1, cachedData: cache?.data });
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(mod.exports, mod.exports, bundle.require, mod, file, dirname(file));
  mod.loaded = true;
  if (cache?.writable && (cache.data === undefined || script.cachedDataRejected)) {
    process.once('exit', () => saveCodeCache(script, cache, source, flagsHeld));
  }
  return { exports: mod.exports, note: cache?.note };
}

/**
 * The code cache file: a header of CODE_CACHE_HEADER bytes, then V8's data. V8 checks its
 * version, its flags, the source's length and, with `--verify-snapshot-checksum`
 * (loadWithCodeCache), an Adler-32 of its data; the header adds what V8 cannot know:
 *   0  8 bytes   CODE_CACHE_MAGIC (the format and its version)
 *   8  32 bytes  SHA-256 of the bundle it was made from (dist/petstore.cjs.sha256, by the build)
 *  40  4 bytes   v8.cachedDataVersionTag() of the V8 that made it
 *  44  4 bytes   the length of V8's data in bytes
 *  48  4 bytes   CRC-32 (ISO-HDLC, zlib's) of V8's data
 * Numbers are little-endian. The checksum a run checks is V8's own where it can be, rather
 * than a hash of the data: hashing needs `node:crypto` or `node:zlib`, whose loading costs a
 * run 3 to 5 ms (docs/performance.md "The code cache"); the file is written whole by this
 * user alone (distrust, saveCodeCache), so what a checksum must catch is a disk's damage,
 * which Adler-32 over a megabyte does. A `--jq` run, whose V8 cannot check its own
 * (loadWithCodeCache), checks the CRC-32.
 */
function codeCacheHeader(key, data) {
  const header = Buffer.alloc(CODE_CACHE_HEADER);
  CODE_CACHE_MAGIC.copy(header, 0);
  key.bundleHash.copy(header, 8);
  header.writeUInt32LE(key.tag, 40);
  header.writeUInt32LE(data.length, 44);
  header.writeUInt32LE(require('node:zlib').crc32(data), 48);
  return header;
}

/**
 * V8's data in `bytes` (a whole cache file), or undefined unless the header
 * (codeCacheHeader) names this format, this bundle (`key.bundleHash`) and this V8
 * (`key.tag`), and gives the length the file has, and, with `checkCrc`, the CRC-32 its
 * data has: a cut short or foreign file is never handed to V8, and V8's checksum (or the
 * CRC-32) rejects a damaged one.
 */
function verifiedCodeCache(bytes, key, checkCrc) {
  if (bytes.length <= CODE_CACHE_HEADER) return undefined;
  const data = bytes.subarray(CODE_CACHE_HEADER);
  const ok =
    bytes.subarray(0, 8).equals(CODE_CACHE_MAGIC) &&
    bytes.subarray(8, 40).equals(key.bundleHash) &&
    bytes.readUInt32LE(40) === key.tag &&
    bytes.readUInt32LE(44) === data.length &&
    (!checkCrc || bytes.readUInt32LE(48) === require('node:zlib').crc32(data));
  return ok ? data : undefined;
}

/**
 * Why `stats` (an lstat or fstat of `path`) may not be trusted, as one line ending with
 * `fix`, or undefined when it may: ssh's StrictModes rule (sshd_config(5)) for files it
 * reads: owned by the effective user or root, and not writable by group or others. Where
 * there is no POSIX owner (Windows: geteuid is undefined) everything passes; the cache
 * lives in the profile, private by its ACL.
 */
function distrust(stats, path, fix) {
  if (process.geteuid === undefined) return undefined;
  const euid = process.geteuid();
  if (stats.uid !== euid && stats.uid !== 0) {
    return `${path} is owned by uid ${stats.uid}, not by you (uid ${euid})${euid === 0 ? '' : ' or root'}: ${fix}`;
  }
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o7777).toString(8).padStart(4, '0');
    return `${path} is writable by group or others (mode ${mode}): chmod go-w ${path}`;
  }
  return undefined;
}

/**
 * Finds the code cache of `bundle` (loadWithCodeCache) for this Node and reads it, trusting nothing
 * in the cache folder (the rule: distrust); with `bundle.checkCrc`, the header's CRC-32 of
 * the data must match too (a cache V8 reads without its own checksum). Returns
 *   { dir, prefix, path, key: { bundleHash, tag }, writable: true, data }: `data` is V8's
 *     data when a cache passed (verifiedCodeCache), else undefined, and then the run
 *     writes one at exit (saveCodeCache) over whatever is there;
 *   { writable: false, note }: the cache is not used at all, nothing read nor written:
 *     the folder or the file fails the rule, the folder is a link or not a folder, it
 *     would be made in someone else's folder, or the bundle's hash is missing. `note` is
 *     that reason, one line, for --verbose.
 * The file's name holds Node's version, the architecture, V8's version tag (version, flags,
 * CPU features) and the bundle's hash, so another Node, other flags or another build each
 * have their own. Nothing in the folder is followed: the file is opened with O_NOFOLLOW
 * (and O_NONBLOCK, so that a FIFO does not block) and judged by fstat of what was opened.
 */
function openCodeCache(bundle) {
  const fs = require('node:fs');
  const { dirname } = require('node:path');
  const notUsed = (why) => ({ writable: false, note: `code cache not used: ${why}` });
  const yours = 'set XDG_CACHE_HOME to a folder of your own';
  let bundleHash;
  try {
    const line = /^([0-9a-f]{64}) /.exec(bundle.hashLine());
    if (line !== null) bundleHash = Buffer.from(line[1], 'hex');
  } catch {
    // Said below.
  }
  if (bundleHash === undefined) return notUsed(`${bundle.hashName} is missing or damaged: rebuild petstore`);
  const xdg = process.env.XDG_CACHE_HOME;
  const dir = join(
    xdg !== undefined && xdg.startsWith('/') ? xdg : join(require('node:os').homedir(), '.cache'),
    'petstore',
  );
  const key = { bundleHash, tag: require('node:v8').cachedDataVersionTag() };
  const prefix = `code-${bundle.kind}${process.version}-${process.arch}-`;
  const name = `${prefix}${key.tag.toString(16).padStart(8, '0')}-${bundleHash.toString('hex', 0, 8)}.v8`;
  const cache = { dir, prefix, path: join(dir, name), key, writable: true, data: undefined, note: undefined };
  let folder;
  try {
    folder = fs.lstatSync(dir);
  } catch (err) {
    if (err.code !== 'ENOENT') return notUsed(err.message);
    // Made at exit, but never in someone else's folder (root under `sudo -E` keeps the
    // caller's HOME): their cache would end up owned by root.
    for (let parent = dirname(dir); ; parent = dirname(parent)) {
      let owner;
      try {
        owner = fs.statSync(parent).uid;
      } catch (e) {
        if (e.code === 'ENOENT' && dirname(parent) !== parent) continue;
        return notUsed(e.message);
      }
      const blocked = distrust({ uid: owner, mode: 0 }, parent, yours);
      return blocked === undefined ? cache : notUsed(blocked);
    }
  }
  if (!folder.isDirectory()) {
    return notUsed(`${dir} is ${folder.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: remove it`);
  }
  const why = distrust(folder, dir, yours);
  if (why !== undefined) return notUsed(why);
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd;
  try {
    fd = fs.openSync(cache.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    // None yet (ENOENT), or a symbolic link (ELOOP), not followed: this run writes one.
    return cache;
  }
  try {
    const stats = fs.fstatSync(fd);
    // A FIFO, a device or a folder is replaced, as a damaged file is.
    if (!stats.isFile()) return cache;
    const bad = distrust(stats, cache.path, 'remove it');
    if (bad !== undefined) return notUsed(bad);
    if (stats.size < CODE_CACHE_HEADER || stats.size > CODE_CACHE_MAX_BYTES) return cache;
    const bytes = Buffer.allocUnsafe(stats.size);
    let got = 0;
    for (let n = -1; got < bytes.length && n !== 0; got += n) {
      n = fs.readSync(fd, bytes, got, bytes.length - got, got);
    }
    cache.data = verifiedCodeCache(bytes.subarray(0, got), key, bundle.checkCrc === true);
  } catch {
    // Unreadable: replaced.
  } finally {
    fs.closeSync(fd);
  }
  return cache;
}

/**
 * Writes the code cache of what this run compiled from `source` (codeCacheHeader, then V8's
 * data), replacing older ones of this Node and kind; with `flagsHeld` (a `--jq` run), only
 * once V8's WebAssembly flags are back to their defaults. Only when `source` is the bundle its hash file
 * names: a bundle edited without rebuilding never writes a cache under its build's hash for
 * other copies of that build to run (hashing it costs about 2 ms, at exit, only then). The
 * cache directory must be a directory (not a symlink to one elsewhere) that passes the rule
 * (distrust); the data goes to a temp file of an unpredictable name created exclusively
 * without following a symlink (O_EXCL|O_NOFOLLOW), written in full, then renamed over the
 * cache file (a link or FIFO there is replaced, not followed); the temp file is removed if
 * anything fails: no file petstore does not own is ever written through, and no reader sees
 * half a file.
 */
function saveCodeCache(script, cache, source, flagsHeld) {
  const fs = require('node:fs');
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  let temp;
  let fd;
  try {
    if (!require('node:crypto').hash('sha256', source, 'buffer').equals(cache.key.bundleHash)) return;
    // A `--jq` run's cache is read with V8's flags as Node started (loadWithCodeCache), and
    // V8 writes the flags of the moment into it: they are set back first, and nothing is
    // written unless V8's tag says they are back.
    if (flagsHeld) {
      const v8 = require('node:v8');
      v8.setFlagsFromString(RESET_WASM_FLAGS);
      if (v8.cachedDataVersionTag() !== cache.key.tag) return;
    }
    fs.mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const dir = fs.lstatSync(cache.dir);
    if (!dir.isDirectory() || distrust(dir, cache.dir, '') !== undefined) return;
    const data = script.createCachedData();
    const header = codeCacheHeader(cache.key, data);
    temp = join(cache.dir, `.${require('node:crypto').randomBytes(8).toString('hex')}.tmp`);
    fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    // A short write (a full disk) leaves the temp file to be removed, never renamed.
    if (fs.writevSync(fd, [header, data]) !== header.length + data.length) return;
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, cache.path);
    temp = undefined;
    for (const name of fs.readdirSync(cache.dir)) {
      const other = join(cache.dir, name);
      if (!name.startsWith(cache.prefix) || other === cache.path) continue;
      try {
        fs.rmSync(other, { force: true });
      } catch {
        // Not a file of ours (a folder): left alone.
      }
    }
  } catch {
    // A cache is an optimisation: no cache, same result.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    if (temp !== undefined) fs.rmSync(temp, { force: true });
  }
}

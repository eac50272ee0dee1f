#!/usr/bin/env node
// Shim: run the built CLI (dist/petstore.cjs, one CommonJS file, loaded with V8's code
// cache: loadWithCodeCache), which exits with its code once stdout and stderr are flushed.
// CommonJS (bin/package.json), because Node starts a CommonJS entry faster than an ES
// module one. The standalone executable (scripts/build-exe.mjs) is this file with the
// bundle inside it.
//
// Fast path: `--version`, `-V`, `--help` and `-h` alone print text captured from the full
// path at build time (dist/static/, see scripts/build.mjs), so they cost little more than
// starting Node; test/e2e/fast-path.test.ts proves both paths print the same bytes. Help
// was captured at 80 columns, the width it has when stdout is not a terminal: a terminal
// of another width takes the full path, which wraps help at its width.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Set by scripts/build-exe.mjs in the executable: the fast path's texts, and `true`. */
/* global __PETSTORE_STATIC__, __PETSTORE_SEA__ */
const EMBEDDED = typeof __PETSTORE_STATIC__ === 'object' ? __PETSTORE_STATIC__ : undefined;
const IN_EXECUTABLE = typeof __PETSTORE_SEA__ === 'boolean';

const argv = process.argv.slice(2);
const STATIC = { '--version': 'version.txt', '-V': 'version.txt', '--help': 'help.txt', '-h': 'help.txt' };
const HELP_COLUMNS = 80;
// isatty(1) first: `process.stdout` (a stream made on first use) is needed only on a terminal.
const fits = (file) => file !== 'help.txt' || !require('node:tty').isatty(1) || process.stdout.columns === HELP_COLUMNS;
let text;
if (argv.length === 1 && Object.hasOwn(STATIC, argv[0]) && fits(STATIC[argv[0]])) {
  try {
    text =
      EMBEDDED?.[STATIC[argv[0]]] ?? readFileSync(join(__dirname, '..', 'dist', 'static', STATIC[argv[0]]), 'utf8');
  } catch {
    // Built without static outputs: the full path prints the same.
  }
}
if (text !== undefined) {
  printStatic(text);
} else {
  // undici's HTTP parser is WebAssembly. V8 compiles it with Liftoff, then again with
  // TurboFan on background threads, and process exit waits for those: about 100 ms and
  // 35 MiB per run, for a parser that reads a few kilobytes. Liftoff code is plenty.
  require('node:v8').setFlagsFromString('--liftoff-only');
  // petstore lets NO_COLOR win over FORCE_COLOR (no-color.org; see src/io.ts). Node >= 22
  // warns, when both are set, that it ignores NO_COLOR for its own colours, which would
  // tell the user the opposite of what petstore does; that one warning is dropped.
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    if (typeof warning === 'string' && warning.includes("'NO_COLOR' env is ignored")) return;
    return emitWarning.call(process, warning, ...rest);
  };
  let cli;
  try {
    // Inside the executable the CLI is bundled into this very script, and the executable
    // carries its own code cache.
    cli = IN_EXECUTABLE
      ? require('../dist/petstore.cjs')
      : loadWithCodeCache(join(__dirname, '..', 'dist', 'petstore.cjs'));
  } catch (err) {
    // A clone where `npm install` (which builds through `prepare`) has not run yet.
    if (err && err.code === 'ENOENT' && !require('node:fs').existsSync(join(__dirname, '..', 'dist'))) {
      process.stderr.write('petstore is not built: run npm install (or npm run build) in its folder\n');
    } else {
      process.stderr.write(`petstore cannot start: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  }
  if (cli !== undefined) cli.run(argv);
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
 * Loads the bundle (one CommonJS file) the way Node's loader would, with V8's code cache:
 * the compiled code of the functions a run used is kept in petstore's cache directory
 * (XDG Base Directory: $XDG_CACHE_HOME/petstore when that is an absolute path, else
 * ~/.cache/petstore) and handed to V8 on the next run, which then skips compiling them.
 * Node 20 has no compile cache of its own, and Node >= 22's (module.enableCompileCache)
 * caches only what is compiled before the code runs: this one, written once the run is
 * over, measured faster on both (docs/performance.md). The cache is written when there is
 * none yet for this Node, this bundle and these V8 flags, or V8 rejected it; a cache that
 * cannot be read or written only costs the speed. NODE_DISABLE_COMPILE_CACHE (Node's own
 * switch) turns it off. Both variables are declared in src/config/env-vars.ts (`readBy:
 * 'shim'`): this file runs before the CLI, and reads them itself.
 */
function loadWithCodeCache(file) {
  const vm = require('node:vm');
  const { createRequire } = require('node:module');
  const { dirname } = require('node:path');
  const source = readFileSync(file, 'utf8');
  // A yes-or-no variable, read by the registry's rule (src/config/env-vars.ts): set and not
  // `0` or `false`.
  const off = /^(?!0$|false$)./i.test(process.env.NODE_DISABLE_COMPILE_CACHE ?? '');
  const cache = off ? undefined : cacheFile(file);
  let cachedData;
  if (cache !== undefined) {
    try {
      cachedData = readFileSync(cache.path);
    } catch {
      // No cache yet: this run writes it.
    }
  }
  // Node's own module wrapper, on a line of its own so that line numbers stay the file's.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, lineOffset: -1, cachedData });
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => saveCodeCache(script, cache));
  }
  return mod.exports;
}

/**
 * Where the code cache of `file` goes for this Node: its name holds Node's version, the
 * architecture and the bundle's size and modification time, so a new bundle or another
 * Node never meets an old cache (V8 checks its own version and flags, not the source).
 */
function cacheFile(file) {
  const { statSync } = require('node:fs');
  const xdg = process.env.XDG_CACHE_HOME;
  const dir = join(
    xdg !== undefined && xdg.startsWith('/') ? xdg : join(require('node:os').homedir(), '.cache'),
    'petstore',
  );
  const { size, mtimeMs } = statSync(file);
  const prefix = `code-${process.version}-${process.arch}-`;
  return { dir, prefix, path: join(dir, `${prefix}${size}-${Math.trunc(mtimeMs)}.v8`) };
}

/**
 * Writes the code cache of what this run compiled, replacing older ones of this Node. The
 * cache directory must be a directory of this user's (not a symlink to one elsewhere); the
 * data goes to a temp file of an unpredictable name created exclusively without following a
 * symlink (O_EXCL|O_NOFOLLOW), then renamed over the cache file, and the temp file is
 * removed if anything fails: no file petstore does not own is ever written through.
 */
function saveCodeCache(script, cache) {
  const fs = require('node:fs');
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  let temp;
  let fd;
  try {
    fs.mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const dir = fs.lstatSync(cache.dir);
    if (!dir.isDirectory() || (process.getuid !== undefined && dir.uid !== process.getuid())) return;
    temp = join(cache.dir, `.${require('node:crypto').randomBytes(8).toString('hex')}.tmp`);
    fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    fs.writeSync(fd, script.createCachedData());
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, cache.path);
    temp = undefined;
    for (const name of fs.readdirSync(cache.dir)) {
      const other = join(cache.dir, name);
      if (name.startsWith(cache.prefix) && other !== cache.path) fs.rmSync(other, { force: true });
    }
  } catch {
    // A cache is an optimisation: no cache, same result.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    if (temp !== undefined) fs.rmSync(temp, { force: true });
  }
}

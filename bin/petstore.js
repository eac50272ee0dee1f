#!/usr/bin/env node
// Shim: run the built CLI (dist/petstore.cjs, one CommonJS file), which exits with its code
// once stdout and stderr are flushed. CommonJS (bin/package.json), because Node starts a
// CommonJS entry faster than an ES module one. The standalone executable
// (scripts/build-exe.mjs) is this file with the bundle inside it.
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
const fits = (file) => file !== 'help.txt' || !process.stdout.isTTY || process.stdout.columns === HELP_COLUMNS;
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
  // As on the full path: a closed stdout ends the run quietly with exit 0; any other
  // failure to write (a full disk) is exit 1 with the reason, never a stack trace.
  process.stdout.write(text, (err) => {
    if (!err || err.code === 'EPIPE') return;
    const why = err.code === 'ENOSPC' ? 'no space left on the device' : err.message;
    process.stderr.write(`error: cannot write to stdout: ${why}\n`);
    process.exitCode = 1;
  });
  process.stdout.on('error', () => undefined);
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
  if (!IN_EXECUTABLE) enableCompileCache();
  let cli;
  try {
    cli = require('../dist/petstore.cjs');
  } catch (err) {
    // A clone where `npm install` (which builds through `prepare`) has not run yet.
    if (err && err.code === 'MODULE_NOT_FOUND' && !require('node:fs').existsSync(join(__dirname, '..', 'dist'))) {
      process.stderr.write('petstore is not built: run npm install (or npm run build) in its folder\n');
    } else {
      process.stderr.write(`petstore cannot start: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  }
  if (cli !== undefined) cli.run(argv);
}

/**
 * Node >= 22.1 keeps V8's compiled code of the bundle on disk and skips compiling it again
 * on the next run (Node 20 has no such cache). The cache goes in petstore's own cache
 * directory (XDG Base Directory: $XDG_CACHE_HOME/petstore when that is an absolute path,
 * else ~/.cache/petstore), not the system's temp directory. Node turns it off by itself
 * under NODE_DISABLE_COMPILE_CACHE, and a directory it cannot create only costs the cache.
 */
function enableCompileCache() {
  const { enableCompileCache: enable } = require('node:module');
  if (typeof enable !== 'function') return;
  const xdg = process.env.XDG_CACHE_HOME;
  try {
    enable(
      join(xdg !== undefined && xdg.startsWith('/') ? xdg : join(require('node:os').homedir(), '.cache'), 'petstore'),
    );
  } catch {
    // A cache is an optimisation: no cache, same result.
  }
}

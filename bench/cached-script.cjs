// Runs a bundled CommonJS script with a V8 code cache kept beside it (FILE.v8), the way
// bin/petstore.js runs the CLI: the same V8 flags, the cache written at exit by the first
// run (or when V8 rejected it) and read by the next. For bench rows only: no checks of who
// owns the cache. Usage: node bench/cached-script.cjs FILE ARG...
'use strict';
const v8 = require('node:v8');
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const vm = require('node:vm');

v8.setFlagsFromString('--liftoff-only');
v8.setFlagsFromString('--verify-snapshot-checksum');
const file = resolve(process.argv[2]);
process.argv.splice(2, 1);
const source = readFileSync(file, 'utf8');
let cachedData;
try {
  cachedData = readFileSync(`${file}.v8`);
} catch {
  // The first run writes it.
}
const wrapper = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
const script = new vm.Script(wrapper, { filename: file, lineOffset: -1, cachedData });
const mod = { exports: {} };
script
  .runInThisContext()
  .call(mod.exports, mod.exports, module.constructor.createRequire(file), mod, file, dirname(file));
if (cachedData === undefined || script.cachedDataRejected) {
  process.once('exit', () => writeFileSync(`${file}.v8`, script.createCachedData()));
}

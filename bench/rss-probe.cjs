// Preloaded (`node --require`) by bench/run.mjs when GNU time is missing: at exit, writes
// the process's peak resident set (VmHWM, KiB) to file descriptor 3. Linux only.
'use strict';
const { readFileSync, writeSync } = require('node:fs');

process.on('exit', () => {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  if (m) writeSync(3, `${m[1]}\n`);
});

// Preloaded into a CLI run (`node --require <this file> bin/petstore.js config set …`) by
// the test of a config writer killed mid-write: the process sends itself SIGKILL at the
// moment conf's atomic write (the `atomically` package, through stubborn-fs, which takes
// `fs.renameSync` when it loads, after this file) is about to rename its temp file over
// `config.json`. The temp file, written and synced, is left behind exactly as `kill -9`
// at that instant leaves it; no timing is involved.
'use strict';
const fs = require('node:fs');
const rename = fs.renameSync;
fs.renameSync = function renameSync(from, to, ...rest) {
  if (String(to).endsWith('config.json') && String(from).includes('config.json.tmp-')) {
    process.kill(process.pid, 'SIGKILL');
  }
  return rename.call(this, from, to, ...rest);
};

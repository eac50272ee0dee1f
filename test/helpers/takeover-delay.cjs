// Preloaded into a process that takes petstore's file lock (`node --require <this file>`,
// or NODE_OPTIONS="--require <this file>" for a CLI run) by the tests of the takeover of a
// dead holder's lock (src/fs/file-lock.ts, "The takeover is atomic"): each takeover stalls
// between judging the stale lock and removing it, so that other takers judge the same lock,
// take it over and hold it meanwhile: the window in which a removal by a fixed name would
// rob them. petstore publishes on the channel only for this; nothing else subscribes to it.
//
// - By default each stalls for a random time up to TAKEOVER_DELAY_MS (default 300).
// - With TAKEOVER_BARRIER_DIR, each writes a file named by its pid there and stalls until
//   TAKEOVER_BARRIER_COUNT processes have (all have judged the same dead holder), or for
//   TAKEOVER_DELAY_MS at most: then all of them remove and take the lock at once.
'use strict';
const { readdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const most = Number(process.env.TAKEOVER_DELAY_MS ?? '300');
const barrier = process.env.TAKEOVER_BARRIER_DIR;
const count = Number(process.env.TAKEOVER_BARRIER_COUNT ?? '2');
const cell = new Int32Array(new SharedArrayBuffer(4));
require('node:diagnostics_channel').subscribe('petstore:file-lock:takeover', () => {
  // Synchronous, as the takeover is: nothing else of the process runs meanwhile.
  if (barrier === undefined) {
    Atomics.wait(cell, 0, 0, Math.random() * most);
    return;
  }
  writeFileSync(join(barrier, String(process.pid)), '');
  const until = Date.now() + most;
  while (readdirSync(barrier).length < count && Date.now() < until) Atomics.wait(cell, 0, 0, 5);
});

// Preloaded into a process that takes petstore's file lock (`node --require <this file>`,
// or NODE_OPTIONS="--require <this file>" for a CLI run) by the tests of the takeover of a
// dead holder's lock (src/file-lock.ts, "The takeover is atomic"): each takeover stalls
// between judging the stale lock and removing it, for a random time up to
// TAKEOVER_DELAY_MS (default 300), so that other takers judge the same lock, take it over
// and hold it meanwhile: the window in which a removal by a fixed name would rob them.
// petstore publishes on the channel only for this; nothing else subscribes to it.
'use strict';
const most = Number(process.env.TAKEOVER_DELAY_MS ?? '300');
const cell = new Int32Array(new SharedArrayBuffer(4));
require('node:diagnostics_channel').subscribe('petstore:file-lock:takeover', () => {
  // Synchronous, as the takeover is: nothing else of the process runs meanwhile.
  Atomics.wait(cell, 0, 0, Math.random() * most);
});

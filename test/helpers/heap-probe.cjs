// Preloaded into a CLI run (NODE_OPTIONS="--expose-gc --require <this file>") by memory
// tests: every 50 ms it forces a full GC and records the heap still in use, i.e. what the
// program retains, not the garbage V8 has yet to collect. At exit it prints the peak on
// stderr as `PEAK_RETAINED_HEAP=<bytes>`.
'use strict';
let peak = 0;
function sample() {
  global.gc();
  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;
}
setInterval(sample, 50).unref();
process.on('exit', () => {
  sample();
  require('node:fs').writeSync(2, `\nPEAK_RETAINED_HEAP=${peak}\n`);
});

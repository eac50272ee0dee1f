// Preloaded into a CLI run (NODE_OPTIONS="--expose-gc --require <this file>") by memory
// tests: after every 50 ms of the process's own CPU time it forces a full GC and records
// the heap still in use, i.e. what the program retains, not the garbage V8 has yet to
// collect. Counted in CPU time, not wall time, so that the probe's cost follows the run's
// work and does not grow on a loaded machine. At exit it prints the peak on stderr as
// `PEAK_RETAINED_HEAP=<bytes>`.
'use strict';
let peak = 0;
let lastCpuUs = 0;
function sample() {
  global.gc();
  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;
}
setInterval(() => {
  const { user, system } = process.cpuUsage();
  if (user + system - lastCpuUs < 50_000) return;
  lastCpuUs = user + system;
  sample();
}, 10).unref();
process.on('exit', () => {
  sample();
  require('node:fs').writeSync(2, `\nPEAK_RETAINED_HEAP=${peak}\n`);
});

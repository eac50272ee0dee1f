'use strict';
// The jq worker thread: jq 1.8.2 (jq-wasm, jq compiled to WebAssembly) runs here, off the
// main thread, so that however long a filter runs, a signal still ends petstore within the
// contract's second: the main thread terminates this thread (src/render/jq.ts).
//
// In: workerData.wasm (the WebAssembly's bytes); messages {id, input, filter}, where input
// is JSON text (so int64 values reach jq exactly) and filter a jq program. Out: {ready}
// once, then {id, stdout, stderr, exitCode} per message, or {id, failure} when jq itself
// stopped (out of its 256 MiB of memory); a failure to load is {failure}.
//
// Plain JavaScript on purpose: it runs as it is from the sources (in-process tests) and is
// bundled with jq-wasm into dist/jq-worker.cjs by scripts/build.mjs.
const { parentPort, workerData } = require('node:worker_threads');
const { loadJq } = require('jq-wasm');

/** @param {unknown} err */
const describe = (err) => (err instanceof Error ? err.message : String(err));

loadJq({ wasmBinary: workerData.wasm }).then(
  (jq) => {
    parentPort.on('message', (/** @type {{id: number, input: string, filter: string}} */ m) => {
      try {
        // -c: one compact value per line, which the main thread turns into its output.
        const { stdout, stderr, exitCode } = jq.raw(m.input, m.filter, ['-c']);
        parentPort.postMessage({ id: m.id, stdout, stderr, exitCode });
      } catch (err) {
        parentPort.postMessage({ id: m.id, failure: describe(err) });
      }
    });
    parentPort.postMessage({ ready: true });
  },
  (err) => parentPort.postMessage({ failure: describe(err) }),
);

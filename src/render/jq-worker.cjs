'use strict';
// The jq worker thread: jq 1.8.2 (jq-wasm, jq compiled to WebAssembly) runs here, off the
// main thread, so that however long a filter runs, a signal still ends petstore within the
// contract's second: the main thread terminates this thread (src/render/jq.ts).
//
// workerData: {wasm, v8Flags}. `wasm` says where jq's WebAssembly is: a file's path, or
// `sea` for the standalone executable's asset of that name; this thread reads and compiles
// it as soon as it starts, needing nothing from the main thread, which is busy starting the
// command. `v8Flags` (bin/petstore.js, when it started this thread) are set first, before
// any of jq runs: V8 reads them each time it would optimise a hot WebAssembly function, and
// the shim holds its own flags back until this thread has started (docs/performance.md).
//
// Out: {v8Flags} once the flags are set (when there were any), then {ready} once jq is
// loaded, or {failure}; then, for each message {id, input, filter} (input is JSON text, so
// int64 values reach jq exactly; filter a jq program), {id, stdout, stderr, exitCode}, or
// {id, failure} when jq itself stopped (out of its 256 MiB of memory).
//
// Plain JavaScript on purpose: it runs as it is from the sources (in-process tests) and is
// bundled with jq-wasm into dist/jq-worker.cjs by scripts/build.mjs.
/* global WebAssembly */
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, existsSync, openSync, readFileSync, readSync } = require('node:fs');
const { loadJq } = require('jq-wasm');

// jq asks for random bytes at every run (WASI's random_get, which jq-wasm answers with
// `crypto.getRandomValues`), and Node's `crypto` global loads all of WebCrypto to give them:
// the largest part of jq's first run. The kernel's generator gives the same quality of
// bytes for the price of a read (opened and closed each time: a terminated thread runs no
// clean-up, and the in-process tests start many). Where there is none (Windows), `crypto`
// stays Node's.
if (existsSync('/dev/urandom')) {
  Object.defineProperty(globalThis, 'crypto', {
    configurable: true,
    value: {
      /** @param {ArrayBufferView} view */
      getRandomValues(view) {
        const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        const fd = openSync('/dev/urandom', 'r');
        try {
          for (let at = 0; at < bytes.length;) at += readSync(fd, bytes, at, bytes.length - at, null);
        } finally {
          closeSync(fd);
        }
        return view;
      },
    },
  });
}

/** @param {unknown} err */
const describe = (err) => (err instanceof Error ? err.message : String(err));

/** @type {{wasm: string, v8Flags?: string}} */
const { wasm, v8Flags } = workerData;
if (v8Flags !== undefined) {
  require('node:v8').setFlagsFromString(v8Flags);
  parentPort.postMessage({ v8Flags: true });
}

/** jq's WebAssembly, as bytes: from the executable's assets, or a file. */
const wasmBytes = () => (wasm === 'sea' ? new Uint8Array(require('node:sea').getAsset('jq.wasm')) : readFileSync(wasm));

Promise.resolve()
  .then(() => WebAssembly.compile(wasmBytes()))
  .then((module) => loadJq({ wasmModule: module }))
  .then(
    (jq) => {
      parentPort.on('message', (/** @type {{id: number, input: string, filter: string}} */ call) => {
        try {
          // -c: one compact value per line, which the main thread turns into its output.
          const { stdout, stderr, exitCode } = jq.raw(call.input, call.filter, ['-c']);
          parentPort.postMessage({ id: call.id, stdout, stderr, exitCode });
        } catch (err) {
          parentPort.postMessage({ id: call.id, failure: describe(err) });
        }
      });
      parentPort.postMessage({ ready: true });
    },
    (err) => parentPort.postMessage({ failure: describe(err) }),
  );

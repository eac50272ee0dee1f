/**
 * What bin/petstore.js hands the bundle besides argv, through `globalThis` (the shim runs
 * before the bundle, which it loads as a script).
 */

/** Where the shim leaves the promise of V8's WebAssembly flags being set (bin/petstore.js). */
const WASM_FLAGS = Symbol.for('petstore.wasmFlags');

/**
 * Settles once V8's WebAssembly flags (the shim's WASM_FLAGS: Liftoff only) are set; at
 * once unless the shim holds them back, which it does while a `--jq` run's worker thread
 * starts (bin/petstore.js startJqWorker). Awaited before a transport is made: undici's HTTP
 * parser is WebAssembly, first run on the first connection, and V8 reads the flags each
 * time it would optimise one of its functions. Never rejects.
 */
export function wasmFlagsSet(): Promise<void> {
  const pending = (globalThis as { [WASM_FLAGS]?: Promise<void> })[WASM_FLAGS];
  return pending ?? Promise.resolve();
}

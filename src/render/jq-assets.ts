/**
 * Where jq lives: the two files `--jq` loads, and nothing else does (so the 0.9 MB of
 * WebAssembly costs no other command anything). Built, they sit beside the bundle in dist/
 * (`scripts/build.mjs` writes them); run from the sources (the in-process tests), the worker
 * is the source file beside this one and the WebAssembly the jq-wasm package's own. A
 * packaging that puts the CLI somewhere else (one file, a single executable with assets)
 * changes these two functions and nothing more.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** Set by scripts/build.mjs (esbuild `define`); absent when the sources run directly. */
declare const __PETSTORE_BUILT__: boolean | undefined;

/** The worker thread's script (`jq-worker.cjs`): the same name beside the bundle and in the sources. */
export function jqWorkerUrl(): URL {
  return new URL('./jq-worker.cjs', import.meta.url);
}

/**
 * jq's WebAssembly (jq 1.8.2, from jq-wasm), read for `loadJq({ wasmBinary })`.
 * @throws the file system's error when it cannot be read.
 */
export async function readJqWasm(): Promise<Uint8Array> {
  if (typeof __PETSTORE_BUILT__ === 'boolean') return readFile(new URL('./jq.wasm', import.meta.url));
  return readFile(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'));
}

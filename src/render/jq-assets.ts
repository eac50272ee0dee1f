/**
 * Where jq lives: the two files `--jq` loads, and nothing else does (so the 0.9 MB of
 * WebAssembly costs no other command anything). Built, they sit beside the bundle in dist/
 * (`scripts/build.mjs` writes them); inside the standalone executable they are its assets
 * (Node's single-executable `getAsset`, `scripts/build-exe.mjs` puts them there); run from
 * the sources (the in-process tests), the worker is the source file beside this one and the
 * WebAssembly the jq-wasm package's own.
 */
import { createRequire } from 'node:module';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions } from 'node:worker_threads';

/** Set by scripts/build.mjs (esbuild `define`); absent when the sources run directly. */
declare const __PETSTORE_BUILT__: boolean | undefined;

/**
 * The worker thread's script (`jq-worker.cjs`) as `new Worker(script, options)` takes it:
 * the file of that name beside the bundle or in the sources, or, inside the executable,
 * the script's text (run with `eval`, as the executable holds no files).
 */
export function jqWorkerScript(): { script: URL | string; options: Pick<WorkerOptions, 'eval'> } {
  if (isSea()) return { script: getAsset('jq-worker.cjs', 'utf8'), options: { eval: true } };
  return { script: new URL('./jq-worker.cjs', import.meta.url), options: {} };
}

/**
 * Where the worker finds jq's WebAssembly (jq 1.8.2, from jq-wasm): `workerData.wasm` of
 * jq-worker.cjs, a file's path, or `sea` for the executable's asset of that name.
 */
export function jqWasmLocation(): string {
  if (isSea()) return 'sea';
  if (typeof __PETSTORE_BUILT__ === 'boolean') return fileURLToPath(new URL('./jq.wasm', import.meta.url));
  return createRequire(import.meta.url).resolve('jq-wasm/jq.wasm');
}

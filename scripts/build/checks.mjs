// Checks of the built bundle, on esbuild's metafile and on the output itself. Each throws
// an Error saying what is wrong and where the rule comes from.
import { readFileSync, statSync } from 'node:fs';

/**
 * The most the one-file bundle may weigh, in bytes. Every start-up reads and scans the
 * whole file, so large optional parts (jq's WebAssembly: 1.4 MB inlined as base64) belong
 * in files of their own beside it, read when used (as dist/jq.wasm is).
 */
const BUNDLE_BUDGET_BYTES = 2.5 * 1024 * 1024;

/**
 * Fails unless the bundle at `file` (an output of `metafile`) holds zod's English locale
 * alone, calls no `import()`, and stays within BUNDLE_BUDGET_BYTES.
 */
export function checkBundle(metafile, file) {
  // zod's English locale and no other (zodEnglishOnly in scripts/build.mjs).
  const locales = Object.keys(metafile.inputs).filter((input) => /[\\/]zod[\\/].*[\\/]locales[\\/]/.test(input));
  const strays = locales.filter((input) => !/[\\/]locales[\\/]en\.js$/.test(input));
  if (strays.length > 0 || locales.length === 0) {
    throw new Error(
      `the bundle should hold zod's English locale alone (zodEnglishOnly in scripts/build.mjs), but holds: ${locales.join(', ') || 'none'}`,
    );
  }
  // No dynamic import: a standalone executable built with its code cache cannot run one on
  // Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and inside one, `import()` of anything
  // but a built-in module has no file to load. esbuild lowers `import()` (the build's
  // `supported` setting); this catches what it could not (a computed specifier).
  const dynamic = Object.values(metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.kind === 'dynamic-import')
    .map((i) => i.path);
  const text = readFileSync(file, 'utf8');
  const calls = [...text.matchAll(/\bimport\s*\(/g)].map((m) => text.slice(Math.max(0, m.index - 40), m.index + 40));
  if (dynamic.length > 0 || calls.length > 0) {
    throw new Error(
      `the bundle still calls import() (make it a static import or a require of a built-in module): ${[...dynamic, ...calls.map((c) => `…${c}…`)].join('; ')}`,
    );
  }
  const bytes = statSync(file).size;
  if (bytes > BUNDLE_BUDGET_BYTES) {
    throw new Error(
      `the bundle is ${(bytes / 1048576).toFixed(2)} MiB, over its budget of ${BUNDLE_BUDGET_BYTES / 1048576} MiB: move large optional parts to files of their own beside it (as dist/jq.wasm)`,
    );
  }
}

// The esbuild options of petstore's bundle, shared by dist/petstore.cjs (scripts/build.mjs)
// and the standalone executable's main script (scripts/build-exe.mjs), so both are the
// same code built the same way.

// zod's `z` namespace re-exports `z.locales`, so bundling keeps all 60-odd message locales,
// about half of zod's bundled bytes, parsed at every start-up that validates a response.
// petstore speaks English only (zod's default, `en`, which zod imports by itself), so the
// locale index is replaced by one that exports `en` alone: `pets list` starts about 6%
// faster and 3 MiB smaller. checkBundle (on esbuild's metafile) keeps that true.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: 'zod-locales-index', namespace: 'zod-english-only', pluginData: args.resolveDir }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      resolveDir: args.pluginData,
      loader: 'js',
    }));
  },
};

/**
 * The options of a product bundle (no entry points or output: the caller adds them), for
 * package version `version`, with esbuild's metafile on (checkBundle reads it).
 */
export function productOptions(root, version) {
  return {
    absWorkingDir: root,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    // `import()` of a built-in module becomes `require()`: a standalone executable's code
    // cache cannot run `import()` on Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and a
    // bundled module's `import()` is lowered to its initialiser anyway. checkBundle makes
    // sure none is left.
    supported: { 'dynamic-import': false },
    legalComments: 'none', // the licences are in THIRD_PARTY_NOTICES instead
    // Less text for V8 to scan at every start-up (about 3% of a `pets list`, 4 MiB of RSS);
    // identifiers are kept, so stack traces (`--verbose`) still name our functions.
    minifyWhitespace: true,
    minifySyntax: true,
    define: {
      __PETSTORE_VERSION__: JSON.stringify(version),
      // src/render/jq-assets.ts: jq's files sit beside the bundle.
      __PETSTORE_BUILT__: 'true',
      // ES module code that asks where it is gets the bundle's own place.
      'import.meta.url': '__petstoreImportMetaUrl',
      'import.meta.dirname': '__dirname',
      'import.meta.filename': '__filename',
    },
    banner: { js: "var __petstoreImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
    plugins: [zodEnglishOnly],
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * The files beside the bundle, by their names in dist/: what --jq loads
 * (src/render/jq-assets.ts), and what `petstore mcp` loads (src/commands/mcp/assets.ts): the
 * MCP SDK's bundle and the OpenAPI document it serves as a resource.
 */
export const BESIDE_BUNDLE = {
  jqWorker: 'jq-worker.cjs',
  jqWasm: 'jq.wasm',
  mcpServer: 'mcp.cjs',
  openapi: 'openapi.yaml',
};

/**
 * The options of `dist/mcp.cjs` (src/commands/mcp/sdk.ts with the MCP SDK; the caller adds
 * `outfile`), built as the product bundle is, with esbuild's metafile on (for the notices).
 */
export function mcpServerOptions(root, version) {
  return { ...productOptions(root, version), entryPoints: ['src/commands/mcp/sdk.ts'] };
}

/**
 * The options of the jq worker thread's script (src/render/jq-worker.cjs bundled with
 * jq-wasm; the caller adds `outfile`), with esbuild's metafile on (for the notices).
 */
export function jqWorkerOptions(root) {
  return {
    absWorkingDir: root,
    entryPoints: ['src/render/jq-worker.cjs'],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  };
}

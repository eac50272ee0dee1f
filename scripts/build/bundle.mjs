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

// Modules that libraries require at their top level but use only on rare paths, loaded on
// first use instead: a `pets list` over http:// then loads none of them (docs/performance.md
// "What loads when"). Each entry names the importing file (under node_modules), what it
// requires (a path ending in `/`: every file under that folder), and how the lazy stand-in
// looks:
// - 'function': the module's export is one function, called later (never read at load);
// - 'object': an object whose properties are read only when used (never destructured at load);
// - 'assert': `node:assert` called only as `assert(value)`: a true value passes without loading
//   it, anything else goes to the real one (which throws as it would have).
// Another library version that reads them at load would load them there, no worse than before;
// test/e2e/startup-modules.test.ts says which must stay unloaded.
const LAZY_REQUIRES = [
  // undici's HTTP/2 session (and with it node:http2, node:tls and node:crypto, ~15 ms), needed
  // only when a TLS server picks h2 through ALPN, which petstore never offers (allowH2 off).
  { importer: 'undici/lib/dispatcher/client.js', request: './client-h2.js', shape: 'function' },
  // commander spawns a child only for executable subcommands, which petstore has none of.
  { importer: 'commander/lib/command.js', request: 'node:child_process', shape: 'object' },
  // undici checks its own invariants with `assert(cond)` (and nothing else of node:assert) on
  // every request; node:assert and its three internals cost about 2 ms to load, for checks
  // that pass.
  { importer: 'undici/lib/', request: 'node:assert', shape: 'assert' },
];

/**
 * The stand-in module's source (CommonJS) for a LAZY_REQUIRES entry `{ request, shape }`:
 * it requires `request` on first use, as its `shape` says.
 */
export function lazyStandIn({ request, shape }) {
  const load = `let m;const load=()=>(m??=require(${JSON.stringify(request)}));`;
  if (shape === 'function') return `${load}module.exports=function(...a){return load().apply(this,a)};`;
  if (shape === 'assert') {
    return `${load}module.exports=function(v){if(!v||arguments.length===0)return load().apply(this,arguments)};`;
  }
  return (
    `${load}module.exports=new Proxy({},{get:(_,k)=>load()[k],has:(_,k)=>k in load(),` +
    `ownKeys:()=>Reflect.ownKeys(load()),getOwnPropertyDescriptor:(_,k)=>` +
    `{const d=Reflect.getOwnPropertyDescriptor(load(),k);return d&&{...d,configurable:true}}});`
  );
}

const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    for (const entry of LAZY_REQUIRES) {
      const filter = new RegExp(`^${entry.request.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      const suffix = `/node_modules/${entry.importer}`;
      const folder = entry.importer.endsWith('/');
      const matches = (importer) => (folder ? importer.includes(suffix) : importer.endsWith(suffix));
      b.onResolve({ filter }, (args) =>
        args.namespace === 'file' && matches(args.importer.replaceAll('\\', '/'))
          ? {
              path: `${entry.importer}:${entry.request}`,
              namespace: 'lazy-require',
              pluginData: { entry, dir: args.resolveDir },
            }
          : undefined,
      );
    }
    // The stand-in's own require resolves as the original did (its namespace is not 'file').
    b.onLoad({ filter: /.*/, namespace: 'lazy-require' }, (args) => ({
      contents: lazyStandIn(args.pluginData.entry),
      resolveDir: args.pluginData.dir,
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
    plugins: [zodEnglishOnly, lazyRequires],
    metafile: true,
    logLevel: 'warning',
  };
}

/** The CLI's bundle, by its name in dist/ (bin/petstore.js loads it; its hash is `${BUNDLE}.sha256`). */
export const BUNDLE = 'petstore.cjs';

/**
 * The options of the CLI's bundle, dist/petstore.cjs (the caller adds `outdir`): the product
 * options with the CLI's entry, its source map, and a footer that runs it when it is run by
 * hand. scripts/build.mjs writes it; scripts/build-exe.mjs builds it again to check that
 * dist/ holds what the sources make.
 */
export function cliBundleOptions(root, version) {
  return {
    ...productOptions(root, version),
    entryPoints: { petstore: 'src/cli-entry.ts' },
    outExtension: { '.js': '.cjs' },
    sourcemap: 'linked',
    // The shim loads the bundle and calls run(); `node dist/petstore.cjs ...` run by hand
    // would otherwise load it, do nothing and exit 0.
    footer: { js: 'if(require.main===module)module.exports.run(process.argv.slice(2));' },
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

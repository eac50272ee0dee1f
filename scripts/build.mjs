// Builds dist/ with esbuild: one ESM entry plus lazily loaded chunks (code splitting), so
// start-up loads only what the command runs. CJS dependencies need `require` in ESM,
// hence the createRequire banner (esbuild issues #1921, #1944).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// zod's `z` namespace re-exports `z.locales`, so bundling keeps all 60-odd message locales,
// about half of zod's bundled bytes, parsed at every start-up that validates a response.
// petstore speaks English only (zod's default, `en`, which zod imports by itself), so the
// locale index is replaced by one that exports `en` alone: `pets list` starts about 6%
// faster and 3 MiB smaller. The check after the build (on esbuild's metafile) keeps that true.
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
const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Build beside dist/ and swap it in, so a CLI run during a rebuild never sees half a tree.
const dist = join(root, 'dist');
const fresh = join(root, `dist.build-${process.pid}`);
const stale = join(root, `dist.old-${process.pid}`);
const result = await build({
  absWorkingDir: root,
  entryPoints: { 'cli-entry': 'src/cli-entry.ts' },
  outdir: fresh,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: 'linked',
  legalComments: 'none',
  // Less text for V8 to scan at every start-up (about 3% of a `pets list`, 4 MiB of RSS);
  // identifiers are kept, so stack traces (`--verbose`) still name our functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // __PETSTORE_BUILT__ tells src/render/jq-assets.ts that jq's files sit beside the bundle.
  define: { __PETSTORE_VERSION__: JSON.stringify(pkg.version), __PETSTORE_BUILT__: 'true' },
  // Bundled CJS code may also read __filename/__dirname (graceful-fs, signal-exit);
  // import.meta.filename and .dirname exist from Node 20.11 (engines asks for 20.19).
  banner: {
    js: [
      "import { createRequire as __petstoreCreateRequire } from 'node:module';",
      'const require = __petstoreCreateRequire(import.meta.url);',
      'const __filename = import.meta.filename;',
      'const __dirname = import.meta.dirname;',
    ].join(' '),
  },
  plugins: [zodEnglishOnly],
  metafile: true,
  logLevel: 'warning',
});

// --jq's two files, loaded by nothing else (src/render/jq-assets.ts): the worker thread,
// bundled with jq-wasm into one CommonJS file, and jq's WebAssembly (0.9 MB) beside it. Kept
// out of the chunks every other command loads: inlined, the wasm cost every `pets list` 5%.
await build({
  absWorkingDir: root,
  entryPoints: { 'jq-worker': 'src/render/jq-worker.cjs' },
  outdir: fresh,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
copyFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), join(fresh, 'jq.wasm'));
chmodSync(join(fresh, 'jq.wasm'), 0o644);

// What went into the bundle: zod's English locale and no other.
const locales = Object.keys(result.metafile.inputs).filter((input) => /[\\/]zod[\\/].*[\\/]locales[\\/]/.test(input));
const strays = locales.filter((input) => !/[\\/]locales[\\/]en\.js$/.test(input));
if (strays.length > 0 || locales.length === 0) {
  rmSync(fresh, { recursive: true, force: true });
  throw new Error(
    `the bundle should hold zod's English locale alone (see zodEnglishOnly in scripts/build.mjs), but holds: ${locales.join(', ') || 'none'}`,
  );
}

// Outputs that depend on nothing but the build, printed by bin/petstore.js without loading
// the CLI (a start-up fast path). Each is captured from the full path of this very build,
// and test/e2e/fast-path.test.ts checks that the two stay byte-identical.
const STATIC_OUTPUTS = { 'version.txt': ['--version'], 'help.txt': ['--help'] };
mkdirSync(join(fresh, 'static'));
for (const [file, argv] of Object.entries(STATIC_OUTPUTS)) {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      'const { run } = await import(process.argv[1]); run(process.argv.slice(2));',
      pathToFileURL(join(fresh, 'cli-entry.js')).href,
      ...argv,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8', NO_COLOR: '1' } },
  );
  if (r.status !== 0 || r.stderr !== '' || r.stdout === '') {
    rmSync(fresh, { recursive: true, force: true });
    throw new Error(`capturing \`petstore ${argv.join(' ')}\` failed (exit ${r.status}): ${r.stderr}`);
  }
  writeFileSync(join(fresh, 'static', file), r.stdout);
}

try {
  renameSync(dist, stale);
} catch (err) {
  if (err.code !== 'ENOENT') throw err; // ENOENT: no previous build
}
renameSync(fresh, dist);
rmSync(stale, { recursive: true, force: true });

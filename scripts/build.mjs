// Builds dist/ with esbuild: one ESM entry plus lazily loaded chunks (code splitting), so
// start-up loads only what the command runs. CJS dependencies need `require` in ESM,
// hence the createRequire banner (esbuild issues #1921, #1944).
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so a CLI run during a rebuild never sees half a tree.
const root = new URL('..', import.meta.url).pathname;
const fresh = `${root}dist.build-${process.pid}`;
const stale = `${root}dist.old-${process.pid}`;
await build({
  entryPoints: { 'cli-entry': 'src/cli-entry.ts' },
  outdir: fresh,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: 'linked',
  legalComments: 'none',
  define: { __PETSTORE_VERSION__: JSON.stringify(pkg.version) },
  // Bundled CJS code may also read __filename/__dirname (graceful-fs, signal-exit).
  banner: {
    js: [
      "import { createRequire as __petstoreCreateRequire } from 'node:module';",
      "import { fileURLToPath as __petstoreFileURLToPath } from 'node:url';",
      'const require = __petstoreCreateRequire(import.meta.url);',
      'const __filename = __petstoreFileURLToPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join(' '),
  },
  logLevel: 'warning',
});
try {
  renameSync(`${root}dist`, stale);
} catch {
  // no previous build
}
renameSync(fresh, `${root}dist`);
rmSync(stale, { recursive: true, force: true });

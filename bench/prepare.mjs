// What the bench runs besides the checkout: the card floor, bundled here as the issue of
// record describes it, and petstore as users install it (the packed tarball installed with
// `npm install -g --prefix DIR`, offline: it has no dependencies).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { productOptions } from '../scripts/build/bundle.mjs';

/**
 * Bundles bench/card-floor.mjs into `dir` with esbuild (`--bundle --platform=node
 * --format=cjs --minify-whitespace --minify-syntax`); returns the bundle's path.
 */
export async function bundleCardFloor(root, dir) {
  const outfile = join(dir, 'card-floor.cjs');
  await build({
    absWorkingDir: root,
    entryPoints: ['bench/card-floor.mjs'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Bundles bench/libraries-floor.mjs into `dir` with petstore's own build options (the
 * build's lazy stand-ins and zod's English locale included); returns the bundle's path,
 * which bench/cached-script.cjs runs.
 */
export async function bundleLibrariesFloor(root, dir) {
  const outfile = join(dir, 'libraries-floor.cjs');
  const options = productOptions(root, '0.0.0');
  await build({ ...options, entryPoints: ['bench/libraries-floor.mjs'], outfile, metafile: false, logLevel: 'error' });
  return outfile;
}

/**
 * Packs the checkout (its dist/ as built) and installs the tarball under `dir`; returns the
 * installed bin/petstore.js, to be run with this process's Node.
 */
export function installPacked(root, dir) {
  const env = { ...process.env, npm_config_cache: join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
  mkdirSync(join(dir, 'prefix'), { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: root,
      env,
      encoding: 'utf8',
    }),
  );
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      join(dir, 'prefix'),
      '--offline',
      '--no-audit',
      '--no-fund',
      join(dir, packed[0].filename),
    ],
    { cwd: dir, env, stdio: 'ignore' },
  );
  return join(dir, 'prefix', 'lib', 'node_modules', packed[0].name, 'bin', 'petstore.js');
}

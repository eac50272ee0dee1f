/**
 * Optional files too large for the one-file bundle (jq's WebAssembly, say). `assets.json`
 * names each (`"jq.wasm": "jq-wasm/jq.wasm"`: the asset's name and the package file it is
 * taken from); the build copies each into `dist/assets/` and into the standalone
 * executable (Node's single-executable assets), and `readAsset` finds it in whichever form
 * petstore runs: inside the executable, beside the bundle, or (from the sources, in tests)
 * in its package.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getAsset, isSea } from 'node:sea';
import sources from './assets.json' with { type: 'json' };

/** Set by the build (scripts/build.mjs) in the bundle; absent when the sources run. */
declare const __PETSTORE_BUNDLED__: boolean | undefined;

/** The names of the assets (keys of assets.json). */
export const ASSET_SOURCES: Readonly<Record<string, string>> = sources;

/**
 * The bytes of asset `name`.
 * @throws Error for a name assets.json does not list; the file system's error (ENOENT) when
 *   an installed copy lacks the file.
 */
export async function readAsset(name: string): Promise<Uint8Array> {
  const source = ASSET_SOURCES[name];
  if (source === undefined) throw new Error(`no asset named ${JSON.stringify(name)} (see src/assets.json)`);
  if (isSea()) return new Uint8Array(getAsset(name));
  if (typeof __PETSTORE_BUNDLED__ === 'boolean') return readFile(join(__dirname, 'assets', name));
  return readFile(createRequire(import.meta.url).resolve(source));
}

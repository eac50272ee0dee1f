// THIRD_PARTY_NOTICES: the licence of every package whose code went into a bundle, found
// from esbuild's metafile (the bundle's inputs), so the list follows the code: a library
// added or dropped changes the file at the next build. Each package is named with its
// version, its licence (SPDX, from its package.json) and the full text of its licence file.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The package folders (`node_modules/a`, `node_modules/a/node_modules/@s/b`) of the inputs. */
export function bundledPackageDirs(inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const m = /^(.*node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(input);
    if (m !== null) dirs.add(m[1]);
  }
  return [...dirs];
}

const LICENSE_FILE = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;

/**
 * One package's entry, read from `dir` (relative to `root`).
 * @throws Error when the package ships no licence file: its code cannot be passed on
 *   without its notice, so the build stops.
 */
function packageNotice(root, dir) {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const files = readdirSync(join(root, dir)).filter((f) => LICENSE_FILE.test(f));
  if (files.length === 0) throw new Error(`${pkg.name}@${pkg.version} (${dir}) has no licence file to pass on`);
  const repo = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  return {
    name: pkg.name,
    version: pkg.version,
    license: typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'see below'),
    source: repo?.replace(/^git\+/, '').replace(/\.git$/, ''),
    text: files.map((f) => readFileSync(join(root, dir, f), 'utf8').trim()).join('\n\n'),
  };
}

/**
 * The text of THIRD_PARTY_NOTICES for `product` (e.g. `petstore-cli 0.1.0`) from the
 * metafile inputs of its bundle; `extra` entries (`{name, version, license, source, text}`,
 * e.g. the Node.js runtime of the standalone executable) are listed as well.
 */
export function thirdPartyNotices(root, product, inputs, extra = []) {
  const seen = new Map();
  for (const entry of [...bundledPackageDirs(inputs).map((dir) => packageNotice(root, dir)), ...extra]) {
    seen.set(`${entry.name}@${entry.version}`, entry);
  }
  const entries = [...seen.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  const rule = '='.repeat(80);
  const parts = [
    `${product} includes the third-party software listed below (${entries.length} packages),`,
    'each with its version, its licence and the text of its licence.',
    '',
    ...entries.map((e) => `  ${e.name} ${e.version} (${e.license})`),
  ];
  for (const e of entries) {
    parts.push('', rule, `${e.name} ${e.version} (${e.license})`, ...(e.source ? [e.source] : []), rule, '', e.text);
  }
  return parts.join('\n') + '\n';
}

/** The licence texts listed by hand, one file each (the first line says where it came from). */
const LICENCES = join(import.meta.dirname, 'licences');

/**
 * A licence file's text: the file less its first line, a `# ` line naming the source.
 * @throws Error when that line is missing, so no text goes out without its provenance.
 */
function licenceText(file) {
  const [header, ...text] = readFileSync(join(LICENCES, file), 'utf8').split('\n');
  if (!header.startsWith('# ')) throw new Error(`${file}: the first line must say where the text came from`);
  return text.join('\n').trim();
}

/** The jq the licence texts are for, and the Oniguruma of its source tree (its submodule). */
const JQ = { version: '1.8.2', oniguruma: '6.9.10' };

/**
 * The jq-wasm whose build the Emscripten texts are for; that build's Emscripten (the
 * `emscripten/emsdk` image jq-wasm's Dockerfile names); the musl that Emscripten's libc is
 * based on (its system/lib/libc/musl/VERSION). A jq-wasm release may change Emscripten
 * without changing jq, so the whole version is checked, not only its jq.
 */
const JQ_WASM = { version: `3.0.0-jq-${JQ.version}`, emscripten: '6.0.0', musl: '1.2.6' };

/**
 * The C code compiled into jq-wasm's jq.wasm, listed by hand since no JavaScript input names
 * it (jq-wasm's own licence covers its wrapper only): jq, with its COPYING verbatim (jq's MIT
 * licence and the notices of the code it incorporates: dtoa.c and g_fmt.c, decNumber,
 * Heimdal's, NetBSD's strptime()), and Oniguruma, which that COPYING does not carry: jq-wasm
 * builds jq `--with-oniguruma=builtin`, and Oniguruma's BSD licence asks binaries to
 * reproduce its notice. With them, what Emscripten put in: the JavaScript glue of the worker
 * bundle and jq.wasm's runtime and libc, under Emscripten's LICENSE (MIT or NCSA, each
 * asking copies to carry the notice), and that libc's musl under musl's COPYRIGHT (MIT), as
 * Emscripten's tree carries it. `root` is the project folder, whose jq-wasm is checked.
 * @throws Error when jq-wasm (its version ends in `-jq-X.Y.Z`) carries another jq than the
 *   texts in scripts/build/licences are for, or is another release than the one whose
 *   Emscripten they are for: a new jq, or a new build of it, must bring its own notices.
 */
export function jqNotices(root) {
  const req = createRequire(join(root, 'package.json'));
  const { version } = JSON.parse(readFileSync(req.resolve('jq-wasm/package.json'), 'utf8'));
  const jq = /-jq-(\d+\.\d+\.\d+)$/.exec(version)?.[1];
  if (jq !== JQ.version) {
    throw new Error(`jq-wasm ${version} carries jq ${jq ?? '(unknown)'}, the notices are jq ${JQ.version}'s`);
  }
  if (version !== JQ_WASM.version) {
    throw new Error(
      `jq-wasm ${version} may be built with another Emscripten, the notices are for jq-wasm ${JQ_WASM.version}'s (Emscripten ${JQ_WASM.emscripten})`,
    );
  }
  return [
    {
      name: 'jq',
      version: `${JQ.version} (in jq-wasm, compiled to WebAssembly)`,
      license: 'MIT, and the licences of the code it incorporates below',
      source: 'https://github.com/jqlang/jq',
      text: licenceText(`jq-${JQ.version}-COPYING`),
    },
    {
      name: 'Oniguruma',
      version: `${JQ.oniguruma} (in jq-wasm's jq, compiled to WebAssembly)`,
      license: 'BSD-2-Clause',
      source: 'https://github.com/kkos/oniguruma',
      text: licenceText(`oniguruma-${JQ.oniguruma}-COPYING`),
    },
    {
      name: 'Emscripten',
      version: `${JQ_WASM.emscripten} runtime (in jq-wasm: the worker's glue code and jq.wasm's runtime)`,
      license: 'MIT OR NCSA',
      source: 'https://github.com/emscripten-core/emscripten',
      text: licenceText(`emscripten-${JQ_WASM.emscripten}-LICENSE`),
    },
    {
      name: 'musl libc',
      version: `${JQ_WASM.musl} (in jq.wasm, through Emscripten)`,
      license: 'MIT',
      source: `https://github.com/emscripten-core/emscripten/tree/${JQ_WASM.emscripten}/system/lib/libc/musl`,
      text: licenceText(`emscripten-${JQ_WASM.emscripten}-musl-COPYRIGHT`),
    },
  ];
}

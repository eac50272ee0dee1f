// THIRD_PARTY_NOTICES: the licence of every package whose code went into a bundle, found
// from esbuild's metafile (the bundle's inputs), so the list follows the code: a library
// added or dropped changes the file at the next build. Each package is named with its
// version, its licence (SPDX, from its package.json) and the full text of its licence file.
import { readFileSync, readdirSync } from 'node:fs';
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

/**
 * jq itself, compiled to WebAssembly inside jq-wasm's jq.wasm (jq-wasm's own licence covers
 * its wrapper only): listed by hand, since no JavaScript input names it.
 */
export const JQ_NOTICE = {
  name: 'jq',
  version: '1.8.2 (in jq-wasm, compiled to WebAssembly)',
  license: 'MIT',
  source: 'https://github.com/jqlang/jq',
  text: [
    'jq is copyright (C) 2012 Stephen Dolan.',
    '',
    'Permission is hereby granted, free of charge, to any person obtaining a copy of this',
    'software and associated documentation files (the "Software"), to deal in the Software',
    'without restriction, including without limitation the rights to use, copy, modify,',
    'merge, publish, distribute, sublicense, and/or sell copies of the Software, and to',
    'permit persons to whom the Software is furnished to do so, subject to the following',
    'conditions:',
    '',
    'The above copyright notice and this permission notice shall be included in all copies',
    'or substantial portions of the Software.',
    '',
    'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,',
    'INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR',
    'PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE',
    'LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT',
    'OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR',
    'OTHER DEALINGS IN THE SOFTWARE.',
    '',
    "jq also incorporates code under other licences (David M. Gay's dtoa.c and g_fmt.c,",
    'decNumber, Oniguruma); their notices are in the COPYING file of jq 1.8.2, at the',
    'address above.',
  ].join('\n'),
};

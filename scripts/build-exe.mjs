// Builds the standalone executable: `node scripts/build-exe.mjs [TARGET...]` (default
// linux-x64; `npm run build:exe` builds dist/ first) writes dist-exe/petstore-TARGET, a Node
// single executable application (SEA) holding Node.js NODE_VERSION (build/node-binary.mjs),
// the shim as its main script (bin/petstore.js, the fast path's texts inside), and as SEA
// assets the CLI's bundle and its hash (dist/petstore.cjs and .sha256, which the shim loads
// with its code cache as an installed copy does), --jq's two files (dist/jq-worker.cjs,
// dist/jq.wasm) and `petstore mcp`'s (dist/mcp.cjs, dist/openapi.yaml), which
// src/render/jq-assets.ts and src/commands/mcp/assets.ts read there.
// Beside it: THIRD_PARTY_NOTICES (the bundled packages' licences and Node.js's own) and
// SHA256SUMS.
//
// The target's own Node binary makes the preparation blob (the blob must come from the
// binary's version); for the machine's own platform with V8's code cache of the shim (made
// for the platform it is built on, hence none for a cross build). The CLI's bundle gets the
// cache the shim keeps in the user's cache folder, which holds the code a run compiled: the
// one a SEA can carry is made before anything runs, and a `pets list` with it alone was
// measured 1.2x slower (docs/performance.md). No startup snapshot: it cannot hold the HTTP
// stack (undici, node:http), which is most of what a command loads. The blob goes into a
// copy of the binary with postject; a Windows binary's signature is removed first
// (osslsigncode), and neither Windows nor macOS binaries are signed here (see
// docs/install.md).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import {
  BESIDE_BUNDLE,
  BUNDLE,
  cliBundleOptions,
  jqWorkerOptions,
  mcpServerOptions,
  productOptions,
} from './build/bundle.mjs';
import { NODE_VERSION, TARGETS, nodeLicense, nodePackage } from './build/node-binary.mjs';
import { jqNotices, thirdPartyNotices } from './build/notices.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, 'dist-exe');
const work = join(out, '.work');
const require = createRequire(join(root, 'package.json'));
const native = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
/** postject's default sentinel, which Node's binary looks for (Node docs, "Single executable applications"). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const targets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['linux-x64'];
// Every target's Node first (fetched once, then cached), so an unknown target or one the
// registry has no Node for stops the build before anything is written.
const nodes = Object.fromEntries(targets.map((target) => [target, nodePackage(target)]));
if (!existsSync(join(root, 'dist', 'static', 'help.txt')))
  throw new Error('dist/ is not built: run npm run build first');

// The main script: the shim, with the fast path's texts.
const staticTexts = Object.fromEntries(
  ['version.txt', 'help.txt'].map((f) => [f, readFileSync(join(root, 'dist', 'static', f), 'utf8')]),
);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const main = join(work, 'petstore-sea.cjs');
const options = productOptions(root, pkg.version);
await build({
  ...options,
  entryPoints: ['bin/petstore.js'],
  outfile: main,
  define: {
    ...options.define,
    __PETSTORE_SEA__: 'true',
    __PETSTORE_STATIC__: JSON.stringify(staticTexts),
  },
});
// The CLI's bundle is dist/'s own, checked by its build; built again here without writing,
// for its inputs (the notices), and to make sure dist/ holds what the sources make.
const cli = await build({ ...cliBundleOptions(root, pkg.version), write: false, outdir: work });
const made = cli.outputFiles.find((f) => basename(f.path) === BUNDLE)?.text;
if (made !== readFileSync(join(root, 'dist', BUNDLE), 'utf8')) {
  throw new Error(`dist/${BUNDLE} is not what the sources make: run npm run build first`);
}
// The jq worker's inputs, for the notices (its bundle is dist/'s own, built just before).
const worker = await build({ ...jqWorkerOptions(root), write: false, outfile: join(work, BESIDE_BUNDLE.jqWorker) });
const mcp = await build({
  ...mcpServerOptions(root, pkg.version),
  write: false,
  outfile: join(work, BESIDE_BUNDLE.mcpServer),
});
const inputs = [
  ...Object.keys(cli.metafile.inputs),
  ...Object.keys(worker.metafile.inputs),
  ...Object.keys(mcp.metafile.inputs),
];
const assets = Object.fromEntries(
  [BUNDLE, `${BUNDLE}.sha256`, ...Object.values(BESIDE_BUNDLE)].map((name) => [name, join(root, 'dist', name)]),
);

/** Writes the SEA preparation blob for `target` with `node` (same version) and returns its path. */
function prepareBlob(target, node) {
  const codeCache = target === native;
  const blob = join(work, `${target}.blob`);
  const config = join(work, `${target}.sea-config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: codeCache,
      assets,
    }),
  );
  execFileSync(node, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { blob, codeCache };
}

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f !== '.work') rmSync(join(out, f), { recursive: true, force: true });
const nativeNode = nodePackage(native in TARGETS ? native : 'linux-x64').binary;
const built = [];
for (const target of targets) {
  const t = TARGETS[target];
  const node = nodes[target];
  const exe = join(out, `petstore-${target}${t.os === 'win32' ? '.exe' : ''}`);
  const { blob, codeCache } = prepareBlob(target, nativeNode);
  rmSync(exe, { force: true });
  if (t.os === 'win32') {
    execFileSync('osslsigncode', ['remove-signature', '-in', node.binary, '-out', exe], { stdio: 'ignore' });
  } else {
    copyFileSync(node.binary, exe);
  }
  chmodSync(exe, 0o755);
  const { inject } = require('postject');
  await inject(exe, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: SENTINEL_FUSE,
    ...(t.os === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  built.push({ target, exe, codeCache });
  process.stderr.write(
    `built ${exe} (Node ${NODE_VERSION}${codeCache ? ', code cache' : ', no code cache: cross build'})\n`,
  );
}

// The licences of what the executables carry: the bundled packages and Node.js itself.
const nodeEntry = {
  name: 'Node.js',
  version: NODE_VERSION,
  license: 'MIT, and the licences of its own dependencies below',
  source: 'https://github.com/nodejs/node',
  text: nodeLicense().trim(),
};
writeFileSync(
  join(out, 'THIRD_PARTY_NOTICES'),
  thirdPartyNotices(root, `${pkg.name} ${pkg.version} (standalone executable)`, inputs, [
    ...jqNotices(root),
    nodeEntry,
  ]),
);
const sums = readdirSync(out)
  .filter((f) => f.startsWith('petstore-') || f === 'THIRD_PARTY_NOTICES')
  .sort()
  .map(
    (f) =>
      `${createHash('sha256')
        .update(readFileSync(join(out, f)))
        .digest('hex')}  ${f}`,
  );
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
rmSync(work, { recursive: true, force: true });

// Builds dist/ with esbuild: the whole CLI as one CommonJS file, dist/petstore.cjs, which
// bin/petstore.js requires. One file starts faster than ES module chunks (no module loader
// walking some thirty files), Node's compile cache can keep it whole, and the standalone
// executable (scripts/build-exe.mjs, same options: build/bundle.mjs) needs one. What a command runs only when
// it runs (its run module, the HTTP client, zod, the prompts) stays lazy inside the file:
// esbuild wraps each module in an initialiser called on first import.
//
// Beside it: dist/petstore.cjs.sha256 (the bundle's hash: the key of the shim's code cache),
// dist/jq-worker.cjs and dist/jq.wasm (what --jq loads, and nothing else:
// src/render/jq-assets.ts), dist/mcp.cjs and dist/openapi.yaml (what `petstore mcp` loads:
// src/commands/mcp/assets.ts), dist/static/ (the --version and --help texts of the shim's
// fast path), dist/man/petstore.1 (from the command tree), dist/THIRD_PARTY_NOTICES (from
// the inputs of both bundles). The build stops, leaving the previous dist/ in place, when
// one of its checks fails.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  BESIDE_BUNDLE,
  BUNDLE,
  cliBundleOptions,
  jqWorkerOptions,
  mcpServerOptions,
  productOptions,
} from './build/bundle.mjs';
import { checkBundle } from './build/checks.mjs';
import { jqNotices, thirdPartyNotices } from './build/notices.mjs';
import { restoreLeftovers } from './build/packed-manifest.mjs';

const root = join(import.meta.dirname, '..');
// A pack cut short (the machine went down) may have left the package's package.json here.
for (const file of restoreLeftovers(root)) console.error(`package.json restored from ${file} (a pack cut short)`);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Build beside dist/ and swap it in, so a CLI run during a rebuild never sees half a tree.
const dist = join(root, 'dist');
const fresh = join(root, `dist.build-${process.pid}`);
const stale = join(root, `dist.old-${process.pid}`);

/** Runs `fn`; on failure removes the half-built tree and rethrows. */
async function step(what, fn) {
  try {
    return await fn();
  } catch (err) {
    rmSync(fresh, { recursive: true, force: true });
    throw new Error(`build: ${what}: ${err.message}`, { cause: err });
  }
}

const result = await step('bundling', () => build({ ...cliBundleOptions(root, pkg.version), outdir: fresh }));
const bundleFile = join(fresh, BUNDLE);
await step('checking the bundle', () => {
  checkBundle(result.metafile, bundleFile);
  // The MCP SDK is dist/mcp.cjs's alone: every other command starts without it.
  const sdk = Object.keys(result.metafile.inputs).filter((input) => input.includes('@modelcontextprotocol'));
  if (sdk.length > 0) throw new Error(`the bundle holds the MCP SDK (${sdk[0]}), which belongs in mcp.cjs alone`);
});
// The bundle's SHA-256, in sha256sum's format, beside it: the key of the shim's code cache
// (bin/petstore.js, openCodeCache), which reads this one line at start-up rather than hash
// the 1.4 MB bundle at every run.
await step('hashing the bundle', () =>
  writeFileSync(
    `${bundleFile}.sha256`,
    `${createHash('sha256').update(readFileSync(bundleFile)).digest('hex')}  ${BUNDLE}\n`,
  ),
);

// --jq's two files, loaded by nothing else (src/render/jq-assets.ts): the worker thread,
// bundled with jq-wasm into one CommonJS file, and jq's WebAssembly (0.9 MB) beside it. Kept
// out of the bundle every other command loads: inlined, the wasm cost every `pets list` 5%.
const worker = await step('bundling the jq worker', () =>
  build({ ...jqWorkerOptions(root), outfile: join(fresh, BESIDE_BUNDLE.jqWorker) }),
);
await step('copying jq.wasm', () => {
  const wasm = join(fresh, BESIDE_BUNDLE.jqWasm);
  copyFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), wasm);
  chmodSync(wasm, 0o644);
});
// `petstore mcp`'s two files, loaded by nothing else (src/commands/mcp/assets.ts): the MCP
// SDK as a bundle of its own (about 0.8 MB, none of it in what every other command starts),
// and the OpenAPI document it serves as a resource.
const mcp = await step('bundling the MCP server', () =>
  build({ ...mcpServerOptions(root, pkg.version), outfile: join(fresh, BESIDE_BUNDLE.mcpServer) }),
);
await step('checking the MCP bundle', () => checkBundle(mcp.metafile, join(fresh, BESIDE_BUNDLE.mcpServer)));
await step('copying openapi.yaml', () => copyFileSync(join(root, 'openapi.yaml'), join(fresh, BESIDE_BUNDLE.openapi)));
const inputs = [
  ...Object.keys(result.metafile.inputs),
  ...Object.keys(worker.metafile.inputs),
  ...Object.keys(mcp.metafile.inputs),
];

// Outputs that depend on nothing but the build, printed by bin/petstore.js without loading
// the CLI (a start-up fast path). Each is captured from the full path of this very build,
// and test/e2e/fast-path.test.ts checks that the two stay byte-identical.
const STATIC_OUTPUTS = { 'version.txt': ['--version'], 'help.txt': ['--help'] };
await step('capturing the fast path texts', () => {
  mkdirSync(join(fresh, 'static'));
  for (const [file, argv] of Object.entries(STATIC_OUTPUTS)) {
    const r = spawnSync(
      process.execPath,
      ['-e', 'require(process.argv[1]).run(process.argv.slice(2));', bundleFile, ...argv],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8', NO_COLOR: '1' } },
    );
    if (r.status !== 0 || r.stderr !== '' || r.stdout === '') {
      throw new Error(`\`petstore ${argv.join(' ')}\` failed (exit ${r.status}): ${r.stderr}`);
    }
    writeFileSync(join(fresh, 'static', file), r.stdout);
  }
});

// The man page, from the command tree of the sources this bundle was built from.
await step('generating the man page', async () => {
  const generator = join(fresh, 'man-generate.cjs');
  await build({ ...productOptions(root, pkg.version), entryPoints: ['scripts/man/generate.ts'], outfile: generator });
  mkdirSync(join(fresh, 'man'));
  const r = spawnSync(process.execPath, [generator, join(fresh, 'man', 'petstore.1'), root, pkg.version], {
    encoding: 'utf8',
  });
  rmSync(generator);
  if (r.status !== 0) throw new Error(r.stderr);
});

await step('writing THIRD_PARTY_NOTICES', () =>
  writeFileSync(
    join(fresh, 'THIRD_PARTY_NOTICES'),
    thirdPartyNotices(root, `${pkg.name} ${pkg.version}`, inputs, jqNotices(root)),
  ),
);

try {
  renameSync(dist, stale);
} catch (err) {
  if (err.code !== 'ENOENT') throw err; // ENOENT: no previous build
}
renameSync(fresh, dist);
rmSync(stale, { recursive: true, force: true });

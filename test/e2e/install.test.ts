/**
 * Installed like a real CLI (cli-contract.md "Binary and install"): everything the CLI runs
 * is bundled into dist/, so the package has no runtime dependencies; the packed tarball
 * ships bin/, dist/ and the docs the README links to, and no sources; its package.json has
 * no scripts, so npm has no install script to warn about; and `npm install -g --prefix DIR
 * TARBALL` (offline: there is nothing to fetch) puts a `petstore` in DIR/bin that runs
 * from a directory with no repository around it. One pack (`npm pack` with its lifecycle
 * scripts, in a copy of the checkout: test/helpers/pack.ts), one install.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSeedPets } from '../helpers/harness.js';
import { expectJqNotices } from '../helpers/notices.js';
import { copyCheckout, packCopy, type Packed } from '../helpers/pack.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let tmp: string;
let prefix: string;
/** npm's and the CLI's environment: nothing of the caller's npm or petstore settings. */
let env: Record<string, string>;
let packed: Packed;
/** npm's stderr from the install. */
let installStderr: string;

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
  packed = await packCopy(tmp, env);
  const install = await run(
    NPM,
    ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', packed.tarball],
    { cwd: tmp, env },
  );
  installStderr = install.stderr;
  // A build, a pack and an install: a loaded machine takes a minute; only a hang takes this.
}, 240_000);
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
      'docs/commands.md',
      'docs/install.md',
      'CHANGELOG.md',
      'LICENSE',
      'package.json',
    ])
      expect(paths).toContain(p);
    expect(paths.filter((p) => /^(src|test|scripts|bench|node_modules)\//.test(p))).toEqual([]);
    // Source maps carry the TypeScript sources in `sourcesContent`.
    expect(paths.filter((p) => /\.(ts|map)$/.test(p))).toEqual([]);
  });

  it('every relative link of the packed README and docs leads to a file in the package', () => {
    const paths = new Set(packed.files.map((f) => f.path));
    const pages = [...paths].filter((p) => p.endsWith('.md'));
    expect(pages).toContain('README.md');
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      const text = readFileSync(join(packed.copy, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^([a-z][a-z+.-]*:|#)/i.test(target)) continue;
        links++;
        const file = normalize(join(dirname(page), decodeURIComponent(target.replace(/#.*$/, ''))));
        if (!paths.has(file)) broken.push(`${page}: ${target}`);
      }
    }
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('its package.json has no scripts (no prepare, no install scripts); the clone keeps its own, unchanged', () => {
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOzf', packed.tarball, 'package/package.json'], { encoding: 'utf8' }),
    ) as Record<string, unknown>;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ petstore: 'bin/petstore.js' });
    // The clone: prepare still builds on `npm install`, and the pack left nothing behind.
    const clone = readFileSync(join(packed.copy, 'package.json'), 'utf8');
    expect(clone).toBe(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect((JSON.parse(clone) as { scripts: Record<string, string> }).scripts.prepare).toBe('node scripts/build.mjs');
    expect(readdirSync(packed.copy).filter((f) => f.startsWith('package.json.'))).toEqual([]);
  });

  it('docs/install.md gives its packed and unpacked sizes as npm pack reports them, within 15%', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'install.md'), 'utf8');
    const m = /\(([\d.]+)\s+(kB|MB)\s+packed,\s+([\d.]+)\s+(kB|MB)\s+unpacked/.exec(doc);
    expect(m, 'docs/install.md says "(N kB packed, N MB unpacked"').not.toBeNull();
    const bytes = (n: string, unit: string) => Number(n) * (unit === 'MB' ? 1e6 : 1e3);
    expect(bytes(m![1]!, m![2]!) / packed.size).toBeGreaterThan(0.85);
    expect(bytes(m![1]!, m![2]!) / packed.size).toBeLessThan(1.15);
    expect(bytes(m![3]!, m![4]!) / packed.unpackedSize).toBeGreaterThan(0.85);
    expect(bytes(m![3]!, m![4]!) / packed.unpackedSize).toBeLessThan(1.15);
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

  it('npm warns of nothing while installing it (no install script to allow)', () => {
    expect(installStderr).not.toMatch(/npm warn/i);
    expect(installStderr).not.toContain('install-scripts');
  });

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

describe('a pack cut short', () => {
  it('leaves the clone\u2019s package.json as it was: the guard puts it back when npm is killed', async () => {
    const copy = copyCheckout(tempDir('petstore-pack-cut-'));
    const file = join(copy, 'package.json');
    const original = readFileSync(file, 'utf8');
    // npm's part: run `prepack`'s swap through `sh -c`, as npm runs a script, then be
    // killed before `postpack`.
    const npm = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').execFileSync('sh', ['-c', '"$0" scripts/pack-manifest.mjs strip', process.execPath], { stdio: 'inherit' });
         process.stdout.write('swapped\\n');
         setInterval(() => {}, 1 << 30);`,
      ],
      { cwd: copy, env: { ...env, npm_lifecycle_event: 'prepack' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let watcher: FSWatcher | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        npm.stdout.on('data', (d: Buffer) => {
          if (d.toString().includes('swapped')) resolve();
        });
        npm.on('exit', (code) => reject(new Error(`the stand-in for npm exited (${code})`)));
      });
      expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('scripts');
      const restored = new Promise<void>((resolve) => {
        watcher = watch(copy, () => {
          if (existsSync(file) && readFileSync(file, 'utf8') === original) resolve();
        });
      });
      npm.kill('SIGKILL');
      await restored;
      expect(readdirSync(copy).filter((f) => f.startsWith('package.json.'))).toEqual([]);
    } finally {
      watcher?.close();
      npm.kill('SIGKILL');
    }
  }, 60_000);
});

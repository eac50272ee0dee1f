/**
 * Published and installed the way users will get petstore: the packed tarball is
 * `npm publish`ed to a real registry (Verdaccio on 127.0.0.1, test/helpers/npm-registry.ts),
 * installed from it with `npm install -g --prefix DIR --registry URL`, and run from that
 * prefix with the checkout out of reach (hidden under an empty tmpfs in a mount namespace of
 * its own, where the test may mount). npm installs the man page (package.json `man`), and
 * nothing runs at install time, nor does npm warn of anything: the tarball `npm pack` makes
 * (with its lifecycle scripts, in a copy of the checkout: test/helpers/pack.ts) has a
 * package.json with no scripts.
 */
import { execFile, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSeedPets } from '../helpers/harness.js';
import { startNpmRegistry, type NpmRegistry } from '../helpers/npm-registry.js';
import { packCopy } from '../helpers/pack.js';
import { canMountPrivately } from '../helpers/small-disk.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
};

/** Whether this process may hide the checkout in a mount namespace (root on Linux). */
const CAN_MOUNT = canMountPrivately();

let tmp: string;
let prefix: string;
let registry: NpmRegistry;
/** npm's environment: a home, cache and user config of the test's own. */
let env: Record<string, string>;
let installLog: string;
/** npm's stderr from the install. */
let installStderr: string;

beforeAll(async () => {
  tmp = tempDir('petstore-publish-');
  prefix = join(tmp, 'prefix');
  mkdirSync(join(tmp, 'home'));
  mkdirSync(join(tmp, 'registry'));
  registry = await startNpmRegistry(join(tmp, 'registry'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(tmp, 'home'),
    LANG: 'C.UTF-8',
    npm_config_cache: join(tmp, 'npm-cache'),
    npm_config_userconfig: registry.npmrc,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  // The tarball `npm publish` would make: packed with its lifecycle scripts, in a copy of the
  // checkout, so that the build and package.json's swap happen away from the tests beside.
  const { tarball } = await packCopy(tmp, env);
  await run('npm', ['publish', tarball, '--registry', registry.url], { cwd: tmp, env });
  const install = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--registry', registry.url, '--foreground-scripts', pkg.name],
    { cwd: tmp, env },
  );
  installLog = install.stdout + install.stderr;
  installStderr = install.stderr;
  // npm pack, publish and install: a loaded machine took most of a minute; only a hang takes this.
}, 360_000);

afterAll(() => {
  registry.stop();
  removeTempDirs();
});

/** Runs the installed petstore from a fresh directory, the checkout hidden where possible. */
function installed(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const work = tempDir('petstore-user-');
  const bin = join(prefix, 'bin', 'petstore');
  const vars = { ...env, PETSTORE_CONFIG_DIR: join(work, 'config'), HOME: work };
  const r = CAN_MOUNT
    ? spawnSync(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          'mount -t tmpfs -o size=8k,mode=0500 tmpfs "$1" && shift && cd / && exec "$@"',
          'sh',
          ROOT,
          bin,
          ...args,
        ],
        { cwd: work, env: vars, encoding: 'utf8', timeout: 60_000 },
      )
    : spawnSync(bin, args, { cwd: work, env: vars, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('published to a registry, installed from it', () => {
  it('the registry holds the version, with no install scripts in its manifest', async () => {
    const view = await run('npm', ['view', `${pkg.name}@${pkg.version}`, '--json', '--registry', registry.url], {
      cwd: tmp,
      env,
    });
    const manifest = JSON.parse(view.stdout) as { version: string; scripts?: Record<string, string>; bin?: unknown };
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.bin).toEqual({ petstore: 'bin/petstore.js' });
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts?.[hook]).toBeUndefined();
  });

  it('npm ran nothing at install time and warned of nothing; the installed package.json has no scripts', () => {
    // --foreground-scripts prints each script npm runs as `> name@version script`.
    expect(installLog).not.toMatch(/^> /m);
    expect(installLog).not.toContain('install-scripts');
    expect(installStderr).not.toMatch(/npm warn/i);
    const installed = JSON.parse(
      readFileSync(join(prefix, 'lib', 'node_modules', pkg.name, 'package.json'), 'utf8'),
    ) as { scripts?: unknown };
    expect(installed.scripts).toBeUndefined();
    // The clone keeps what builds it on `npm install`.
    expect(pkg.scripts.prepare).toContain('scripts/build.mjs');
  });

  it('is a copy in the prefix: nothing links back to the checkout, nothing installed beside it', () => {
    const home = join(prefix, 'lib', 'node_modules', pkg.name);
    expect(lstatSync(home).isSymbolicLink()).toBe(false);
    const files = readdirSync(home, { recursive: true, encoding: 'utf8' });
    expect(files).toContain(join('dist', 'petstore.cjs'));
    expect(files.filter((f) => f.startsWith('node_modules'))).toEqual([]);
    for (const f of files) {
      const p = join(home, f);
      if (lstatSync(p).isSymbolicLink()) expect(resolve(home, readlinkSync(p)).startsWith(ROOT)).toBe(false);
    }
  });

  it('petstore --version prints the published version', () => {
    const r = installed(['--version']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.code).toBe(0);
  });

  it('petstore --env sandbox pets list lists the seed pets, exactly', () => {
    const r = installed(['--env', 'sandbox', 'pets', 'list']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectSeedPets(r.stdout);
  });

  it('man finds the page npm installed under the prefix', () => {
    const r = spawnSync('man', ['-M', join(prefix, 'share', 'man'), 'petstore'], {
      env: { ...env, MANWIDTH: '100', MANPAGER: 'cat', PAGER: 'cat' },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^PETSTORE\(1\)/);
    expect(r.stdout).toContain(`petstore ${pkg.version}`);
    expect(r.stdout).toContain('(Ctrl-\\ on a terminal)');
  });
});

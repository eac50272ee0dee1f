/**
 * The README's examples run as pasted: every `sh` block between its `examples:start` and
 * `examples:end` markers, in order, in one shell, with `petstore` on PATH (as after
 * Install), a fresh config directory and an empty working directory. And the links from
 * the README to docs/ lead to files that exist.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PROGRAM } from '../helpers/run-cli.js';
import { shell } from '../helpers/shell.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

afterAll(() => {
  removeTempDirs();
});

/** The `sh` blocks between the markers, in order. */
function exampleBlocks(): string[] {
  const start = readme.indexOf('<!-- examples:start');
  const end = readme.indexOf('<!-- examples:end -->');
  expect(start, 'the README marks its examples').toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('README', () => {
  it('every example runs as pasted, in order, against the sandbox', async () => {
    const blocks = exampleBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const home = tempDir();
    const bin = join(home, 'bin');
    mkdirSync(bin);
    symlinkSync(CLI_PROGRAM, join(bin, 'petstore'));
    const work = join(home, 'work');
    mkdirSync(work);
    // One shell, as a person pasting block after block would have; stop at the first failure.
    const script = ['set -euo pipefail', `cd '${work}'`, ...blocks].join('\n');
    const r = await shell(
      script,
      {
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: home,
        PETSTORE_CONFIG_DIR: join(home, 'config'),
        TERM: 'dumb',
      },
      120_000,
    );
    expect(r.code, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(0);
    expect(r.stderr).not.toMatch(/^error:/m);
    // What the examples say they print.
    expect(r.stdout).toContain('9223372036854775807');
    expect(readFileSync(join(work, 'created.ndjson'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(work, 'pets.json'), 'utf8')) as unknown).toEqual(expect.any(Array));
    expect(readFileSync(join(work, 'pets.csv'), 'utf8')).toMatch(/^id,name,categoryId,status\r\n/);
  }, 150_000);

  it('its --jq examples run where no jq is installed', async () => {
    const lines = exampleBlocks()
      .flatMap((b) => b.split('\n'))
      .filter((l) => l.startsWith('petstore ') && l.includes(' --jq '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    // A PATH of petstore, node (its shebang's) and bash alone: there is no jq to fall back on.
    const home = tempDir();
    const bin = join(home, 'bin');
    mkdirSync(bin);
    symlinkSync(CLI_PROGRAM, join(bin, 'petstore'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const bash = spawnSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(bash, join(bin, 'bash'));
    const env = { PATH: bin, HOME: home, PETSTORE_CONFIG_DIR: join(home, 'config'), PETSTORE_ENV: 'sandbox' };
    const r = await shell(
      ['set -euo pipefail', 'if command -v jq; then exit 99; fi', ...lines].join('\n'),
      env,
      60_000,
    );
    // Only getPet's deprecation warning: no error.
    expect(r.stderr).not.toMatch(/"code"|^error:/m);
    expect(r.code).toBe(0);
    // The sandbox's seed: the sold pets' names, then pet 2^53+1's category, exact.
    expect(r.stdout).toMatch(/\n9223372036854775807\n$/);
    expect(r.stdout.split('\n').length).toBeGreaterThan(2);
  }, 90_000);

  it('links to docs/ files that exist', () => {
    const links = [...readme.matchAll(/\]\(((?:docs\/)?[\w./-]+\.(?:md|yaml))\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(8);
    for (const link of links) expect(existsSync(join(root, link)), link).toBe(true);
  });

  it('Install: each block stands alone in a fresh clone, and names the tarball npm pack makes', () => {
    const install = readme.slice(readme.indexOf('\n## Install\n'), readme.indexOf('\n## First-time setup'));
    const blocks = [...install.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    // A fresh clone has no dist/ and no dev dependencies: every block installs first.
    for (const block of blocks) expect(block).toMatch(/^npm install && /);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(install).toContain(`./${pkg.name}-${pkg.version}.tgz`);
  });

  it('every docs/ file links back only to files that exist', () => {
    for (const doc of [
      'commands',
      'configuration',
      'output',
      'errors',
      'sandbox',
      'contract',
      'performance',
      'development',
      'architecture',
      'install',
    ]) {
      const file = join(root, 'docs', `${doc}.md`);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\]\(([\w./-]+\.md)(?:#[\w-]+)?\)/g)) {
        expect(existsSync(join(dirname(file), m[1]!)), `${doc}.md → ${m[1]!}`).toBe(true);
      }
    }
  });
});

/**
 * The README runs as pasted: in a fresh clone (the repository's files, no dist/, with no
 * `petstore` on PATH), its Quick start and then every `sh` block between its
 * `examples:start` and `examples:end` markers, in order, in one shell — the first of them
 * the line that puts the clone's own `petstore` on PATH. And the links from the README to
 * docs/ lead to files that exist.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
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

/** The commands of the Quick start's `sh` block (comments and blank lines left out). */
function quickStart(): string[] {
  const section = readme.slice(readme.indexOf('\n## Quick start\n'), readme.indexOf('\n## Install\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

/**
 * A fresh clone of the repository as it is now: the files git tracks (or would), without
 * dist/; node_modules is the repository's, hard-linked (its hidden lockfile copied, as npm
 * rewrites it), so that `npm install` finds everything installed and works offline.
 */
function freshClone(into: string): string {
  const clone = join(into, 'clone');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  for (const f of files) cpSync(join(root, f), join(clone, f), { recursive: false, preserveTimestamps: true });
  // A node_modules that is a symlink (a checkout sharing another's install) is linked file
  // by file, never as the link itself: through the link, removing the clone's hidden
  // lockfile and the README's `npm install` would change the shared install.
  execFileSync('cp', ['-al', realpathSync(join(root, 'node_modules')), join(clone, 'node_modules')]);
  const hidden = join(clone, 'node_modules', '.package-lock.json');
  rmSync(hidden, { force: true });
  // npm writes it anew where there was none.
  const lock = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(lock)) cpSync(lock, hidden);
  return clone;
}

describe('README', () => {
  it('Quick start, then every example, runs as pasted, in order, in a fresh clone', async () => {
    const start = quickStart();
    // The one that runs this test suite is left out.
    const commands = start.filter((c) => !c.includes('npm test'));
    expect(start).toContain('npm install && npx petstore --env sandbox pets list --status available');
    expect(commands.length).toBe(start.length - 1);
    const blocks = exampleBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks[0]).toMatch(/^export PATH="\$PWD\/bin:\$PATH"$/m);
    const home = tempDir();
    const clone = freshClone(home);
    const before = readdirSync(clone).sort();
    const node = dirname(process.execPath);
    // One shell, as a person pasting block after block would have; stop at the first failure.
    const script = ['set -euo pipefail', `cd '${clone}'`, ...commands, ...blocks, 'pwd > "$HOME/examples-ran-in"'];
    const r = await shell(
      script.join('\n'),
      {
        // No petstore on it: the README's own line puts the clone's there.
        PATH: `${node}:/usr/bin:/bin`,
        HOME: home,
        TMPDIR: home,
        PETSTORE_CONFIG_DIR: join(home, 'config'),
        TERM: 'dumb',
        // npm finds everything installed: it must not reach the network, nor print notices.
        npm_config_offline: 'true',
        npm_config_cache: join(home, 'npm-cache'),
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      },
      // npm install, a build and every example: a loaded machine took 150 s; only a hang takes ten minutes.
      600_000,
    );
    expect(r.code, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(0);
    expect(r.stderr).not.toMatch(/^error:/m);
    // Quick start listed the available animals of the sandbox.
    expect(r.stdout).toMatch(/^1\tRex\t1\tavailable$/m);
    // What the examples say they print.
    expect(r.stdout).toContain('9223372036854775807');
    const work = readFileSync(join(home, 'examples-ran-in'), 'utf8').trim();
    expect(work.startsWith(home)).toBe(true);
    expect(readFileSync(join(work, 'created.ndjson'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(work, 'pets.json'), 'utf8')) as unknown).toEqual(expect.any(Array));
    expect(readFileSync(join(work, 'pets.csv'), 'utf8')).toMatch(/^id,name,categoryId,status\r\n/);
    // The clone got its build and nothing else: the examples wrote their files elsewhere.
    expect(readdirSync(clone).sort()).toEqual([...before, 'dist'].sort());
  }, 660_000);

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
      // A loaded machine took 14 s; only a hang takes this.
      180_000,
    );
    // Only getPet's deprecation warning: no error.
    expect(r.stderr).not.toMatch(/"code"|^error:/m);
    expect(r.code).toBe(0);
    // The sandbox's seed: the sold pets' names, then pet 2^53+1's category, exact.
    expect(r.stdout).toMatch(/\n9223372036854775807\n$/);
    expect(r.stdout.split('\n').length).toBeGreaterThan(2);
  }, 240_000);

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
    // Each is one alternative: one line, which leaves no file behind in the clone (npm pack's
    // tarball is removed once installed).
    for (const block of blocks) expect(block.split('\n')).toHaveLength(1);
    expect(install).toMatch(/npm pack && npm install -g (\.\/\S+\.tgz) && rm \1/);
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

  it('Shell completion: each shell\u2019s lines load the script as it says to be loaded, and turn completion on', () => {
    const section = readme.slice(readme.indexOf('\n## Shell completion\n'), readme.indexOf('\n## Examples by user'));
    const lines = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
      m[1]!.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')),
    );
    const home = tempDir();
    const bin = join(home, 'bin');
    mkdirSync(bin);
    symlinkSync(CLI_PROGRAM, join(bin, 'petstore'));
    const env = { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8' };
    /** What `shell -c script` prints, or undefined when that shell is not installed. */
    const run = (sh: string, args: string[]): string | undefined => {
      const r = spawnSync(sh, args, { env, encoding: 'utf8', cwd: home });
      if (r.error !== undefined) return undefined;
      expect(r.stderr, `${sh} ${args.join(' ')}`).toBe('');
      expect(r.status).toBe(0);
      return r.stdout;
    };
    const checks: Record<string, (line: string) => void> = {
      bash: (line) =>
        expect(run('bash', ['--norc', '--noprofile', '-c', `${line}\ncomplete -p petstore`])).toBe(
          'complete -F __petstore_complete petstore\n',
        ),
      zsh: (line) => {
        const out = run('zsh', ['-f', '-c', `${line}\nprint -r -- \${_comps[petstore]}`]);
        if (out !== undefined) expect(out).toBe('_bash_complete -F __petstore_complete\n');
      },
      fish: (line) => {
        if (run('fish', ['-c', line]) === undefined) return;
        // A new fish finds the file on its own: Tab's candidates (each with its description
        // after a tab), asked for with `complete -C`.
        const candidates = run('fish', ['-c', 'complete -C "petstore pets list --status "']) ?? '';
        expect(candidates.split('\n').map((l) => l.split('\t')[0])).toEqual(['available', 'pending', 'sold', '']);
      },
    };
    for (const shell of ['bash', 'zsh', 'fish']) {
      const line = lines.find((l) => l.includes(`petstore completion ${shell}`));
      expect(line, `the README has a line for ${shell}`).toBeDefined();
      // The way the script's own first line says it is loaded.
      const header = execFileSync(CLI_PROGRAM, ['completion', shell], { encoding: 'utf8', env }).split('\n')[0]!;
      const how = /(?:Load it with|Install): (.*)$/.exec(header)?.[1];
      expect(how, header).toBeDefined();
      expect(line).toContain(how);
      checks[shell]!(line!);
    }
  });
});

/**
 * The standalone executable (`npm run build:exe`), run the way it is handed out: alone,
 * with no Node on PATH and nearly no environment, from any directory. This file runs only
 * when PETSTORE_TEST_EXECUTABLE names the executable (vitest.config.ts); `.ci/run` runs it,
 * with the process tests of the suite pointed at the executable by the same switch.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSeedPets } from '../helpers/harness.js';
import { EXECUTABLE } from '../helpers/run-cli.js';
import { expectJqNotices } from '../helpers/notices.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const exe = EXECUTABLE ?? '';
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

afterAll(() => removeTempDirs());

/** Runs the executable under `env -i` with only HOME and a PATH where nothing is found. */
function alone(args: string[], cwd: string, home: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('env', ['-i', `HOME=${home}`, 'PATH=/nonexistent', exe, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the standalone executable', () => {
  it('is given', () => {
    expect(EXECUTABLE, 'PETSTORE_TEST_EXECUTABLE').toBeDefined();
  });

  it.each(['a fresh directory', '/'])('lists the sandbox with no Node on PATH, from %s', (where) => {
    const home = tempDir('petstore-exe-home-');
    const r = alone(['--env', 'sandbox', 'pets', 'list'], where === '/' ? '/' : tempDir('petstore-exe-cwd-'), home);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectSeedPets(r.stdout);
  });

  it('prints its version, and help, with nothing else around it', () => {
    const home = tempDir('petstore-exe-home-');
    expect(alone(['--version'], '/', home)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = alone(['pets', 'list', '--help'], '/', home);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: petstore pets list');
  });

  it('--jq runs jq from inside it (worker and WebAssembly are its assets), int64 exact', () => {
    const r = alone(
      ['--env', 'sandbox', 'pets', 'list', '--jq', '.[] | select(.name == "Atlas") | .id, .categoryId'],
      tempDir('petstore-exe-cwd-'),
      tempDir('petstore-exe-home-'),
    );
    expect(r).toEqual({ code: 0, stdout: '9007199254740993\n9223372036854775807\n', stderr: '' });
  });

  it('keeps the code a run compiled in the user’s cache folder: written once, read after, replaced when damaged', () => {
    const home = tempDir('petstore-exe-home-');
    const cwd = tempDir('petstore-exe-cwd-');
    const list = (): ReturnType<typeof alone> => alone(['--env', 'sandbox', 'pets', 'list', '--json'], cwd, home);
    const first = list();
    expect(first).toMatchObject({ code: 0, stderr: '' });
    // HOME's ~/.cache/petstore, private, one file of the executable's own kind.
    const folder = join(home, '.cache', 'petstore');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^code-exe-v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]{8}-[0-9a-f]{16}\.v8$/);
    const file = join(folder, files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    // Read by the next run (accepted: not written again), which prints the same.
    expect(list()).toEqual(first);
    expect(statSync(file).mtimeMs).toBe(written);
    // Bytes of V8's data flipped past its header: V8's checksum refuses them, and the run
    // prints the same and writes a whole cache again.
    const bytes = readFileSync(file);
    for (let at = 200; at < bytes.length; at += Math.floor(bytes.length / 50)) bytes[at]! ^= 0xa5;
    writeFileSync(file, bytes);
    expect(list()).toEqual(first);
    expect(readFileSync(file).equals(bytes)).toBe(false);
    expect(list()).toEqual(first);
  });

  it('a usage error is exit 2 with the message on stderr', () => {
    const r = alone(['pets', 'list', '--limit', '0'], '/', tempDir('petstore-exe-home-'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--limit');
  });

  it('has SHA256SUMS and THIRD_PARTY_NOTICES beside it, and the sum is its own', () => {
    const dir = dirname(exe);
    const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
    const digest = createHash('sha256').update(readFileSync(exe)).digest('hex');
    expect(sums.split('\n')).toContain(`${digest}  ${basename(exe)}`);
    const notices = readFileSync(join(dir, 'THIRD_PARTY_NOTICES'), 'utf8');
    for (const name of ['Node.js', 'commander', 'undici', 'zod'])
      expect(notices).toMatch(new RegExp(`^  ${name} `, 'm'));
    expectJqNotices(notices);
  });
});

/**
 * The start-up fast path of bin/petstore.js: `--version`, `-V`, `--help` and `-h` alone
 * print text captured at build time instead of loading the CLI. These tests run each of
 * them both ways, through the shim and through the full path (dist/petstore.cjs's `run`,
 * which parses with commander), and require the same stdout, stderr and exit code, so the
 * captured text can never drift from what the program itself prints.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, collectRun, RUN_TIMEOUT_MS, runCli, type CliResult } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const BUNDLE = fileURLToPath(new URL('../../dist/petstore.cjs', import.meta.url));
const STATIC_DIR = fileURLToPath(new URL('../../dist/static/', import.meta.url));

/** Runs argv through the full path (commander), bypassing the shim's fast path. */
function runFullPath(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', 'require(process.argv[1]).run(process.argv.slice(2));', BUNDLE, ...args],
      { env: { ...baseEnv(), HOME: '/nonexistent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('fast path of --version and --help', () => {
  it('is built: dist/static holds the captured outputs', () => {
    expect(existsSync(`${STATIC_DIR}version.txt`)).toBe(true);
    expect(existsSync(`${STATIC_DIR}help.txt`)).toBe(true);
  });

  for (const flag of ['--version', '-V', '--help', '-h']) {
    it(`petstore ${flag} prints exactly what the full path prints`, async () => {
      const [fast, full] = await Promise.all([runCli([flag]), runFullPath([flag])]);
      expect(full.code).toBe(0);
      expect(full.stderr).toBe('');
      expect(full.stdout).not.toBe('');
      expect(fast.stdout).toBe(full.stdout);
      expect(fast.stderr).toBe(full.stderr);
      expect(fast.code).toBe(full.code);
    });
  }

  it('on a terminal the fast path is taken only at 80 columns, where the full path prints the same bytes', async () => {
    const captured = readFileSync(`${STATIC_DIR}help.txt`, 'utf8');
    const rows = captured.split('\n').length + 1;
    const [at80, at60] = await Promise.all([
      runMain(['--help'], { tty: true, columns: 80, rows }),
      runMain(['--help'], { tty: true, columns: 60, rows }),
    ]);
    expect(at80.stdout).toBe(captured);
    // At another width the help differs, so bin/petstore.js must not print the captured
    // text there: first-contact.test.ts runs the shim in a 60-column terminal (tmux).
    expect(at60.stdout).not.toBe(captured);
  });

  it('on a terminal with fewer rows than the help has lines, the full path pages it, so the fast path must not print it', async () => {
    const captured = readFileSync(`${STATIC_DIR}help.txt`, 'utf8');
    const lines = captured.split('\n').length - 1;
    const paged = `${tempDir()}/paged.txt`;
    const env = { PETSTORE_PAGER: `cat > '${paged}'`, PAGER: 'false' };
    const [fits, tooShort] = await Promise.all([
      runMain(['--help'], { tty: true, columns: 80, rows: lines + 1, env }),
      runMain(['--help'], { tty: true, columns: 80, rows: lines, env }),
    ]);
    expect(fits.stdout).toBe(captured);
    expect(tooShort.stdout).toBe('');
    expect(readFileSync(paged, 'utf8')).toBe(captured);
    // test/e2e/help-pager.test.ts runs the shim in tmux at 80x20 (paged) and 80x30 (not).
  });

  it('--version prints the package version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    const r = await runCli(['--version']);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('colour settings change neither output', async () => {
    const envs: Record<string, string>[] = [
      { FORCE_COLOR: '1' },
      { NO_COLOR: '1' },
      { CLICOLOR_FORCE: '1', TERM: 'xterm-256color' },
    ];
    for (const env of envs) {
      const [fast, full] = await Promise.all([runCli(['--help'], { env }), runFullPath(['--help'], env)]);
      expect(fast.stdout).toBe(full.stdout);
      expect(fast.code).toBe(0);
    }
  });

  it('other arguments take the full path: `pets --help` is answered by commander', async () => {
    const [fast, full] = await Promise.all([runCli(['pets', '--help']), runFullPath(['pets', '--help'])]);
    expect(fast.stdout).toBe(full.stdout);
    expect(fast.stdout).toContain('Usage: petstore pets');
    expect(fast.code).toBe(full.code);
  });

  it('an unknown flag is still a usage error (exit 2), not a fast-path answer', async () => {
    const r = await runCli(['--versionx']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--versionx');
  });
});

describe('the bundle run by hand', () => {
  afterAll(removeTempDirs);

  it('`node dist/petstore.cjs ARGS` runs the CLI once, as the shim does', async () => {
    const started = Date.now();
    const child = spawn(process.execPath, [BUNDLE, '--env', 'sandbox', 'pets', 'list', '--limit', '2'], {
      env: { ...baseEnv(), HOME: '/nonexistent', PETSTORE_CONFIG_DIR: tempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = await collectRun(child, started, RUN_TIMEOUT_MS);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n2\tWhiskers\t2\tavailable\n');
  });
});

/**
 * Runs the built CLI (`bin/petstore.js`) as a child process, the way users and scripts do,
 * and checks on every run that no secret reached stdout or stderr.
 *
 * One switch points every spawned run at the standalone executable instead:
 * `PETSTORE_TEST_EXECUTABLE=dist-exe/petstore-linux-x64 npx vitest run FILE...` (built by
 * `npm run build:exe`; `.ci/run` runs the process tests so). `runCli`, `spawnCli`, the tmux
 * helper's `petstore` and scripts that use `CLI_SHELL` then run the executable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { asUser, sharedCopyOf, type LocalUser } from './other-user.js';

/** Path of the CLI's bin shim. */
export const CLI = fileURLToPath(new URL('../../bin/petstore.js', import.meta.url));

const executable = process.env.PETSTORE_TEST_EXECUTABLE;
/** The standalone executable the spawned runs target, or undefined (they run `node bin/petstore.js`). */
export const EXECUTABLE = executable !== undefined && executable !== '' ? resolve(executable) : undefined;

/** The command line of the CLI under test: `[node, bin/petstore.js]`, or `[executable]`. */
export const CLI_ARGV: readonly [string, ...string[]] =
  EXECUTABLE !== undefined ? [EXECUTABLE] : [process.execPath, CLI];

/** A file that runs as `petstore` when linked into a directory on PATH (the shim or the executable). */
export const CLI_PROGRAM = EXECUTABLE ?? CLI;

/** `CLI_ARGV` as words of a shell command line, each quoted. */
export const CLI_SHELL = CLI_ARGV.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');

/** Result of one run. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time in ms. */
  ms: number;
  /** True when the run was killed for passing its `timeoutMs` (a hang), not ended by itself. */
  timedOut?: boolean;
}

/** Options of one run. */
export interface RunOptions {
  /** Extra environment; `PETSTORE_*`, colour and proxy variables of the parent are never inherited. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  input?: string;
  /**
   * Kill after this many ms (default 60 s, `RUN_TIMEOUT_MS`). Only a hang should reach it:
   * on a loaded two-core machine a run that takes 0.2 s alone can take several seconds.
   */
  timeoutMs?: number;
  /** Values that must never appear in stdout or stderr (API keys). `env.PETSTORE_API_KEY` is always added. */
  secrets?: string[];
  /** The working directory (default: `PETSTORE_CONFIG_DIR` when given, else the test's). */
  cwd?: string;
  /**
   * Run as this local user (root only: `setpriv`; test/helpers/other-user.ts), from a copy
   * of the CLI every user can read.
   */
  as?: LocalUser;
}

/**
 * How long a spawned run may take before it is killed as hung, unless a test says otherwise:
 * far beyond a loaded CI machine's worst, reached only by a run that does not end.
 */
export const RUN_TIMEOUT_MS = 60_000;

const secretSet = new Set<string>();

/**
 * The one command whose job is to print a secret (`petstore auth token`): the key may reach
 * its stdout, and only its stdout. Every other command, and this one's stderr, is checked.
 */
const PRINTS_SECRET = ['auth', 'token'] as const;

/** Whether `args` run the command that prints the key on stdout (`PRINTS_SECRET`). */
function printsSecret(args: readonly string[]): boolean {
  return args.some((a, i) => a === PRINTS_SECRET[0] && args[i + 1] === PRINTS_SECRET[1]);
}

/**
 * Fails the test if a secret reached stdout or stderr; `auth token` (`PRINTS_SECRET`) may
 * print one on stdout.
 */
export function expectNoSecret(
  args: readonly string[],
  secrets: readonly string[],
  stdout: string,
  stderr: string,
): void {
  for (const s of secrets) {
    if (!printsSecret(args)) expect(stdout, 'a secret reached stdout').not.toContain(s);
    expect(stderr, 'a secret reached stderr').not.toContain(s);
  }
}

/** Adds a secret that no later run may print (e.g. a key stored with `auth login`). */
export function registerSecret(secret: string): void {
  if (secret.length >= 6) secretSet.add(secret);
}

/** The secrets registered so far. */
export function registeredSecrets(): string[] {
  return [...secretSet];
}

/**
 * Messages with their wrapping undone: every line break but the last, with the indentation
 * around it, becomes one space, and so does a command's ` \` line continuation. petstore
 * wraps warnings, notes, errors and hints at 80 columns, so a test looking for a phrase in
 * stderr looks in `unwrapped(stderr)`.
 */
export function unwrapped(text: string): string {
  return text.replace(/ *(?: \\)?\n *(?!$)/g, ' ');
}

/** `dir` when it is an existing folder (a run's working directory), else undefined: the test's own. */
export function folderOrNone(dir: string | undefined): string | undefined {
  return dir !== undefined && existsSync(dir) ? dir : undefined;
}

/**
 * Where spawned runs keep petstore's code cache (bin/petstore.js): one directory beside the
 * temp dirs, shared by every run, as a user's ~/.cache is, so that the config directories
 * the tests inspect (HOME defaults to one) hold only what petstore stores there.
 */
const TEST_CACHE_HOME = join(tmpdir(), 'petstore-test-cache');

/** The environment a run starts from: PATH, LANG and the cache home, nothing that changes behaviour. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    XDG_CACHE_HOME: TEST_CACHE_HOME,
  };
  if (process.env.SYSTEMROOT !== undefined) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

/**
 * Runs `petstore ...args` and resolves when it exits. Asserts that no secret appears in
 * its output (issue: a key never reaches stdout, stderr or logs).
 */
export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = { ...baseEnv() };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  if (env.HOME === undefined) env.HOME = env.PETSTORE_CONFIG_DIR ?? '/nonexistent';
  const secrets = [...secretSet, ...(opts.secrets ?? [])];
  if (env.PETSTORE_API_KEY !== undefined && env.PETSTORE_API_KEY.length >= 6) secrets.push(env.PETSTORE_API_KEY);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const [command, ...pre] = opts.as === undefined ? CLI_ARGV : asUser(opts.as, sharedCopyOf(CLI_ARGV));
    const child = spawn(command, [...pre, ...args], {
      env,
      cwd: opts.cwd ?? folderOrNone(opts.env?.PETSTORE_CONFIG_DIR),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    collectRun(child, started, opts.timeoutMs ?? RUN_TIMEOUT_MS, (out, err) =>
      expectNoSecret(args, secrets, out, err),
    ).then(resolve, reject);
  });
}

/**
 * What `child` (spawned at `started`, ms since the epoch) wrote on stdout and stderr (UTF-8),
 * its exit code or signal, and how long it ran, once it has closed; killed (SIGKILL) as hung
 * after `timeoutMs`, and then marked `timedOut`. `check` sees the output before the result.
 * Rejects when the process could not be spawned.
 */
export function collectRun(
  child: ChildProcess & { stdout: Readable; stderr: Readable },
  started: number,
  timeoutMs: number,
  check: (stdout: string, stderr: string) => void = () => undefined,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      check(stdout, stderr);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/**
 * Runs the CLI with `args` over the base environment plus `env`, NODE_OPTIONS `nodeOptions`
 * (a probe preloaded, say) and stdout discarded; resolves its exit code and the figure its
 * stderr gives as `<name>=<digits>`. Rejects when stderr holds no such figure.
 */
export function probedRun(
  args: string[],
  env: Record<string, string>,
  nodeOptions: string,
  name: string,
): Promise<{ code: number | null; figure: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...baseEnv(), ...env, NODE_OPTIONS: nodeOptions },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = new RegExp(`${name}=(\\d+)`).exec(err);
      if (m === null) reject(new Error(`no ${name} figure in: ${err.slice(0, 500)}`));
      else resolve({ code, figure: Number(m[1]) });
    });
  });
}

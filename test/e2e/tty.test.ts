/**
 * `petstore` in a real terminal: tmux gives the CLI a pseudo-terminal for stdin, stdout
 * and stderr, and lets the test type keys and read the screen. Each test uses its own
 * tmux server (`-L`, a private socket) and kills it afterwards. Setup steps and piped
 * runs need no terminal and run in-process (`runMain`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ARGV, registerSecret } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, startTestServer, type TestServer } from '../helpers/test-server.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const STAGING_KEY = 'tty-staging-key-5f3a9c1e7b2d';
registerSecret(STAGING_KEY);

let staging: TestServer;
beforeAll(async () => {
  staging = await startTestServer((req) =>
    req.headers.authorization === `Bearer ${STAGING_KEY}`
      ? { status: 200, body: [] }
      : errorReply(401, 'unauthorized', 'invalid API key'),
  );
});
afterAll(async () => {
  await staging.close();
  removeTempDirs();
});

const terminals: TmuxSession[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

/**
 * How long the screen may take to show what a test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;

/** Waits for the screen to show `pattern`, not for time: a loaded machine may take long. */
function shows(t: TmuxSession, pattern: RegExp): Promise<string> {
  return t.waitFor(pattern, { timeoutMs: SCREEN_MS });
}

const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs petstore in a fresh terminal with exactly `env`, then prints its exit code and
 * keeps the window (and so its screen) open until the test kills the terminal: the sleep
 * outlasts any test's limit, however long a loaded machine makes the test take.
 */
function openTerminal(args: string[], env: Record<string, string>): TmuxSession {
  const vars = Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    ...env,
  })
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ');
  const cmd = `env -i ${vars} ${CLI_ARGV.map(sh).join(' ')} ${args.map(sh).join(' ')}; echo "EXIT=$?"; sleep 3600`;
  const t = startTmux({ command: cmd, height: 30 });
  terminals.push(t);
  return t;
}

async function stagingConfig(): Promise<{ file: string; env: Record<string, string> }> {
  const dir = join(tempDir(), 'cfg');
  const env = { PETSTORE_CONFIG_DIR: dir, HOME: dir };
  expect((await runMain(['config', 'set', 'staging.baseUrl', staging.baseUrl], { env })).code).toBe(0);
  return { file: join(dir, 'config.json'), env };
}

describe('auth login in a terminal', () => {
  it('asks with a hidden prompt on stderr, never echoes the key, checks it and stores it', async () => {
    const { file, env } = await stagingConfig();
    staging.requests.length = 0;
    const t = openTerminal(['--env', 'staging', 'auth', 'login'], env);
    await shows(t, new RegExp(`API key for staging \\(${staging.baseUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\):`));
    t.type(STAGING_KEY);
    t.send('C-t'); // the prompt's "toggle visibility" key must not reveal it either
    const typing = await shows(t, /input is masked/);
    expect(typing).not.toContain('toggle visibility');
    expect(typing).not.toContain(STAGING_KEY);
    expect(typing).not.toContain(STAGING_KEY.slice(0, 8));
    t.send('Enter');
    const done = await shows(t, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toContain('Logged in to staging');
    expect(done).toContain('****7b2d');
    expect(done).not.toContain(STAGING_KEY);
    expect(done).not.toContain(STAGING_KEY.slice(0, 8));
    expect((JSON.parse(readFileSync(file, 'utf8')) as { auth: unknown }).auth).toEqual({
      staging: { apiKey: STAGING_KEY, baseUrl: staging.baseUrl },
    });
    expect(staging.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${STAGING_KEY}`]);
  }, 180_000);

  it('--with-token on a terminal uses the hidden prompt too (stdin would echo the key)', async () => {
    const { file, env } = await stagingConfig();
    const t = openTerminal(['--env', 'staging', 'auth', 'login', '--with-token', '--no-verify'], env);
    await shows(t, /API key for staging/);
    t.type(STAGING_KEY);
    t.send('Enter');
    const done = await shows(t, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).not.toContain(STAGING_KEY);
    expect(
      (JSON.parse(readFileSync(file, 'utf8')) as { auth: { staging: { apiKey: string } } }).auth.staging.apiKey,
    ).toBe(STAGING_KEY);
  }, 180_000);

  it('Ctrl-C at the prompt: exit 130, nothing stored, nothing sent', async () => {
    const { file, env } = await stagingConfig();
    const before = readFileSync(file);
    staging.requests.length = 0;
    const t = openTerminal(['--env', 'staging', 'auth', 'login'], env);
    await shows(t, /API key for staging/);
    t.type('half-typed');
    t.send('C-c');
    const done = await shows(t, /EXIT=\d+/);
    expect(done).toContain('EXIT=130');
    expect(done).not.toContain('half-typed');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(staging.requests).toHaveLength(0);
  }, 180_000);

  it('a command against staging says so on stderr, so nobody mistakes it for production', async () => {
    const { file, env } = await stagingConfig();
    expect(
      (await runMain(['--env', 'staging', 'auth', 'login', '--with-token'], { env, input: STAGING_KEY })).code,
    ).toBe(0);
    expect(existsSync(file)).toBe(true);
    const t = openTerminal(['--env', 'staging', 'pets', 'list'], env);
    const done = await shows(t, /EXIT=\d+/);
    expect(done).toContain(`env: staging (${new URL(staging.baseUrl).host})`);
    expect(done).toContain('EXIT=0');
    // Piped (no terminal), the same run prints nothing on stderr.
    const piped = await runMain(['--env', 'staging', 'pets', 'list'], { env });
    expect(piped).toMatchObject({ code: 0, stdout: '', stderr: '' });
  }, 180_000);
});

/**
 * The target on a real terminal (tmux, cli-contract.md "Environments"): a command that
 * talks to staging, production or a named environment names the environment and host on stderr in a colour
 * that is neither dim (SGR 2) nor red (SGR 31, 91), and a write to production names them
 * in its summary line; `--no-color` draws them without escape codes; with stderr not a
 * terminal (the rest of the run on one) nothing extra reaches it. A test server on
 * 127.0.0.1 stands in for production and staging (their `baseUrl` set in the config).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ARGV, registerSecret } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { hasTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_target_terminal_7c1e9a';
registerSecret(KEY);

/**
 * How long the screen may take to show what a test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((req) =>
    req.method === 'POST'
      ? { status: 201, raw: '{"id":21118,"name":"Rex","categoryId":1,"status":"available"}' }
      : { status: 200, body: [] },
  );
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});

// Killed after all tests: they run concurrently, each with its own terminal.
const terminals: TmuxSession[] = [];
afterAll(() => {
  for (const t of terminals.splice(0)) t.kill();
});

const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs petstore with `args` (and `redirect`, shell text after them) in a fresh terminal
 * with exactly `env`, and returns the screen, with its escape codes, once the exit code
 * is shown. The window stays open until the test kills it.
 */
async function inTerminal(args: string[], env: Record<string, string>, redirect = ''): Promise<string> {
  const vars = Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    ...env,
  })
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ');
  const cmd = `env -i ${vars} ${CLI_ARGV.map(sh).join(' ')} ${args.map(sh).join(' ')} ${redirect}; echo "EXIT=$?"; sleep 3600`;
  const t = startTmux({ command: cmd, width: 120, height: 30 });
  terminals.push(t);
  return t.waitFor(/EXIT=\d+/, { escapes: true, timeoutMs: SCREEN_MS });
}

/**
 * A config directory whose `NAME.baseUrl` is the test server (for a name other than
 * production and staging, that creates the environment) and whose stored key for it is
 * `KEY`, and the environment of a run using it.
 */
async function configured(name: string): Promise<Record<string, string>> {
  const dir = join(tempDir(), 'cfg');
  const env = { PETSTORE_CONFIG_DIR: dir, HOME: dir };
  expect((await runMain(['config', 'set', `${name}.baseUrl`, server.baseUrl], { env })).code).toBe(0);
  // The key stored, as a person keeps it: a key from PETSTORE_API_KEY is named on the banner.
  const login = await runMain(['--env', name, 'auth', 'login', '--with-token', '--no-verify'], {
    env,
    input: `${KEY}\n`,
  });
  expect(login.code, login.stderr).toBe(0);
  return env;
}

// eslint-disable-next-line no-control-regex -- terminal escape sequences are what is looked at
const SGR = /\u001b\[([0-9;]*)m/g;

/** The screen's line holding `text` (escape codes kept), and the SGR parameters on it. */
function lineWith(screen: string, text: string): { line: string; sgr: number[] } {
  const line = screen.split('\n').find((l) => l.replace(SGR, '').includes(text));
  expect(line, `no line with ${JSON.stringify(text)} in:\n${screen}`).toBeDefined();
  const sgr = [...(line ?? '').matchAll(SGR)].flatMap((m) => (m[1] ?? '').split(';').map(Number));
  return { line: line ?? '', sgr };
}

/** The line is drawn in a colour (magenta, SGR 35) that is neither dim (2) nor red (31, 91). */
function expectTargetColour(screen: string, text: string): void {
  const { line, sgr } = lineWith(screen, text);
  expect(sgr, JSON.stringify(line)).toContain(35);
  for (const code of [2, 31, 91]) expect(sgr, JSON.stringify(line)).not.toContain(code);
}

const host = (): string => new URL(server.baseUrl).host;

describe.skipIf(!hasTmux()).concurrent('the target on a real terminal', () => {
  it('staging: `pets list` names staging and its host on stderr, magenta', async () => {
    const screen = await inTerminal(['--env', 'staging', 'pets', 'list'], await configured('staging'));
    expect(screen.replace(SGR, '')).toContain('EXIT=0');
    expectTargetColour(screen, `env: staging (${host()})`);
  }, 180_000);

  it('a named environment: `pets list --env staging-eu` names it and its host on stderr, magenta', async () => {
    const screen = await inTerminal(['--env', 'staging-eu', 'pets', 'list'], await configured('staging-eu'));
    expect(screen.replace(SGR, '')).toContain('EXIT=0');
    expectTargetColour(screen, `env: staging-eu (${host()})`);
  }, 180_000);

  it('production: `pets create` names production on stderr and in its summary line, magenta', async () => {
    const screen = await inTerminal(
      ['pets', 'create', '--name', 'Rex', '--category-id', '1'],
      await configured('production'),
    );
    expect(screen.replace(SGR, '')).toContain('EXIT=0');
    expectTargetColour(screen, `env: production (${host()})`);
    expectTargetColour(screen, `created pet 21118 "Rex" in production (${host()})`);
  }, 180_000);

  it('--no-color: the same lines, without escape codes', async () => {
    const screen = await inTerminal(
      ['--no-color', 'pets', 'create', '--name', 'Rex', '--category-id', '1'],
      await configured('production'),
    );
    expect(screen.replace(SGR, '')).toContain('EXIT=0');
    expect(lineWith(screen, `env: production (${host()})`).sgr).toEqual([]);
    expect(lineWith(screen, `created pet 21118 "Rex" in production (${host()})`).sgr).toEqual([]);
  }, 180_000);

  it.each([
    ['staging', ['--env', 'staging', 'pets', 'list']],
    ['staging-eu', ['--env', 'staging-eu', 'pets', 'create', '--name', 'Rex', '--category-id', '1']],
    ['production', ['pets', 'create', '--name', 'Rex', '--category-id', '1']],
  ] as const)(
    '%s with stderr not a terminal (stdin and stdout one): stderr stays empty',
    async (name, args) => {
      const err = join(tempDir(), 'stderr.txt');
      const screen = await inTerminal([...args], await configured(name), `2>${sh(err)}`);
      expect(screen.replace(SGR, '')).toContain('EXIT=0');
      expect(readFileSync(err, 'utf8')).toBe('');
      expect(screen.replace(SGR, '')).not.toContain('env: ');
    },
    180_000,
  );
});

/**
 * Keys that never sit in a file: an environment's `apiKeyCommand` (cli-contract.md
 * "Environments") and `auth token`, end to end against a recording test server, with real
 * scripts as the commands: the key they print is sent, stored nowhere, and the command runs
 * once per run; a command that fails, prints nothing, hangs, or whose child hangs is exit 4
 * naming it, never showing its stdout, and leaves no process behind; PETSTORE_API_KEY
 * still wins. In-process (`runMain`) except where a whole process is the point.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, CLI, registerSecret, runCli, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { errorReply, fileTestServer, startTestServer } from '../helpers/test-server.js';
import { hasTmux, startTmux } from '../helpers/tmux.js';

const COMMAND_KEY = 'cmd-key-0123456789-FROM-COMMAND';
const STORED_KEY = 'stored-key-0123456789-IN-FILE';
const ENV_KEY = 'env-key-0123456789-FROM-VARIABLE';
for (const k of [COMMAND_KEY, STORED_KEY, ENV_KEY]) registerSecret(k);

const server = await fileTestServer();
beforeEach(() => {
  server.requests.length = 0;
  server.handle((req) =>
    req.headers.authorization === undefined ? errorReply(401, 'unauthorized', 'no key') : { status: 200, body: [] },
  );
});

/** Writes an executable shell script in a folder whose name has a space (so quoting is tested). */
function script(name: string, body: string): string {
  const dir = join(tempDir(), 'key helpers');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Single-quotes `s` for the command line petstore splits (POSIX rules). */
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A config dir with production's base URL, a separate HOME, and `production.apiKeyCommand` set to `command`. */
async function withCommand(command: string): Promise<{ dir: string; home: string; env: Record<string, string> }> {
  const dir = tempDir();
  const home = tempDir();
  const env = { PETSTORE_CONFIG_DIR: dir, HOME: home };
  expect((await runMain(['config', 'set', 'production.baseUrl', server.baseUrl], { env })).code).toBe(0);
  const set = await runMain(['config', 'set', 'production.apiKeyCommand', command], { env });
  expect(set.code, set.stderr).toBe(0);
  return { dir, home, env };
}

/** Every file under `dir`, recursively, with its content. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/** The command lines of every process on this machine. */
const processes = (): string => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });

describe('apiKeyCommand: a script that prints the key', () => {
  it('the key is sent, run once per command, and stored in no file under the config dir or HOME', async () => {
    const counter = join(tempDir(), 'runs');
    const printer = script('print-key', `echo run >> "$COUNTER"\nprintf '%s\\n' '${COMMAND_KEY}'`);
    const { dir, home, env } = await withCommand(`${q(printer)} --vault store`);

    const r = await runMain(['pets', 'list'], { env: { ...env, COUNTER: counter } });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((x) => x.headers.authorization)).toEqual([`Bearer ${COMMAND_KEY}`]);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');

    for (const { path, text } of [...filesUnder(dir), ...filesUnder(home)]) {
      expect(text, `the key reached ${path}`).not.toContain(COMMAND_KEY);
    }
  });

  it("auth status runs each environment's command once and shows the source and the masked key", async () => {
    const counter = join(tempDir(), 'runs');
    const printer = script('print-key', `echo run >> "$COUNTER"\nprintf '%s\\n' '${COMMAND_KEY}'`);
    const command = `${q(printer)} --vault store`;
    const { env } = await withCommand(command);
    const r = await runMain(['auth', 'status', '--check'], { env: { ...env, COUNTER: counter } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  key       ****MAND (command: ${command})\n  check     ok\n`);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
    const json = await runMain(['auth', 'status', '--json'], { env: { ...env, COUNTER: counter } });
    const doc = JSON.parse(json.stdout) as { environments: { key: Record<string, unknown> }[] };
    expect(doc.environments[0]?.key).toMatchObject({ source: 'command', masked: '****MAND', command, usable: true });
  });

  it('the command gets no PETSTORE_API_KEY and no stdin', async () => {
    const seen = join(tempDir(), 'seen');
    const spy = script(
      'spy',
      [
        `echo "key=\${PETSTORE_API_KEY-unset}" > "$SEEN"`,
        `if read -r line; then echo "stdin=$line" >> "$SEEN"; else echo "stdin=closed" >> "$SEEN"; fi`,
        `printf '%s\\n' '${COMMAND_KEY}'`,
      ].join('\n'),
    );
    const { env } = await withCommand(q(spy));
    // PETSTORE_API_KEY decides staging's key; production's command still runs for auth status.
    const r = await runMain(['--env', 'staging', 'auth', 'status'], {
      env: { ...env, SEEN: seen, PETSTORE_API_KEY: ENV_KEY },
      input: 'typed-into-stdin\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(seen, 'utf8')).toBe('key=unset\nstdin=closed\n');
  });

  it('PETSTORE_API_KEY still wins: its key is sent and the command never runs', async () => {
    const counter = join(tempDir(), 'runs');
    const printer = script('print-key', `echo run >> "$COUNTER"\nprintf '%s\\n' '${COMMAND_KEY}'`);
    const { env } = await withCommand(q(printer));
    const r = await runMain(['pets', 'list'], { env: { ...env, COUNTER: counter, PETSTORE_API_KEY: ENV_KEY } });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((x) => x.headers.authorization)).toEqual([`Bearer ${ENV_KEY}`]);
    expect(existsSync(counter)).toBe(false);
  });

  it('auth login stores no key while a command is set: exit 2 before the key is read, the file unchanged', async () => {
    const printer = script('print-key', `printf '%s\\n' '${COMMAND_KEY}'`);
    const { dir, env } = await withCommand(q(printer));
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const login = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: STORED_KEY });
    expect(login.code).toBe(2);
    expect(unwrapped(login.stderr)).toContain(
      `error: production takes its key from a command (production.apiKeyCommand: \`${q(printer)}\`), so auth login stores no key for it; nothing was stored`,
    );
    expect(unwrapped(login.stderr)).toContain('petstore config unset production.apiKeyCommand');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    expect(server.requests).toEqual([]);
    await runMain(['pets', 'list'], { env });
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${COMMAND_KEY}`);
  });

  it('the command wins over a key stored before it was set', async () => {
    const dir = tempDir();
    const env = { PETSTORE_CONFIG_DIR: dir, HOME: tempDir() };
    expect((await runMain(['config', 'set', 'production.baseUrl', server.baseUrl], { env })).code).toBe(0);
    const login = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: STORED_KEY });
    expect(login.code, login.stderr).toBe(0);
    const printer = script('print-key', `printf '%s\\n' '${COMMAND_KEY}'`);
    expect((await runMain(['config', 'set', 'production.apiKeyCommand', q(printer)], { env })).code).toBe(0);
    await runMain(['pets', 'list'], { env });
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${COMMAND_KEY}`);
  });

  it('is never sent to another base URL: --base-url elsewhere refuses without running it', async () => {
    const counter = join(tempDir(), 'runs');
    const printer = script('print-key', `echo run >> "$COUNTER"\nprintf '%s\\n' '${COMMAND_KEY}'`);
    const { env } = await withCommand(q(printer));
    const other = await startTestServer();
    try {
      const r = await runMain(['--base-url', other.baseUrl, 'pets', 'list'], { env: { ...env, COUNTER: counter } });
      expect(r.code).toBe(4);
      expect(unwrapped(r.stderr)).toContain(
        `is sent only to production.baseUrl (${server.baseUrl}), not ${other.baseUrl}`,
      );
      expect(other.requests).toEqual([]);
      expect(existsSync(counter)).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe.skipIf(!hasTmux())('apiKeyCommand run from a terminal', () => {
  it('gets no terminal to prompt on, though petstore has one', async () => {
    const seen = join(tempDir(), 'seen');
    const spy = script(
      'spy',
      [
        `if (exec 3</dev/tty) 2>/dev/null; then echo "tty=yes" > "$SEEN"; else echo "tty=none" > "$SEEN"; fi`,
        `printf '%s\\n' '${COMMAND_KEY}'`,
      ].join('\n'),
    );
    const { env } = await withCommand(q(spy));
    const vars = Object.entries({ ...env, SEEN: seen })
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ');
    const t = startTmux({ width: 80, height: 24 });
    try {
      // The shell's own check first: in this terminal, /dev/tty opens.
      t.sendLine(`(exec 3</dev/tty) && echo TTY-OK; env ${vars} petstore pets list; echo "EXIT=$?"`);
      const screen = await t.waitFor(/EXIT=\d+/);
      expect(screen).toContain('TTY-OK');
      expect(screen).toContain('EXIT=0');
      expect(readFileSync(seen, 'utf8')).toBe('tty=none\n');
    } finally {
      t.kill();
    }
  });
});

describe('apiKeyCommand that gives no key: exit 4 naming the command, its stdout never shown', () => {
  it('exits non-zero after printing: its stderr is shown (escaped), its stdout is not, nothing is sent', async () => {
    const failing = script(
      'locked',
      `printf '%s\\n' '${COMMAND_KEY}'\nprintf 'vault is locked \\033[31mred\\n' >&2\nexit 3`,
    );
    const { env } = await withCommand(q(failing));
    const r = await runMain(['pets', 'list'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('vault is locked \\x1b[31mred\n');
    expect(unwrapped(r.stderr)).toContain(
      `error: production.apiKeyCommand \`${q(failing)}\` exited with status 3; no API key`,
    );
    expect(unwrapped(r.stderr)).toContain('unlock your password manager first');
    expect(server.requests).toEqual([]);

    const json = await runMain(['pets', 'list', '--json'], { env });
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      level: 'stderr',
      from: 'production.apiKeyCommand',
      message: 'vault is locked \x1b[31mred',
    });
    expect(lines.at(-1)).toMatchObject({
      code: 'key_command',
      status: 0,
      setting: 'production.apiKeyCommand',
      reason: 'exited with status 3',
    });
  });

  it('prints nothing', async () => {
    const { env } = await withCommand(q(script('silent', 'exit 0')));
    const r = await runMain(['pets', 'list'], { env });
    expect(r.code).toBe(4);
    expect(unwrapped(r.stderr)).toMatch(/production\.apiKeyCommand `.*silent'` printed nothing on stdout; no API key/);
    expect(server.requests).toEqual([]);
  });

  it('cannot be found', async () => {
    const { env } = await withCommand('no-such-petstore-key-helper read x');
    const r = await runMain(['pets', 'list'], { env });
    expect(r.code).toBe(4);
    expect(unwrapped(r.stderr)).toContain('cannot be run: no-such-petstore-key-helper was not found');
  });

  it('auth status: a command for an environment without a base URL is not run', async () => {
    const counter = join(tempDir(), 'runs');
    const printer = script('print-key', `echo run >> "$COUNTER"\nprintf '%s\\n' '${COMMAND_KEY}'`);
    const { env } = await withCommand(q(printer));
    await runMain(['config', 'set', 'staging.apiKeyCommand', q(printer)], { env });
    const r = await runMain(['auth', 'status'], { env: { ...env, COUNTER: counter } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  key       not run (command: ${q(printer)}): no base URL for staging\n`);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
  });

  it('auth status says that it failed and why, and --check exits 4', async () => {
    const failing = script('locked', `echo 'not signed in' >&2\nexit 1`);
    const { env } = await withCommand(q(failing));
    const r = await runMain(['auth', 'status', '--check'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(`  key       failed (command: ${q(failing)}): exited with status 1\n`);
    expect(r.stderr).toContain('not signed in');
  });

  it('hangs, or its child hangs holding its output: both ended with their processes after 10 s, exit 4', async () => {
    const marker = String(900_000 + Math.floor(Math.random() * 99_999));
    const hang = script('hang', `echo 'waiting for unlock' >&2\nsleep ${marker}1`);
    const childHangs = script('child-hangs', `sleep ${marker}2 &\nprintf '%s\\n' '${COMMAND_KEY}'\nexit 0`);
    const [a, b] = await Promise.all(
      [hang, childHangs].map(async (path) => {
        const { env } = await withCommand(q(path));
        // The command's 10 s limit is the CLI's; this one is only for a CLI that hangs.
        return runCli(['pets', 'list'], { env, timeoutMs: 120_000 });
      }),
    );
    for (const r of [a, b]) {
      expect(r?.code, r?.stderr).toBe(4);
      expect(r?.stdout).toBe('');
      expect(unwrapped(r?.stderr ?? '')).toContain(
        'did not finish within 10 s (it was ended, with every process it started)',
      );
    }
    expect(a?.stderr).toContain('waiting for unlock');
    // SIGKILL is sent before the CLI exits, but a killed process is gone only once the
    // kernel has run it to its end, which a loaded machine may do a moment later: wait for
    // that, up to a limit that a process left running reaches.
    const limit = Date.now() + 30_000;
    while (processes().includes(`sleep ${marker}`) && Date.now() < limit) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(processes()).not.toContain(`sleep ${marker}`);
    expect(server.requests).toEqual([]);
  }, 180_000);
});

describe('apiKeyCommand that writes a lot on stderr', () => {
  const MB20 = 20 * 1024 * 1024;
  const CAP = 64 * 1024;
  // Lines (`yes`), or one line without an end (`tr` of /dev/zero): either way 20 MB.
  const noisy: [string, string][] = [
    ['20 MB of lines', `yes 'noise from the key helper' | head -c ${MB20} >&2`],
    ['20 MB in one line', `head -c ${MB20} /dev/zero | tr '\\000' x >&2`],
  ];

  it.each(noisy)(
    '%s: its first 64 KiB are shown, a warning says how many bytes were dropped, the run succeeds',
    async (_name, noise) => {
      const { env } = await withCommand(q(script('noisy', `${noise}\nprintf '%s\\n' '${COMMAND_KEY}'`)));
      const r = await runMain(['pets', 'list'], { env });
      expect(r.code, r.stderr.slice(-500)).toBe(0);
      expect(server.requests.map((x) => x.headers.authorization)).toEqual([`Bearer ${COMMAND_KEY}`]);
      const at = r.stderr.lastIndexOf('warning: ');
      const relayed = r.stderr.slice(0, at);
      const warning = r.stderr.slice(at);
      // What was relayed is the cap's worth of the command's bytes (each line with its newline).
      expect(Buffer.byteLength(relayed)).toBeLessThanOrEqual(CAP + 1);
      expect(Buffer.byteLength(relayed)).toBeGreaterThanOrEqual(CAP - 64);
      expect(unwrapped(warning).trimEnd()).toBe(
        `warning: production.apiKeyCommand wrote more on stderr than the 64 KiB shown; the other ${(MB20 - CAP).toLocaleString('en-US')} bytes were dropped`,
      );
    },
  );

  it('a whole process relaying it keeps its memory: the heap it retains grows by less than 8 MiB', async () => {
    const quiet = await withCommand(q(script('quiet', `printf '%s\\n' '${COMMAND_KEY}'`)));
    const loud = await withCommand(q(script('loud', `${noisy[1]![1]}\nprintf '%s\\n' '${COMMAND_KEY}'`)));
    // Separate processes measure separate heaps, so the two runs may overlap.
    const [base, big] = await Promise.all([
      peakRetainedHeap(['pets', 'list'], quiet.env),
      peakRetainedHeap(['pets', 'list'], loud.env),
    ]);
    expect(base.code, base.stderr.slice(-500)).toBe(0);
    expect(big.code, big.stderr.slice(-500)).toBe(0);
    // Holding the 20 MB line (as before) would retain at least 20 MiB more.
    expect(big.heap - base.heap).toBeLessThan(8 * 1024 * 1024);
    expect(big.stderrBytes).toBeLessThan(CAP + 1024);
  }, 180_000);
});

const HEAP_PROBE = fileURLToPath(new URL('../helpers/heap-probe.cjs', import.meta.url));

/**
 * Runs the built CLI with the heap probe preloaded (heap-probe.cjs): its exit code, the
 * peak heap it retained (bytes, after forced GCs: what the program holds, whatever the
 * machine's load), and its stderr without the probe's line.
 */
function peakRetainedHeap(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; heap: number; stderr: string; stderrBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...baseEnv(), ...env, NODE_OPTIONS: `--expose-gc --require ${HEAP_PROBE}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /\n?PEAK_RETAINED_HEAP=(\d+)\n/.exec(err);
      if (m === null) {
        reject(new Error(`no heap figure in: ${err.slice(-500)}`));
        return;
      }
      const stderr = err.replace(m[0], '');
      resolve({ code, heap: Number(m[1]), stderr, stderrBytes: Buffer.byteLength(stderr) });
    });
  });
}

describe('auth token', () => {
  it('prints a stored key on stdout, and only there', async () => {
    const dir = tempDir();
    const env = { PETSTORE_CONFIG_DIR: dir };
    await runMain(['config', 'set', 'production.baseUrl', server.baseUrl], { env });
    await runMain(['auth', 'login', '--with-token', '--no-verify'], { env, input: STORED_KEY });
    const r = await runMain(['auth', 'token'], { env });
    expect(r).toMatchObject({ code: 0, stdout: `${STORED_KEY}\n`, stderr: '' });
  });

  it('an environment without a key: exit 4, nothing on stdout', async () => {
    const dir = tempDir();
    const env = { PETSTORE_CONFIG_DIR: dir };
    await runMain(['config', 'set', 'staging.baseUrl', server.baseUrl], { env });
    const r = await runMain(['--env', 'staging', 'auth', 'token'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(unwrapped(r.stderr)).toContain('error: no API key for staging');
  });

  it('prints the key from a command, from the built CLI too', async () => {
    const printer = script('print-key', `printf '%s\\n' '${COMMAND_KEY}'`);
    const { env } = await withCommand(q(printer));
    const r = await runCli(['auth', 'token'], { env });
    expect(r).toMatchObject({ code: 0, stdout: `${COMMAND_KEY}\n`, stderr: '' });
    expect(server.requests).toEqual([]);
  });

  it('the sandbox has no key to print (exit 2)', async () => {
    const r = await runMain(['--env', 'sandbox', 'auth', 'token'], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('config set production.apiKeyCommand', () => {
  it('refuses a command with an unclosed quote (exit 2), nothing written', async () => {
    const dir = tempDir();
    const r = await runMain(['config', 'set', 'production.apiKeyCommand', "pass show 'petstore/prod"], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      'invalid production.apiKeyCommand "pass show \'petstore/prod": a quote is not closed',
    );
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('warns that shell syntax reaches the program as plain arguments', async () => {
    const dir = tempDir();
    const r = await runMain(['config', 'set', 'production.apiKeyCommand', 'pass show petstore | head -1'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(0);
    expect(unwrapped(r.stderr)).toContain('production.apiKeyCommand is run without a shell, so "|" reach the program');
  });
});

/** An SGR colour sequence (ESC [ … m). */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

describe('on a narrow terminal', () => {
  it.each([80, 60])('config list and auth status fit %i columns', async (columns) => {
    const printer = script('print-key', `printf '%s\\n' '${COMMAND_KEY}'`);
    const { env } = await withCommand(`${q(printer)} --vault store --account support-engineering.example.com`);
    await runMain(['config', 'set', 'staging.baseUrl', 'https://staging.petstore.example/v1'], { env });
    for (const args of [
      ['config', 'list'],
      ['--env', 'staging', '--base-url', server.baseUrl, 'config', 'list'],
      ['auth', 'status'],
    ]) {
      const r = await runMain(args, { env, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      // Measured without the colour escapes (a terminal shows none of them).
      const lines = r.stdout.replace(SGR, '').trimEnd().split('\n');
      expect(
        lines.filter((l) => l.length > columns),
        args.join(' '),
      ).toEqual([]);
      expect(lines.length).toBeGreaterThanOrEqual(7);
    }
    const piped = await runMain(['config', 'list'], { env });
    expect(piped.stdout).toContain(
      `production.apiKeyCommand\t${q(printer)} --vault store --account support-engineering.example.com\tfile\n`,
    );
  });
});

/**
 * What a person meets first: bare `petstore` and `petstore pets` print help on stdout with
 * exit 0 (gh's and kubectl's way); `help` with a mistyped word suggests the right one;
 * `pets list --limit` over 100 with `--all` does not tell them to add the `--all` they
 * gave; `sandbox serve` says in words why it cannot listen, serves beyond loopback only
 * when told to (with a warning that the key crosses the network in clear), and takes an
 * IPv6 address in brackets. In-process (runMain).
 */
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeTempDirs();
});

describe.concurrent('a command word left out', () => {
  it.each([[[]], [['pets']], [['auth']], [['--env', 'sandbox', 'config']]])(
    '`petstore %j` prints its help on stdout, exit 0',
    async (words) => {
      const r = await runMain(words);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const command = words.filter((w) => !w.startsWith('-') && w !== 'sandbox').join(' ');
      expect(r.stdout).toContain(`Usage: petstore ${command}`.trimEnd());
      expect(r.stdout).toContain('Commands:');
    },
  );

  it('with --json too: help is what was asked for, not an error', async () => {
    const r = await runMain(['pets', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: petstore pets');
    expect(r.stderr).toBe('');
  });
});

describe.concurrent('help with a mistyped word', () => {
  it.each([
    [['help', 'pets', 'lst'], "unknown command 'lst'", '(Did you mean list?)', 'petstore pets --help'],
    [['help', 'pet'], "unknown command 'pet'", '(Did you mean pets?)', 'petstore --help'],
    [['help', 'pets', 'list', 'extra'], "unknown command 'extra'", undefined, 'petstore pets list --help'],
  ])('`petstore %j` says which word is unknown and what was meant', async (args, unknown, meant, help) => {
    const r = await runMain(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(unknown);
    if (meant !== undefined) expect(r.stderr).toContain(meant);
    expect(r.stderr).toContain(help);
  });
});

describe.concurrent('pets list --limit over 100', () => {
  it('with --all: no hint to add --all; it says what --limit means with --all', async () => {
    const r = await runMain(['--env', 'sandbox', 'pets', 'list', '-L', '500', '--all'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--limit "500"');
    expect(r.stderr).not.toContain('use --all');
    expect(r.stderr).toMatch(/with --all, --limit is the size of each page/i);
  });

  it('without --all: the hint points at --all', async () => {
    const r = await runMain(['--env', 'sandbox', 'pets', 'list', '-L', '500'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('use --all');
  });
});

/** Runs `sandbox serve ...` until it printed its key (or ended), then stops it as Ctrl-C does. */
async function serve(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stop = new AbortController();
  const r = await runMain(['sandbox', 'serve', ...args], {
    env: { PETSTORE_CONFIG_DIR: tempDir() },
    signal: stop.signal,
    onOutput: (stream, text) => {
      if (stream === 'stdout' && text.includes('PETSTORE_API_KEY=')) stop.abort('SIGINT');
    },
  });
  return r;
}

describe.concurrent('sandbox serve', () => {
  it('on a port in use: says so in words (no EADDRINUSE), exit 1', async () => {
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    const r = await serve(['--port', port]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: port ${port} is in use by another program`);
    expect(r.stderr).not.toContain('EADDRINUSE');
    expect(r.stderr).toContain('Pick another --port');
  });

  it('--host 0.0.0.0 without --allow-remote: refused (exit 2), nothing served', async () => {
    const r = await serve(['--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--allow-remote');
    expect(r.stderr).toMatch(/in clear/);
  });

  it('--host 0.0.0.0 --allow-remote: serves, warns that the key crosses the network in clear, prints a loopback URL petstore accepts', async () => {
    const r = await serve(['--host', '0.0.0.0', '--allow-remote']);
    expect(r.code).toBe(130);
    expect(r.stderr.replace(/\n {2}/g, ' ')).toMatch(/^warning: .*0\.0\.0\.0.*in clear/m);
    expect(r.stdout).toMatch(/^PETSTORE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/m);
  });

  it("--host '[::1]': listens on IPv6 loopback and prints its URL in brackets", async () => {
    const r = await serve(['--host', '[::1]']);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toMatch(/^PETSTORE_BASE_URL=http:\/\/\[::1\]:\d+\/v1$/m);
    expect(r.stderr).not.toContain('warning');
  });
});

/**
 * The files and streams `petstore api` reads (`--input FILE`, `-F key=@FILE`, `--input -`,
 * `@-`), and the FIFO of `pets create --from-file` (src/fs/read-input.ts), whatever they are: a regular file, a FIFO, /dev/zero, a pipe that never ends
 * (cli-contract.md "Network behaviour": the byte cap counted while reading, under the
 * command's deadline and abort signal; a FIFO never blocks an exit). Spawned CLIs where the
 * process is the point (FIFOs, signals, memory), against a recording server on 127.0.0.1.
 * No test waits a fixed time: each waits for the event that shows the run reached its read
 * (the FIFO held open, stdin drained), with generous guards for a hang only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { probedRun, runCli, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';

const KEY = 'pst_api_input_K3y9f8Qz7Lw2';
const CAP = 10 * 1024 * 1024;
const pool = serverPool();
const writers: ChildProcess[] = [];

afterAll(async () => {
  for (const w of writers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await pool.closeAll();
  removeTempDirs();
});

/** A FIFO in a fresh folder. */
function fifo(): string {
  const path = join(tempDir(), 'body.fifo');
  execFileSync('mkfifo', [path]);
  return path;
}

/**
 * Opens the FIFO's writing end once a reader holds it (O_NONBLOCK fails with ENXIO until
 * then), without blocking the test's own thread pool; the caller closes it.
 */
function openWriter(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
}

/** A shell that writes `bytes` zero bytes into `path` (blocking until a reader comes). */
function zeroWriter(path: string, bytes: number): ChildProcess {
  const w = spawn('sh', ['-c', `head -c ${bytes} /dev/zero > "$0"`, path], { stdio: 'ignore' });
  writers.push(w);
  return w;
}

describe.concurrent('devices and FIFOs as --input and -F key=@file', () => {
  it.each([
    ['--input /dev/zero', ['-X', 'POST', 'pets', '--input', '/dev/zero'], '--input "/dev/zero"'],
    ['-F body=@/dev/zero', ['-X', 'POST', 'pets', '-F', 'body=@/dev/zero'], '-F body=@ "/dev/zero"'],
  ])('%s: refused as larger than 10 MiB, exit 2, nothing sent', async (_name, args, named) => {
    const server = await pool.start();
    // The cap ends the read, not the deadline: --timeout only bounds a read the cap failed to
    // stop, with room for a loaded machine to start the process and read 10 MiB.
    const r = await runCli(['api', ...args, '--timeout', '30'], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.timedOut).toBeUndefined();
    expect(r.code, r.stderr).toBe(2);
    expect(unwrapped(r.stderr)).toContain(`${named} is larger than 10,485,760 bytes`);
    expect(server.requests).toHaveLength(0);
  });

  it('a FIFO whose writer comes after petstore opened it: its body is sent', async () => {
    const server = await pool.start();
    const path = fifo();
    const p = spawnCli(['api', 'POST', 'pets', '--input', path], { env: remoteEnv(server.baseUrl, KEY) });
    await p.opened(path);
    const fd = openWriter(path);
    writeSync(fd, '{"name":"Rex","categoryId":9223372036854775807}');
    closeSync(fd);
    const { code, killed } = await p.exited;
    expect(killed).toBe(false);
    expect(code, p.stderr()).toBe(0);
    expect(server.requests.map((q) => [q.method, q.url, q.body])).toEqual([
      ['POST', '/v1/pets', '{"name":"Rex","categoryId":9223372036854775807}'],
    ]);
  });

  it('-F note=@FIFO: the field is the text written', async () => {
    const server = await pool.start();
    const path = fifo();
    const p = spawnCli(['api', 'POST', 'pets', '-F', `note=@${path}`], { env: remoteEnv(server.baseUrl, KEY) });
    await p.opened(path);
    const fd = openWriter(path);
    writeSync(fd, 'from a fifo');
    closeSync(fd);
    expect((await p.exited).code, p.stderr()).toBe(0);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ note: 'from a fifo' });
  });

  it('a FIFO whose writer writes 11 MiB: refused, exit 2, nothing sent', async () => {
    const server = await pool.start();
    const path = fifo();
    zeroWriter(path, 11 * 1024 * 1024);
    const r = await runCli(['api', 'POST', 'pets', '--input', path], { env: remoteEnv(server.baseUrl, KEY) });
    expect(r.timedOut).toBeUndefined();
    expect(r.code, r.stderr).toBe(2);
    expect(unwrapped(r.stderr)).toContain(`--input "${path}" is larger than 10,485,760 bytes`);
    expect(server.requests).toHaveLength(0);
  });

  it('a FIFO nobody writes to, --timeout 1: exit 2 "timed out reading", nothing sent, no hang', async () => {
    const server = await pool.start();
    const path = fifo();
    const r = await runCli(['api', 'POST', 'pets', '--input', path, '--timeout', '1', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.timedOut).toBeUndefined();
    expect(r.code, r.stderr).toBe(2);
    expect(lastJson(r.stderr)).toMatchObject({
      code: 'usage',
      status: 0,
      message: `timed out reading --input "${path}" after 1 s (--timeout); nothing was sent`,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('a FIFO whose writer holds it open and writes nothing, --timeout 1: exit 2, no hang', async () => {
    const server = await pool.start();
    const path = fifo();
    const p = spawnCli(['api', 'POST', 'pets', '--input', path, '--timeout', '1'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    await p.opened(path);
    const fd = openWriter(path);
    try {
      const { code, killed } = await p.exited;
      expect(killed).toBe(false);
      expect(code).toBe(2);
      expect(unwrapped(p.stderr())).toContain('timed out reading --input');
    } finally {
      closeSync(fd);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('signals while a FIFO or stdin is read: 130 / 143, never 2', () => {
  it.each([
    ['SIGINT', 'no writer', 130],
    ['SIGTERM', 'no writer', 143],
    ['SIGINT', 'a writer that writes nothing', 130],
    ['SIGTERM', 'a writer that writes nothing', 143],
  ] as const)('%s, FIFO with %s: exit %i, nothing sent', async (sig, writer, exit) => {
    const server = await pool.start();
    const path = fifo();
    const p = spawnCli(['api', 'POST', 'pets', '--input', path], { env: remoteEnv(server.baseUrl, KEY) });
    await p.opened(path);
    // A writer that holds the FIFO open is what once left a thread blocked in read(2).
    const fd = writer === 'no writer' ? undefined : openWriter(path);
    try {
      p.child.kill(sig);
      const { code, killed } = await p.exited;
      expect(killed).toBe(false);
      expect(code, p.stderr()).toBe(exit);
      expect(p.stderr()).not.toContain('aborted');
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while --input - reads a pipe that never ends: exit %i, nothing sent', async (sig, exit) => {
    const server = await pool.start();
    const p = spawnCli(['api', 'POST', 'pets', '--input', '-', '--json'], {
      env: remoteEnv(server.baseUrl, KEY),
      keepStdinOpen: true,
    });
    // Past the pipe's 64 KiB buffer: the write is taken only once petstore reads stdin.
    await new Promise<void>((resolve, reject) => {
      p.child.stdin!.write(Buffer.alloc(1024 * 1024, 0x20), (err) => (err ? reject(err) : resolve()));
    });
    p.child.kill(sig);
    const { code, killed } = await p.exited;
    expect(killed).toBe(false);
    expect(code).toBe(exit);
    expect(lastJson(p.stderr())).toMatchObject({ code: 'interrupted', status: 0 });
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('stdin (in-process)', () => {
  const api = (server: TestServer, args: string[], opts: Parameters<typeof runMain>[1] = {}) =>
    runMain(['api', ...args], { ...opts, env: remoteEnv(server.baseUrl, KEY) });

  it('--input - of 11 MiB: refused, exit 2, nothing sent', async () => {
    const server = await pool.start();
    const r = await api(server, ['POST', 'pets', '--input', '-'], { input: Buffer.alloc(11 * 1024 * 1024, 0x20) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('--input stdin is larger than 10,485,760 bytes');
    expect(server.requests).toHaveLength(0);
  });

  it('-F note=@- of exactly 10 MiB is sent', async () => {
    const server = await pool.start();
    const r = await api(server, ['POST', 'pets', '-F', 'note=@-'], { input: Buffer.alloc(CAP, 0x61) });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(server.requests[0]!.body) as { note: string }).note).toHaveLength(CAP);
  });

  it('-F note=@- that never ends, --timeout 1: exit 2 naming stdin, nothing sent', async () => {
    const server = await pool.start();
    const stdin = new PassThrough();
    stdin.write('never ends');
    const r = await api(server, ['POST', 'pets', '-F', 'note=@-', '--timeout', '1'], { stdin });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('timed out reading -F note=@ stdin after 1 s (--timeout); nothing was sent');
    expect(server.requests).toHaveLength(0);
  });

  it('Ctrl-C while stdin is read: exit 130, not a usage error', async () => {
    const server = await pool.start();
    const stdin = new PassThrough();
    const controller = new AbortController();
    // Aborted once petstore listens to stdin: its read is under way.
    stdin.on('newListener', (event) => {
      if (event === 'data' || event === 'readable') setImmediate(() => controller.abort('SIGINT'));
    });
    const r = await api(server, ['POST', 'pets', '--input', '-'], { stdin, signal: controller.signal });
    expect(r.code).toBe(130);
    expect(server.requests).toHaveLength(0);
  });
});

describe('regular files', () => {
  it('a directory and a missing file keep their messages; a file over 10 MiB is refused unread', async () => {
    const server = await pool.start();
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    const big = join(dir, 'big.json');
    writeFileSync(big, Buffer.alloc(CAP + 1, 0x20));
    const cases: [string[], string][] = [
      [['--input', join(dir, 'sub')], `cannot read --input "${join(dir, 'sub')}": it is a directory`],
      [['-F', `a=@${join(dir, 'none')}`], `cannot read -F a=@ "${join(dir, 'none')}": no such file or directory`],
      [['--input', big], `--input "${big}" is larger than 10,485,760 bytes`],
    ];
    for (const [args, message] of cases) {
      const r = await runMain(['api', 'POST', 'pets', ...args], { env: remoteEnv(server.baseUrl, KEY) });
      expect(r.code).toBe(2);
      expect(unwrapped(r.stderr)).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('pets create --from-file FIFO', () => {
  it('SIGTERM while its writer holds it open and writes nothing: exit 143, nothing sent', async () => {
    const server = await pool.start();
    const path = fifo();
    const p = spawnCli(['pets', 'create', '--from-file', path], { env: remoteEnv(server.baseUrl, KEY) });
    await p.opened(path);
    const fd = openWriter(path);
    try {
      p.child.kill('SIGTERM');
      const { code, killed } = await p.exited;
      expect(killed).toBe(false);
      expect(code).toBe(143);
      expect(p.stderr()).toBe('error: terminated before anything was sent; nothing was created\n');
    } finally {
      closeSync(fd);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('memory', () => {
  /** Runs the CLI with a probe that prints its peak RSS (KiB) at exit. */
  function peakRss(args: string[], env: Record<string, string>): Promise<{ code: number | null; kib: number }> {
    const probe = join(tempDir(), 'rss-probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => require('node:fs').writeSync(2, `\\nPEAK_RSS_KIB=${process.resourceUsage().maxRSS}\\n`));\n",
    );
    return probedRun(args, env, `--require ${probe}`, 'PEAK_RSS_KIB').then(({ code, figure }) => ({
      code,
      kib: figure,
    }));
  }

  it('/dev/zero as --input stays within a few tens of MB of a run that reads nothing', async () => {
    const server = await pool.start();
    const env = remoteEnv(server.baseUrl, KEY);
    const base = await peakRss(['api', 'POST', 'pets', '--input', join(tempDir(), 'none'), '--timeout', '1'], env);
    const zero = await peakRss(['api', 'POST', 'pets', '--input', '/dev/zero', '--timeout', '1'], env);
    expect(base.code).toBe(2);
    expect(zero.code).toBe(2);
    // The cap is 10 MiB; the chunks read and their concatenation at most twice that.
    expect(zero.kib - base.kib).toBeLessThan(48 * 1024);
    expect(server.requests).toHaveLength(0);
  });
});

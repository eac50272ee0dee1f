/**
 * Every failure of a bulk create accounted for (cli-contract.md "Network behaviour"): a
 * closed pipe, a full disk, SIGINT, SIGTERM or a failed request all end the same way —
 * sending stops, the account (created / failed / unknown / not sent) goes to stderr, the
 * records not created go to the remaining file, the exit code is non-zero. Signals are
 * honoured at once wherever the command is (reading a FIFO, a pipe that never ends,
 * validating a large array). Processes, because pipes and signals are the point.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, unwrapped } from '../helpers/run-cli.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { shell } from '../helpers/shell.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { tempDir } from '../helpers/temp-config.js';
import { hasTmux, startTmux } from '../helpers/tmux.js';
import { errorReply } from '../helpers/test-server.js';
import { ShutdownRegistry } from '../../src/base/shutdown.js';
import { CLI } from '../helpers/run-cli.js';

const KEY = 'pk_test_bulkfail_0123456789';
const { start } = fileServers();

/** `n` NDJSON records named P1..Pn, in a new temp dir. */
function ndjson(n: number, dir = tempDir()): { dir: string; file: string } {
  const file = join(dir, 'pets.ndjson');
  writeFileSync(file, Array.from({ length: n }, (_, i) => `{"name":"P${i + 1}","categoryId":${i + 1}}\n`).join(''));
  return { dir, file };
}

/** Whether process `pid` holds open a deleted file whose name contains `part` (Linux /proc). */
function holdsDeleted(pid: number, part: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.includes(part) && target.endsWith(' (deleted)');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** The names in an NDJSON file. */
function names(file: string): string[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { name: string }).name);
}

/** A server that creates pets with ids from 1000, each answer after `delayMs`. */
async function petServer(delayMs = 0) {
  let next = 1000;
  return start(async (req) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const pet = JSON.parse(req.body) as Record<string, unknown>;
    return { status: 201, body: { id: next++, ...pet } };
  });
}

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `P${from + i}`);

describe('a closed stdout (`| head -1`)', () => {
  it('200 records into the sandbox: exit 1, the remaining file holds exactly the records not created', async () => {
    const { dir, file } = ndjson(200);
    const env = { PETSTORE_CONFIG_DIR: dir };
    const script = `"${process.execPath}" "${CLI}" --env sandbox pets create --from-file "${file}" --output ndjson 2>"${dir}/err" | head -1; echo "exit=\${PIPESTATUS[0]}"`;
    const r = await shell(script, env);
    expect(r.stdout).toMatch(/^\{"id":\d+,"name":"P1",.*\nexit=1\n$/);
    const err = readFileSync(join(dir, 'err'), 'utf8').trim().split('\n');
    // ndjson mode: every stderr line is JSON, the error last, naming the remaining file.
    for (const line of err) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const last = JSON.parse(err[err.length - 1]!) as Record<string, unknown>;
    expect(last).toMatchObject({
      code: 'output',
      remainingFile: `${file}.remaining.ndjson`,
      failed: [],
      unknown: [],
    });
    const created = last.created as number;
    expect(created).toBeGreaterThanOrEqual(1);
    expect(last.remaining).toBe(200 - created);
    // What the store holds and what the remaining file holds add up to the input, once each
    // (with requests in flight, the store may have created them in another order).
    const listed = await runMain(['--env', 'sandbox', 'pets', 'list', '--all', '--json'], { env });
    const inStore = (JSON.parse(listed.stdout) as { name: string }[])
      .map((p) => p.name)
      .filter((n) => /^P\d+$/.test(n));
    expect(inStore.sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))).toEqual(range(1, created));
    expect(names(`${file}.remaining.ndjson`)).toEqual(range(created + 1, 200));
  });

  it('human form: the account in a few lines, exit 1', async () => {
    const srv = await petServer();
    const { dir, file } = ndjson(50);
    const env = remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir });
    const p = spawnCli(['pets', 'create', '--from-file', file], { env, closeStdoutAfterLines: 1, secrets: [KEY] });
    const { code } = await p.exited;
    expect(code).toBe(1);
    const stderr = p.stderr();
    expect(stderr).toMatch(/^error: stopped after record \d+ of 50: stdout was closed by its reader\n/);
    expect(stderr).toMatch(/\ncreated \d+: lines 1-\d+\n/);
    expect(stderr).toContain('not sent ');
    // The pets created whose lines stdout did not take: their ids are in the account, the
    // last of the records created, each with the id the server gave it.
    const created = srv.requests.length;
    const idOf = new Map(srv.requests.map((r, i) => [(JSON.parse(r.body) as { name: string }).name, 1000 + i]));
    const shown = /ids not printed on stdout (\d+): (.*?) the \d+ records not created/.exec(unwrapped(stderr));
    expect(shown, stderr).not.toBeNull();
    const count = Number(shown?.[1]);
    const listed = [...(shown?.[2] ?? '').matchAll(/line (\d+): (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const lastLines = Array.from({ length: count }, (_, i) => created - count + 1 + i);
    expect(listed.map(([line]) => line)).toEqual(lastLines.slice(0, 10));
    for (const [line, id] of listed) expect(id).toBe(idOf.get(`P${line}`));
    // The command to paste is a line of its own, whole, bare (never broken with ` \\`).
    const rerun = `  petstore pets create --from-file ${file}.remaining.ndjson`;
    expect(stderr).toContain(`\n${rerun}\n`);
    expect(unwrapped(stderr)).toContain(`run: petstore pets create --from-file ${file}.remaining.ndjson\n`);
    // A few lines, each within 80 columns but for a word or a command longer than that.
    const lines = stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines.filter((l) => l.length > 80 && l.trim().includes(' ') && l !== rerun)).toEqual([]);
    expect(names(`${file}.remaining.ndjson`)).toEqual(range(created + 1, 50));
  });
});

describe('a full disk (/dev/full)', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'pets list: exit 1, code output, a clean message; the fast path too',
    async () => {
      const dir = tempDir();
      const list = await shell(`"${process.execPath}" "${CLI}" --env sandbox pets list --json > /dev/full`, {
        PETSTORE_CONFIG_DIR: dir,
      });
      expect(list.code).toBe(1);
      expect(JSON.parse(list.stderr) as unknown).toMatchObject({
        code: 'output',
        message: 'cannot write to stdout: no space left on the device',
      });
      const help = await shell(`"${process.execPath}" "${CLI}" --help > /dev/full`, { PETSTORE_CONFIG_DIR: dir });
      expect(help.code).toBe(1);
      expect(help.stderr).toBe('error: cannot write to stdout: no space left on the device\n');
    },
  );

  it.skipIf(!existsSync('/dev/full'))(
    'bulk create: stops after the first record, accounts, saves the rest',
    async () => {
      const srv = await petServer();
      const { dir, file } = ndjson(50);
      const r = await shell(
        `"${process.execPath}" "${CLI}" pets create --from-file "${file}" --concurrency 1 > /dev/full`,
        remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      );
      expect(r.code).toBe(1);
      expect(unwrapped(r.stderr)).toContain('no space left on the device');
      expect(r.stderr).toContain('created 1: line 1\n');
      expect(srv.requests).toHaveLength(1);
      expect(names(`${file}.remaining.ndjson`)).toEqual(range(2, 50));
    },
  );
});

describe('input that can be read only once (a pipe, /dev/stdin, a FIFO)', () => {
  const two = `printf '{"name":"A","categoryId":1}\\n{"name":"B","categoryId":2}\\n'`;
  it.each([
    ['a process substitution', (cli: string) => `${cli} --from-file <(${two})`],
    ['/dev/stdin on a pipe', (cli: string) => `${two} | ${cli} --from-file /dev/stdin`],
    [
      'a FIFO with a writer',
      (cli: string, dir: string) => `mkfifo '${dir}/in'; ${two} > '${dir}/in' & ${cli} --from-file '${dir}/in'`,
    ],
  ])('%s: checked, then every record created (it is kept for the second pass)', async (_name, command) => {
    const srv = await petServer();
    const dir = tempDir();
    const cli = `"${process.execPath}" "${CLI}" pets create --output ndjson`;
    const r = await shell(
      `${command(cli, dir)}; echo "exit=$?"`,
      remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, TMPDIR: dir }),
    );
    expect(r.stdout, r.stderr).toMatch(/"name":"A".*\n.*"name":"B".*\nexit=0\n$/);
    expect(srv.requests).toHaveLength(2);
    // The private copy is gone once the command ends.
    expect(readdirSync(dir).filter((f) => f.startsWith('petstore-input-'))).toEqual([]);
  });
});

/**
 * Sends `sig` to a spawned run once it has opened `path`; its exit code, checked to be the
 * run's own (not the kill of a hung run).
 */
async function signalWhenOpened(p: ReturnType<typeof spawnCli>, path: string, sig: NodeJS.Signals) {
  await p.opened(path);
  p.child.kill(sig);
  const { code, killed } = await p.exited;
  expect(killed).toBe(false);
  return code;
}

describe('signals', () => {
  it('SIGTERM while reading a FIFO nobody writes to: exit 143 at once, nothing sent', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pets.fifo');
    execFileSync('mkfifo', [fifo]);
    const p = spawnCli(['--env', 'sandbox', 'pets', 'create', '--from-file', fifo], {
      env: { PETSTORE_CONFIG_DIR: dir },
      timeoutMs: 60_000,
    });
    expect(await signalWhenOpened(p, fifo, 'SIGTERM')).toBe(143);
    expect(p.stderr()).toBe('error: terminated before anything was sent; nothing was created\n');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s while stdin is a pipe that never ends: honoured at once', async (sig) => {
    const dir = tempDir();
    const p = spawnCli(['--env', 'sandbox', 'pets', 'create', '--from-file', '-', '--json'], {
      env: { PETSTORE_CONFIG_DIR: dir, TMPDIR: dir },
      input: '{"name":"A","categoryId":1}\n',
      keepStdinOpen: true,
      timeoutMs: 60_000,
    });
    // It is reading stdin once its private copy of it exists (unlinked at once, held open).
    await p.until(() => holdsDeleted(p.child.pid ?? -1, 'petstore-input-'));
    expect(readdirSync(dir).filter((f) => f.startsWith('petstore-input-'))).toEqual([]);
    p.child.kill(sig);
    const { code, killed } = await p.exited;
    expect(killed).toBe(false);
    expect(code).toBe(sig === 'SIGINT' ? 130 : 143);
    expect(JSON.parse(p.stderr()) as unknown).toMatchObject({ code: 'interrupted', status: 0 });
    expect(p.stderr()).toContain('before anything was sent');
  });

  it('SIGINT while a large JSON array is validated: exit 130, nothing sent, record 1 not "may have been created"', async () => {
    const srv = await petServer();
    const dir = tempDir();
    const file = join(dir, 'big.json');
    const one = `{"name":"${'x'.repeat(200)}","categoryId":1}`;
    writeFileSync(file, `[\n${Array.from({ length: 200_000 }, () => one).join(',\n')}\n]\n`);
    const p = spawnCli(['pets', 'create', '--from-file', file], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      timeoutMs: 60_000,
    });
    expect(await signalWhenOpened(p, file, 'SIGINT')).toBe(130);
    expect(p.stderr()).toBe('error: interrupted before anything was sent; nothing was created\n');
    expect(srv.requests).toHaveLength(0);
    expect(existsSync(`${file}.remaining.ndjson`)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s while records are sent: the account, the rest saved, 130/143',
    async (sig) => {
      const srv = await petServer(150);
      const { dir, file } = ndjson(20);
      const p = spawnCli(['pets', 'create', '--from-file', file, '--output', 'ndjson'], {
        env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
        secrets: [KEY],
      });
      await p.until(() => p.stdout().split('\n').length > 3);
      p.child.kill(sig);
      const { code } = await p.exited;
      expect(code).toBe(sig === 'SIGINT' ? 130 : 143);
      const err = lastJson(p.stderr());
      expect(err.code).toBe('interrupted');
      const created = err.created as number;
      const unknown = (err.unknown as unknown[]).length;
      // Every record is in exactly one place: created, unknown (its request was under way), or remaining.
      expect(created + unknown + (err.remaining as number)).toBe(20);
      expect(srv.requests.length).toBe(created + unknown);
      expect(names(`${file}.remaining.ndjson`)).toEqual(range(created + unknown + 1, 20));
    },
  );

  it('SIGINT early in a large file: the account and a complete remaining file, however long saving takes', async () => {
    const srv = await petServer(50);
    const { dir, file } = ndjson(150_000);
    const p = spawnCli(['pets', 'create', '--from-file', file, '--output', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      secrets: [KEY],
    });
    await p.until(() => srv.requests.length >= 2);
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code).toBe(130);
    const err = lastJson(p.stderr());
    const handled = (err.created as number) + (err.unknown as unknown[]).length;
    expect(err.remainingFile).toBe(`${file}.remaining.ndjson`);
    const rest = readFileSync(`${file}.remaining.ndjson`, 'utf8').split('\n');
    expect(rest).toHaveLength(150_000 - handled + 1);
    expect(rest[0]).toBe(`{"name":"P${handled + 1}","categoryId":${handled + 1}}`);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it("SIGINT while stdout's reader has stopped reading: the account and the remaining file", async () => {
    const srv = await petServer();
    const { dir, file } = ndjson(5_000);
    const p = spawnCli(['pets', 'create', '--from-file', file, '--output', 'ndjson'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      secrets: [KEY],
      stallStdoutAfterLines: 1,
    });
    // Sending stops once the pipe is full (some 1,000 records of ndjson) and the run waits
    // for it. A second without a new request says so on a quiet machine; on a loaded one the
    // signal may come earlier, and what is checked below holds either way.
    await p.until(() => srv.requests.length > 0);
    let seen = -1;
    while (srv.requests.length !== seen) {
      seen = srv.requests.length;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(seen).toBeLessThan(5_000);
    const exit = new Promise<number | null>((r) => p.child.once('exit', (c) => r(c)));
    p.child.kill('SIGINT');
    // It ends while the reader still reads nothing.
    expect(await exit).toBe(130);
    // Read the rest now, so that the pipe closes.
    p.child.stdout?.resume();
    await p.exited;
    const err = JSON.parse(p.stderr().trim()) as Record<string, unknown>;
    const unknown = (err.unknown as { line: number }[]).map((u) => u.line);
    const created = err.created as number;
    expect(err).toMatchObject({ code: 'interrupted', remaining: 5_000 - created - unknown.length });
    // Every request the server saw before the signal was answered 201: created, or unknown
    // when its answer came too late.
    expect(created + unknown.length).toBeGreaterThanOrEqual(seen);
    expect(created).toBeLessThan(5_000);
    expect(err.remainingFile).toBe(`${file}.remaining.ndjson`);
    // The records neither created nor unknown, in input order.
    const gone = new Set([
      ...unknown,
      ...(err.createdRanges as { lines: [number, number] }[]).flatMap(({ lines: [a, b] }) =>
        Array.from({ length: b - a + 1 }, (_, k) => a + k),
      ),
    ]);
    expect(names(`${file}.remaining.ndjson`)).toEqual(range(1, 5_000).filter((_, k) => !gone.has(k + 1)));
  });

  it('ended by force while a request is under way (a second Ctrl-C): the account as it stands, that record unknown, nothing saved', async () => {
    let n = 0;
    const srv = await start(async (req) => {
      if (++n === 3) await new Promise((r) => setTimeout(r, 1_000));
      return { status: 201, body: { id: 1000 + n, ...(JSON.parse(req.body) as object) } };
    });
    const { dir, file } = ndjson(20);
    const controller = new AbortController();
    const shutdown = new ShutdownRegistry();
    let stderr = '';
    const run = runMain(['pets', 'create', '--from-file', file, '--output', 'ndjson', '--concurrency', '1'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      signal: controller.signal,
      shutdown,
      onOutput: (stream, text) => (stream === 'stderr' ? (stderr += text) : undefined),
    });
    while (srv.requests.length < 3) await new Promise((r) => setTimeout(r, 10));
    // What cli-entry.ts does at a second Ctrl-C: abort, then end the process by force.
    controller.abort('SIGINT');
    expect(shutdown.forceEnd({ kind: 'signal', signal: 'SIGINT' })).toBe(true);
    const forced = JSON.parse(stderr.trim()) as Record<string, unknown>;
    await run;
    expect(forced).toMatchObject({ code: 'interrupted', created: 2, unknown: [{ line: 3 }], notSent: 17 });
    expect(forced).toMatchObject({ remaining: 17, remainingFile: null });
    expect(forced.message).toMatch(/^stopped at record 3 of 20 \(line 3\), which may have been created: interrupted; /);
    expect(forced.message).toMatch(/; not saved: the run was ended before they could be written$/);
  });

  it.each(['ndjson', 'human'] as const)(
    'ended by force while the remaining file is written (%s): the account all the same, and no temp file left',
    async (form) => {
      const srv = await petServer();
      const { dir, file } = ndjson(150_000);
      srv.handle(() => errorReply(503, 'unavailable', 'try later'));
      const controller = new AbortController();
      const shutdown = new ShutdownRegistry();
      let stderr = '';
      const args = ['pets', 'create', '--from-file', file, '--concurrency', '1'];
      const run = runMain([...args, ...(form === 'ndjson' ? ['--output', 'ndjson'] : [])], {
        env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
        signal: controller.signal,
        shutdown,
        onOutput: (stream, text) => (stream === 'stderr' ? (stderr += text) : undefined),
      });
      // The remaining file says so while it is written; a slow disk would hold it there.
      while (shutdown.doing() !== 'writing the remaining file') await new Promise((r) => setImmediate(r));
      const temps = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
      expect(temps).toHaveLength(1);
      controller.abort('SIGINT');
      shutdown.forceEnd({ kind: 'signal', signal: 'SIGINT' });
      const forced = stderr;
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      await run;
      expect(existsSync(`${file}.remaining.ndjson`)).toBe(false);
      if (form === 'human') {
        expect(unwrapped(forced)).toMatch(
          /not sent 149,999 the 150,000 records not created could not be saved: the run was ended before they could be written; they are lines 1-150000 of /,
        );
        return;
      }
      const err = JSON.parse(forced.trim()) as Record<string, unknown>;
      expect(err).toMatchObject({ code: 'interrupted', remainingFile: null, status: 0, remaining: 150_000 });
      expect(err.remainingRanges).toEqual([{ lines: [1, 150_000] }]);
      expect(err.message).toMatch(/; not saved: the run was ended before they could be written$/);
    },
  );

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('`sandbox serve` stops on %s with exit %d', async (sig, want) => {
    const dir = tempDir();
    const p = spawnCli(['sandbox', 'serve'], { env: { PETSTORE_CONFIG_DIR: dir } });
    await p.until(() => p.stderr().includes('listening'));
    p.child.kill(sig);
    expect((await p.exited).code).toBe(want);
  });
});

describe.skipIf(!hasTmux())('Ctrl-C in a terminal', () => {
  it('the account starts on a line of its own after the echoed ^C, and fits 80 columns', async () => {
    const srv = await petServer(100);
    const { dir, file } = ndjson(200);
    const t = startTmux({
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
      width: 80,
      height: 24,
    });
    try {
      t.sendLine(`petstore pets create --from-file '${file}' > /dev/null; echo "rc=$?"`);
      await new Promise((r) => setTimeout(r, 200));
      while (srv.requests.length < 3) await new Promise((r) => setTimeout(r, 20));
      t.send('C-c');
      const screen = await t.waitFor(/rc=\d+/);
      expect(screen).toMatch(/rc=130/);
      const lines = screen.split('\n');
      // The requests in flight are awaited (each answer takes 0.1 s): the run stops after one of them.
      expect(lines.some((l) => /^error: stopped (after|at) record \d+ of 200/.test(l))).toBe(true);
      expect(lines.filter((l) => l.length > 80 && !l.includes('petstore pets create'))).toEqual([]);
    } finally {
      t.kill();
    }
  });
});

describe('a failed request', () => {
  it('a 503 at record 3: failed 1 (not created, in the remaining file), not sent 2, exit 1', async () => {
    let n = 0;
    const srv = await start((req) => {
      n++;
      if (n === 3) return errorReply(503, 'unavailable', 'try later');
      return { status: 201, body: { id: 1000 + n, ...(JSON.parse(req.body) as object) } };
    });
    const { dir, file } = ndjson(5);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(1);
    expect(unwrapped(r.stderr)).toBe(
      unwrapped(
        [
          'error: stopped at record 3 of 5 (line 3), not created: try later (unavailable, HTTP 503)',
          'created 2: lines 1-2',
          'failed 1: line 3, not created',
          'not sent 2',
          `the 3 records not created are in ${file}.remaining.ndjson; after fixing the cause, run:`,
          `  petstore pets create --from-file ${file}.remaining.ndjson`,
          '',
        ].join('\n'),
      ),
    );
    expect(names(`${file}.remaining.ndjson`)).toEqual(['P3', 'P4', 'P5']);
  });

  // One at a time, so the file takes 3.2 s: a deadline for the whole file would fail it,
  // while each record keeps 1.6 s of room for a loaded machine.
  it('--timeout bounds each record, not the whole file: 8 records of 0.4 s each, one at a time, pass a 2 s --timeout', async () => {
    const srv = await petServer(400);
    const { dir, file } = ndjson(8);
    const r = await runCli(['pets', 'create', '--from-file', file, '--concurrency', '1', '--timeout', '2'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests).toHaveLength(8);
    expect(r.ms).toBeGreaterThanOrEqual(3200);
  });
});

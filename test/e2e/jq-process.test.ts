/**
 * `--jq` where a process is the point: a signal during a filter that would run for hours
 * ends the run (jq's worker thread is terminated), keeping what was printed before; and
 * the built CLI finds jq's worker and WebAssembly beside its bundle.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pagingServerPool } from '../helpers/paging-server.js';
import { lastError, lastJson, remoteEnv } from '../helpers/harness.js';
import { untilTheFilterRuns } from '../helpers/jq-deadline.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const KEY = 'pk_test_jq_process_0123';
/**
 * How long a run may take to reach a point the test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work (a
 * process that gets a fraction of a core needs that much longer for its CPU time).
 */
const HANG_MS = 60_000;
const paging = pagingServerPool();

afterAll(async () => {
  await paging.closeAll();
  removeTempDirs();
});

/** CPU time (user + system) process `pid` has used, in clock ticks (Linux: /proc/PID/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// Each test's limit: the waits below, and the kill that ends a hung run.
describe.concurrent('a signal during a long --jq', { timeout: 4 * HANG_MS }, () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s ends the run with %i, keeping the records printed before', async (signal, code) => {
    // Two pages: the filter is quick on the first and would run for hours on the second.
    const server = await paging.start({ pages: 2, perPage: 3 });
    const run = spawnCli(
      ['pets', 'list', '--all', '-o', 'ndjson', '--jq', 'if .id > 3 then last(range(1e12)) else .id end'],
      {
        env: remoteEnv(server.baseUrl, KEY),
        secrets: [KEY],
        // Killed as a hang only well after the waits below have given up.
        timeoutMs: 3 * HANG_MS,
      },
    );
    await run.until(() => run.stdout() === '1\n2\n3\n' && server.urls.length === 2, HANG_MS);
    // jq is at work once the process spins: a tenth of a second of CPU after the last page
    // (CPU time, not wall time, which a loaded machine stretches).
    const pid = run.child.pid ?? -1;
    const before = cpuTicks(pid);
    await run.until(() => cpuTicks(pid) - before >= 10, HANG_MS);
    run.child.kill(signal);
    const end = await run.exited;
    expect(end.killed).toBe(false);
    expect(end.code).toBe(code);
    expect(run.stdout()).toBe('1\n2\n3\n');
    expect(lastJson(run.stderr())).toMatchObject({ code: 'interrupted' });
  });
});

// Starting the process, jq and the request share the deadline: a run whose request timed
// out (a loaded machine) is repeated with more time (untilTheFilterRuns).
describe('--jq under --timeout, in a process of its own', { timeout: 8 * HANG_MS }, () => {
  it('a filter that would run for hours ends the process with exit 1 (jq_timeout) once --timeout has passed', async () => {
    const { r, timeoutS } = await untilTheFilterRuns(1, (s) =>
      runCli(['--env', 'sandbox', 'pets', 'list', '--jq', 'last(range(1e12))', '--timeout', String(s)], {
        env: { PETSTORE_CONFIG_DIR: tempDir() },
        timeoutMs: 3 * HANG_MS,
      }),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(lastError(r)).toMatchObject({ code: 'jq_timeout', status: 0 });
    // Its one deadline was waited for: not stopped before --timeout.
    expect(r.ms).toBeGreaterThanOrEqual(timeoutS * 1000);
  });
});

describe('the built CLI', () => {
  it('runs --jq from dist/ (worker and WebAssembly beside the bundle), ids exact', async () => {
    const dir = tempDir();
    const r = await runCli(
      ['--env', 'sandbox', 'pets', 'get', '9007199254740993', '--jq', '[.id, .categoryId, .id + 0]'],
      {
        env: { PETSTORE_CONFIG_DIR: dir },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[9007199254740993,9223372036854775807,9007199254740992]\n');
  });
});

describe("the shim's early jq worker", () => {
  /**
   * Runs `node -r PRELOAD bin/petstore.js ARGS` (the executable runs the same shim), PRELOAD
   * a file holding `preload`, with a config folder of its own and `env`; `onStderr` is
   * given stderr so far as it grows. Killed as hung after HANG_MS.
   */
  async function withPreload(
    preload: string,
    args: string[],
    { env = {}, onStderr }: { env?: Record<string, string>; onStderr?: (stderr: string) => void } = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dir = tempDir();
    const file = join(dir, 'preload.cjs');
    writeFileSync(file, preload);
    const child = spawn(process.execPath, ['-r', file, CLI, ...args], {
      env: { ...process.env, PETSTORE_CONFIG_DIR: dir, PETSTORE_MESSAGES: 'text', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    return { code, stdout, stderr };
  }

  /**
   * Runs `petstore --env sandbox ARGS` with a preload noting the worker threads the process
   * constructs, and which function constructed each, on stderr as it exits.
   */
  async function countingWorkers(
    args: string[],
  ): Promise<{ code: number | null; stdout: string; workers: number; makers: string[] }> {
    const { code, stdout, stderr } = await withPreload(
      `const wt = require('node:worker_threads');
const makers = [];
const Base = wt.Worker;
wt.Worker = class extends Base {
  constructor(...a) {
    super(...a);
    makers.push((new Error().stack.split('\\n')[2] ?? '').trim().split(' ')[1]);
  }
};
process.on('exit', () => require('node:fs').writeSync(2, '\\nMADE BY ' + makers.join(',') + '\\nWORKERS ' + makers.length + '\\n'));
`,
      ['--env', 'sandbox', ...args],
    );
    const m = /MADE BY (.*)\nWORKERS (\d+)\n$/.exec(stderr);
    expect(m, stderr).not.toBeNull();
    return { code, stdout, workers: Number(m?.[2]), makers: m?.[1] === '' ? [] : (m?.[1] ?? '').split(',') };
  }

  it('is the one jq thread of a --jq run: the CLI takes over the thread the shim started', async () => {
    const r = await countingWorkers(['pets', 'list', '--limit', '2', '--jq', '.[].name']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Rex\nWhiskers\n');
    expect(r.workers).toBe(1);
    expect(r.makers).toEqual(['startJqWorker']);
  });

  it('starts while V8’s flags are as Node started: the bundle loads without them, the request waits for them', async () => {
    // V8's version tag holds a hash of its flags: it says which flags were set, and when.
    const recorder = `const v8 = require('node:v8');
const vm = require('node:vm');
const seen = ['start ' + v8.cachedDataVersionTag()];
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(...a) {
    seen.push('bundle ' + v8.cachedDataVersionTag());
    super(...a);
  }
};
const Module = WebAssembly.Module;
WebAssembly.Module = function (...a) {
  seen.push('parser ' + v8.cachedDataVersionTag());
  return new Module(...a);
};
WebAssembly.Module.prototype = Module.prototype;
process.on('exit', () => require('node:fs').writeSync(2, '\\nTAGS ' + seen.join(',') + '\\n'));
`;
    const tagWith = (flags: string): string => {
      const r = spawnSync(
        process.execPath,
        [
          '-e',
          `const v8 = require('node:v8'); if (process.env.FLAGS !== '') v8.setFlagsFromString(process.env.FLAGS); process.stdout.write(String(v8.cachedDataVersionTag()))`,
        ],
        { encoding: 'utf8', env: { ...process.env, FLAGS: flags } },
      );
      expect(r.status).toBe(0);
      return r.stdout;
    };
    const { code, stdout, stderr } = await withPreload(recorder, [
      '--env',
      'sandbox',
      'pets',
      'list',
      '--limit',
      '2',
      '--jq',
      '.[].name',
    ]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'Rex\nWhiskers\n' });
    const tags = /TAGS (.*)\n$/.exec(stderr)?.[1]?.split(',') ?? [];
    const start = tagWith('');
    expect(tags[0]).toBe(`start ${start}`);
    // The bundle compiled (its code cache read) with no flag set; undici's parser with the
    // shim's WebAssembly flags, which jq's thread set once it had started.
    expect(tags.filter((t) => t.startsWith('bundle '))).toEqual([`bundle ${start}`]);
    const parser = tags.filter((t) => t.startsWith('parser '));
    expect(parser.length).toBeGreaterThan(0);
    expect(new Set(parser)).toEqual(
      new Set([`parser ${tagWith('--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering')}`]),
    );
    expect(parser[0]).not.toBe(`parser ${start}`);
  });

  it('compiles the expression while a read’s request is out: a server that answers only then gets the run it asked for', async () => {
    // Says on stderr when jq first answers the thread's owner: its compile of the expression
    // against no input (call 0), which JqFilter.open asks for once jq is ready.
    const watcher = `const wt = require('node:worker_threads');
const Base = wt.Worker;
wt.Worker = class extends Base {
  constructor(...a) {
    super(...a);
    this.on('message', (m) => m && m.id === 0 && require('node:fs').writeSync(2, '\\nJQ COMPILED ' + m.exitCode + '\\n'));
  }
};
`;
    let compiledFirst: () => void = () => undefined;
    const compiled = new Promise<void>((resolve) => (compiledFirst = resolve));
    let asked = 0;
    const server = createServer((req, res) => {
      asked++;
      // Held until jq has compiled the expression: were that left to the answer, the run
      // would hang here (and be killed as hung).
      void compiled.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const { code, stdout, stderr } = await withPreload(watcher, ['pets', 'list', '--jq', '.[].name'], {
        env: remoteEnv(`http://127.0.0.1:${port}/v1`, KEY),
        onStderr: (text) => text.includes('JQ COMPILED 0\n') && compiledFirst(),
      });
      expect({ code, stdout, asked }, stderr).toEqual({ code: 0, stdout: 'Rex\n', asked: 1 });
    } finally {
      server.close();
    }
  });

  it('is not started without --jq, nor for a --jq after --', async () => {
    expect((await countingWorkers(['pets', 'list', '--limit', '1'])).workers).toBe(0);
    expect((await countingWorkers(['api', 'pets', '--', '--jq'])).workers).toBe(0);
  });

  it('holds no exit up when the run never reaches jq (a refused command line)', async () => {
    const r = await countingWorkers(['pets', 'list', '--jq', '.[]', '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.workers).toBe(1);
  });
});

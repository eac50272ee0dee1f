/**
 * One rule for signals (cli-contract.md "Errors and exit codes", "Bulk create"): the first
 * Ctrl-C stops sending within a second, then finishes what keeps the account true — the
 * remaining file written in full however long that takes — prints the account and exits
 * 130; a second cuts that short at once, the account naming the lines not saved; whatever
 * the number of signals, the account reaches stderr. `pets create` never starts a pager;
 * `pets list --all` in a pager says the list is incomplete however often Ctrl-C is pressed.
 * Processes, because signals, pipes and terminals are the point; run on a quiet machine and
 * beside CPU-bound processes, since a rule that holds only on a quiet machine is no rule.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPagingServer } from '../helpers/paging-server.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import { CLI_ARGV, baseEnv } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import { ShutdownRegistry } from '../../src/base/shutdown.js';
import { type TestServer } from '../helpers/test-server.js';
import { hasTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_signals_0123456789';
const RECORDS = 150_000;
const { start } = fileServers();

/**
 * `RECORDS` NDJSON records named P1-xxx.. Pn-xxx, one per line (about 16 MB), in a new temp
 * dir: large enough that saving what remains takes a while, so that a signal sent as it
 * starts arrives while it writes.
 */
function bigInput(): { dir: string; file: string; lines: string[] } {
  const dir = tempDir();
  const file = join(dir, 'pets.ndjson');
  const pad = 'x'.repeat(80);
  const lines = Array.from({ length: RECORDS }, (_, i) => `{"name":"P${i + 1}-${pad}","categoryId":${i + 1}}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { dir, file, lines };
}

/** A server that creates every pet at once, ids from 1000. */
async function petServer(): Promise<TestServer> {
  let next = 1000;
  return start((req) => ({ status: 201, body: { id: next++, ...(JSON.parse(req.body) as object) } }));
}

/**
 * Resolves once a remaining file's private temp file appears in `dir` (inotify, not
 * polling): the run is then saving, so a signal sent now arrives while it writes.
 */
function whenSaving(dir: string): { saving: Promise<void>; close: () => void } {
  let resolve!: () => void;
  const saving = new Promise<void>((r) => (resolve = r));
  const watcher = watch(dir, (_event, name) => {
    if (name !== null && /\.remaining-[0-9a-f]+\.tmp$/.test(name)) resolve();
  });
  return { saving, close: () => watcher.close() };
}

/** CPU-bound processes beside the run, as on a busy CI machine; `stop` ends them. */
function busyLoops(n: number): { stop: () => void } {
  const loops: ChildProcess[] = Array.from({ length: n }, () =>
    spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
  );
  return { stop: () => loops.forEach((p) => p.kill('SIGKILL')) };
}

/** Whether every line of the inclusive `ranges` ({lines: [a, b]}) is in `set`. */
function linesOf(ranges: { lines: [number, number] }[]): number[] {
  return ranges.flatMap(({ lines: [a, b] }) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
}

/** The input lines (1-based numbers) neither created nor unknown, per the JSON account. */
function notCreatedLines(account: Record<string, unknown>): number[] {
  const gone = new Set([
    ...linesOf(account.createdRanges as { lines: [number, number] }[]),
    ...(account.unknown as { line: number }[]).map((u) => u.line),
  ]);
  return Array.from({ length: RECORDS }, (_, i) => i + 1).filter((line) => !gone.has(line));
}

/** `lines` (1-based) joined into inclusive ranges, as the account writes them. */
function toRanges(lines: number[]): { lines: [number, number] }[] {
  const ranges: { lines: [number, number] }[] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.lines[1] + 1 === line) last.lines[1] = line;
    else ranges.push({ lines: [line, line] });
  }
  return ranges;
}

/**
 * A `less` in `dir/shims` that notes in `dir/less-started` that it was started, then runs
 * the real one; returns the note's path. petstore's default pager is `less -FRX`.
 */
function lessShim(dir: string): string {
  const shims = join(dir, 'shims');
  mkdirSync(shims, { recursive: true });
  const marker = join(dir, 'less-started');
  writeFileSync(join(shims, 'less'), `#!/bin/sh\ntouch '${marker}'\nexec /usr/bin/less "$@"\n`);
  chmodSync(join(shims, 'less'), 0o755);
  return marker;
}

/** The process group of the one process whose command line names `word` (Linux /proc). */
function processGroupOf(word: string): number {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(word)) continue;
      // Field 5 of stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    } catch {
      // It ended meanwhile.
    }
  }
  throw new Error(`no process names ${word}`);
}

const temps = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

/**
 * Runs a bulk create of RECORDS records with stdout to a file or a pipe, presses Ctrl-C
 * once the server has two requests, and `presses - 1` more times once the remaining file
 * is being written; with `stopWhileSavingMs`, the run is stopped (SIGSTOP) that long once
 * it is writing, as a slow disk or a loaded machine would hold it. Returns the exit code,
 * stdout, the JSON account and the input.
 */
async function interruptBulk(out: 'file' | 'pipe', presses: number, stopWhileSavingMs?: number) {
  const srv = await petServer();
  const input = bigInput();
  const outFile = join(input.dir, 'out.ndjson');
  const outFd = out === 'file' ? openSync(outFile, 'w') : undefined;
  const args = ['pets', 'create', '--from-file', input.file, '--output', 'ndjson'];
  const child = spawn(CLI_ARGV[0], [...CLI_ARGV.slice(1), ...args], {
    // HOME too: the run record goes to the test's own state folder, not the user's.
    env: remoteEnv(srv.baseUrl, KEY, { ...baseEnv(), HOME: input.dir, PETSTORE_CONFIG_DIR: input.dir }),
    stdio: ['ignore', outFd ?? 'pipe', 'pipe'],
  });
  if (outFd !== undefined) closeSync(outFd);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const watcher = whenSaving(input.dir);
  try {
    // Polled, not slept: the run has sent its first requests, whatever the machine's speed.
    while (srv.requests.length < 2) {
      if (child.exitCode !== null) throw new Error(`exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGINT');
    if (presses > 1 || stopWhileSavingMs !== undefined) {
      // Stopped as soon as it writes, the run is caught in the middle of saving, whatever
      // the machine's speed: the later signals arrive there once it goes on.
      await watcher.saving;
      child.kill('SIGSTOP');
      expect(temps(input.dir)).toHaveLength(1);
      for (let i = 1; i < presses; i++) child.kill('SIGINT');
      if (stopWhileSavingMs !== undefined) await new Promise((r) => setTimeout(r, stopWhileSavingMs));
      child.kill('SIGCONT');
    }
    const [code] = await exited;
    if (out === 'file') stdout = readFileSync(outFile, 'utf8');
    const account = lastJson(stderr);
    return { code, stdout, account, stderr, ...input };
  } finally {
    watcher.close();
    child.kill('SIGKILL');
  }
}

describe.each(['a quiet machine', 'two CPU-bound processes beside it'])(
  'Ctrl-C during a bulk create of 150,000 records, on %s',
  (machine) => {
    let loops: { stop: () => void } | undefined;
    beforeAll(() => {
      if (machine !== 'a quiet machine') loops = busyLoops(2);
    });
    afterAll(() => loops?.stop());

    it.each(['file', 'pipe'] as const)(
      'once, stdout to a %s: exit 130, the account, every unsent line in the remaining file, in order',
      async (out) => {
        const r = await interruptBulk(out, 1);
        expect(r.code).toBe(130);
        expect(r.account).toMatchObject({ code: 'interrupted', remainingFile: `${r.file}.remaining.ndjson` });
        // The pets created are on stdout, one line each.
        expect(r.stdout.trim().split('\n')).toHaveLength(r.account.created as number);
        const rest = readFileSync(`${r.file}.remaining.ndjson`, 'utf8');
        expect(rest).toBe(
          notCreatedLines(r.account)
            .map((line) => `${r.lines[line - 1]}\n`)
            .join(''),
        );
        expect(r.account.remaining).toBe(notCreatedLines(r.account).length);
        expect(temps(r.dir)).toEqual([]);
      },
    );

    it.each([
      ['file', 2],
      ['pipe', 2],
      ['file', 3],
      ['pipe', 3],
    ] as const)(
      'stdout to a %s, Ctrl-C %i times (the later ones while the remaining file is written): exit 130, the account naming the lines not saved',
      async (out, presses) => {
        const r = await interruptBulk(out, presses);
        expect(r.code).toBe(130);
        expect(r.account).toMatchObject({ code: 'interrupted', remainingFile: null });
        expect(r.account.message).toMatch(/; not saved: the run was ended before they could be written$/);
        expect(r.account.remainingRanges).toEqual(toRanges(notCreatedLines(r.account)));
        expect(existsSync(`${r.file}.remaining.ndjson`)).toBe(false);
        expect(temps(r.dir)).toEqual([]);
      },
    );

    describe.skipIf(!hasTmux())('at a terminal (tmux, 80x24)', () => {
      let t: TmuxSession | undefined;
      afterEach(() => t?.kill());

      it.each([1, 2, 3])(
        'Ctrl-C pressed %i time(s): exit 130, the account on screen, and no pager at any point',
        async (presses) => {
          const srv = await petServer();
          const input = bigInput();
          // petstore's default pager is `less -FRX`: `pets create` must never start it.
          const marker = lessShim(input.dir);
          t = startTmux({
            env: remoteEnv(srv.baseUrl, KEY, {
              PATH: `${join(input.dir, 'shims')}:${baseEnv().PATH}`,
              PETSTORE_CONFIG_DIR: input.dir,
            }),
            width: 80,
            height: 24,
          });
          const watcher = whenSaving(input.dir);
          try {
            t.sendLine(`petstore pets create --from-file '${input.file}'; echo "rc=$?"`);
            while (srv.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
            t.send('C-c');
            if (presses > 1) {
              // The later presses as the terminal delivers Ctrl-C (SIGINT to its foreground
              // process group), sent straight from here as the save starts: typed through
              // tmux they could come after a fast save.
              const group = processGroupOf(input.file);
              await watcher.saving;
              for (let i = 1; i < presses; i++) process.kill(-group, 'SIGINT');
            }
            const screen = await t.waitFor(/rc=\d+/, { timeoutMs: 120_000 });
            expect(screen).toMatch(/rc=130/);
            const account = t.capture({ history: true });
            expect(account).toMatch(/^error: stopped (after|at) record [\d,]+ of 150,000/m);
            if (presses === 1) {
              const saved = /the ([\d,]+) records not created are in\s+(\S+);/.exec(account.replace(/\s+/g, ' '));
              expect(saved?.[2]).toBe(`${input.file}.remaining.ndjson`);
              const rest = readFileSync(`${input.file}.remaining.ndjson`, 'utf8').trim().split('\n');
              expect(rest).toHaveLength(Number((saved?.[1] ?? '').replace(/,/g, '')));
              // Every line as it was in the input, in input order, up to the input's last.
              const at = new Map(input.lines.map((line, i) => [line, i]));
              const indexes = rest.map((line) => at.get(line) ?? -1);
              expect(indexes.every((n, i) => n >= 0 && (i === 0 || n > (indexes[i - 1] ?? 0)))).toBe(true);
              expect(indexes[indexes.length - 1]).toBe(RECORDS - 1);
            } else {
              expect(account.replace(/\s+/g, ' ')).toMatch(
                /could not be saved: the run was ended before they could be written; they are lines /,
              );
              expect(existsSync(`${input.file}.remaining.ndjson`)).toBe(false);
            }
            expect(existsSync(marker)).toBe(false);
            expect(temps(input.dir)).toEqual([]);
          } finally {
            watcher.close();
          }
        },
      );
    });
  },
);

describe('a first signal while the remaining file is written on a slow machine', () => {
  it('the run is stopped (SIGSTOP) for 3 s while it saves: the file is written in full all the same', async () => {
    // Three times the second a stop may take before the process is ended by force.
    const r = await interruptBulk('pipe', 1, 3_000);
    expect(r.code).toBe(130);
    expect(r.account).toMatchObject({ code: 'interrupted', remainingFile: `${r.file}.remaining.ndjson` });
    expect(readFileSync(`${r.file}.remaining.ndjson`, 'utf8')).toBe(
      notCreatedLines(r.account)
        .map((line) => `${r.lines[line - 1]}\n`)
        .join(''),
    );
  });
});

describe.skipIf(!hasTmux())('Ctrl-C during a paged `pets list --all` (tmux, 80x24)', () => {
  it('pressed twice: the pager is waited for, then exit 130 and "the list is incomplete"', async () => {
    // Every page takes a while: the pager has started (more rows than the screen) when
    // Ctrl-C comes, and the walk is still fetching.
    const srv = await startPagingServer({ pages: 1_000, perPage: 20, delayMs: 200 });
    const dir = tempDir();
    const marker = lessShim(dir);
    const t = startTmux({
      env: remoteEnv(srv.baseUrl, KEY, { PATH: `${join(dir, 'shims')}:${baseEnv().PATH}`, PETSTORE_CONFIG_DIR: dir }),
      width: 80,
      height: 24,
    });
    try {
      t.sendLine(`petstore pets list --all --limit 20; echo "rc=$?"`);
      while (!existsSync(marker) || srv.urls.length < 3) await new Promise((r) => setTimeout(r, 10));
      t.send('C-c');
      t.send('C-c');
      // less shows what was fetched and has the second Ctrl-C, or was ended with the run by it.
      const shown = await t.waitFor((s) => /rc=\d+/.test(s) || /^:/m.test(s), { timeoutMs: 60_000 });
      if (!/rc=\d+/.test(shown)) t.send('q');
      const screen = await t.waitFor(/rc=\d+/, { timeoutMs: 60_000 });
      expect(screen).toMatch(/rc=130/);
      expect(t.capture({ history: true })).toMatch(/the list is incomplete: [\d,]+ pets from [\d,]+ pages/);
    } finally {
      t.kill();
      await srv.close();
    }
  });
});

/**
 * Runs `args` in-process against `baseUrl`; `forceEnd` does what cli-entry.ts does at a
 * second signal (abort, then end by force) and returns the JSON line said then.
 */
function forcedRun(args: string[], baseUrl: string) {
  const controller = new AbortController();
  const shutdown = new ShutdownRegistry();
  let stderr = '';
  const run = runMain(args, {
    env: remoteEnv(baseUrl, KEY),
    signal: controller.signal,
    shutdown,
    onOutput: (stream, text) => (stream === 'stderr' ? (stderr += text) : undefined),
  });
  const forceEnd = (signal: 'SIGINT' | 'SIGTERM'): Record<string, unknown> => {
    controller.abort(signal);
    expect(shutdown.forceEnd({ kind: 'signal', signal })).toBe(true);
    return JSON.parse(stderr.trim()) as Record<string, unknown>;
  };
  return { run, forceEnd };
}

describe('`pets list --all` ended by force', () => {
  it('a second Ctrl-C before the walk has stopped: the incomplete line all the same, with what was fetched', async () => {
    // Page 3 is never answered: the walk is waiting for it when the signals come.
    const srv = await startPagingServer({ pages: 10, perPage: 20, override: (page) => page === 3 });
    const r = forcedRun(['pets', 'list', '--all', '--limit', '20', '--output', 'ndjson'], srv.baseUrl);
    while (srv.urls.length < 3) await new Promise((r) => setTimeout(r, 5));
    const forced = r.forceEnd('SIGINT');
    await r.run;
    await srv.close();
    expect(forced).toMatchObject({ code: 'interrupted', pages: 2, pets: 40 });
    expect(forced.message).toBe('interrupted: the list is incomplete: 40 pets from 2 pages');
  });

  it('a run with nothing of its own to say still says it was interrupted', async () => {
    const srv = await startPagingServer({ pages: 1, perPage: 20, override: () => true });
    const r = forcedRun(['pets', 'list', '--output', 'ndjson'], srv.baseUrl);
    while (srv.urls.length < 1) await new Promise((r) => setTimeout(r, 5));
    const forced = r.forceEnd('SIGTERM');
    await r.run;
    await srv.close();
    expect(forced).toMatchObject({ code: 'interrupted', status: 0 });
  });
});

describe('`pets create` never starts a pager', () => {
  it('a bulk create on a terminal, its table longer than the screen: written without the pager', async () => {
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, Array.from({ length: 50 }, (_, i) => `{"name":"P${i + 1}","categoryId":1}\n`).join(''));
    const marker = join(dir, 'paged');
    const r = await runMain(['pets', 'create', '--from-file', file, '--dry-run'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_PAGER: `touch '${marker}'` },
      tty: true,
      rows: 10,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^\s+P\d+\s/.test(l))).toHaveLength(50);
    expect(existsSync(marker)).toBe(false);
  });

  it('the same table from `pets list` is paged (the check above can fail)', async () => {
    const srv = await startPagingServer({ pages: 1, perPage: 50 });
    const dir = tempDir();
    const marker = join(dir, 'paged');
    const r = await runMain(['pets', 'list', '--limit', '50'], {
      env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_PAGER: `touch '${marker}'` }),
      tty: true,
      rows: 10,
    });
    await srv.close();
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});

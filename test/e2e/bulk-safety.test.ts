/**
 * A bulk create loses nothing and endangers no file (cli-contract.md "Bulk create"): every
 * way a run can end is accounted for and never exit 0 unfinished; temp files are created
 * exclusively under unpredictable names and removed on every path; the remaining file never
 * replaces a file nor follows a planted symlink; input that changes after it was checked is
 * never sent; re-runs do not duplicate. Processes where a process is the point (signals,
 * TMPDIR, full disks, symlinks), in-process otherwise.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, unwrapped } from '../helpers/run-cli.js';
import { fileServers, lastJson, remoteEnv } from '../helpers/harness.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { shell } from '../helpers/shell.js';
import { canMountSmallDisks, onSmallDisks } from '../helpers/small-disk.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { hasTmux, startTmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/temp-config.js';
import { errorReply, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_bulksafe_0123456789';
const { start } = fileServers();

/** NDJSON text of records P{from}..P{to}, each padded to about `width` characters. */
function records(from: number, to: number, width = 0): string {
  let out = '';
  for (let i = from; i <= to; i++) {
    const name = `P${i}`.padEnd(Math.max(0, width - 30), '.');
    out += `{"name":"${name}","categoryId":${i}}\n`;
  }
  return out;
}

/** `n` NDJSON records in `dir/pets.ndjson`. */
function inputFile(n: number, dir = tempDir(), width = 0): { dir: string; file: string } {
  const file = join(dir, 'pets.ndjson');
  writeFileSync(file, records(1, n, width));
  return { dir, file };
}

/** The `name`s of the records of an NDJSON text. */
function namesOf(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { name: string }).name.replace(/\.+$/, ''));
}

/** Names `P<n>` by their number: requests on several connections may arrive out of order. */
const inOrder = (names: string[]): string[] => [...names].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `P${from + i}`);

/**
 * A server that creates pets (ids from 1000), each answer after `delayMs` (and not before
 * `gate` settles); `failAt` (1-based POST count) answers 503 instead.
 */
async function petServer(opts: { delayMs?: number; failAt?: number; gate?: Promise<void> } = {}): Promise<TestServer> {
  let next = 1000;
  let posts = 0;
  return start(async (req) => {
    posts++;
    if (opts.gate !== undefined) await opts.gate;
    if (opts.delayMs !== undefined) await new Promise((r) => setTimeout(r, opts.delayMs));
    if (posts === opts.failAt) return errorReply(503, 'unavailable', 'try later');
    return { status: 201, body: { id: next++, ...(JSON.parse(req.body) as object) } };
  });
}

/** The environment of a run against `srv` with `dir` its config folder, plus `extra`. */
function serverEnv(srv: TestServer, dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, ...extra });
}

const node = `"${process.execPath}" "${CLI}"`;

/** A fresh folder holding an empty `tmp` folder (a TMPDIR, or where a small disk is mounted). */
function withTmp(): { dir: string; tmp: string } {
  const dir = tempDir();
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  return { dir, tmp };
}

/** `pets create --from-file <from> --output ndjson ...args`, spawned against `srv` with `dir` its config folder. */
function spawnCreate(
  srv: TestServer,
  dir: string,
  from: string,
  opts: { args?: string[]; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): ReturnType<typeof spawnCli> {
  return spawnCli(['pets', 'create', '--from-file', from, '--output', 'ndjson', ...(opts.args ?? [])], {
    env: serverEnv(srv, dir, opts.env),
    input: opts.input,
    secrets: [KEY],
    timeoutMs: opts.timeoutMs,
  });
}

/** Sends `sig` to a spawned bulk run once it has printed three records. */
async function afterThreeRecords(p: ReturnType<typeof spawnCli>, sig: NodeJS.Signals): Promise<void> {
  await p.until(() => p.stdout().split('\n').length > 3);
  p.child.kill(sig);
}

/** `pets create --from-file ...args` in-process against `srv`, with `dir` its config folder. */
function create(srv: TestServer, dir: string, args: string[], opts: Omit<MainOptions, 'env'> = {}) {
  return runMain(['pets', 'create', '--from-file', ...args], { env: serverEnv(srv, dir), ...opts });
}

/**
 * `pets create` in a shell (`script`, given the folder and its `tmp`) against a new pet server,
 * TMPDIR a small disk of `disk.kib` KiB; `input` (if any) is in `<dir>/in.ndjson`.
 */
async function onSmallTmp(
  disk: { kib: number; readOnly?: boolean },
  input: string | undefined,
  script: (dir: string, tmp: string) => string,
): Promise<{ r: Awaited<ReturnType<typeof onSmallDisks>>; srv: TestServer }> {
  const srv = await petServer();
  const { dir, tmp } = withTmp();
  if (input !== undefined) writeFileSync(join(dir, 'in.ndjson'), input);
  const r = await onSmallDisks([{ path: tmp, ...disk }], script(dir, tmp), serverEnv(srv, dir, { TMPDIR: tmp }));
  return { r, srv };
}

/** A shell line's tail that prints the exit code, then how many files `tmp` holds. */
const exitAndLeft = (tmp: string): string => `; echo "exit=$?"; echo "left=$(ls -A '${tmp}' | wc -l)"`;

/**
 * 1,500 records of 100 characters copied onto a small disk with 40 KiB to spare, then sent
 * from `cwd` (`cwd` or the disk) with `pets create <args> --concurrency 1`, record `failAt` failing.
 */
async function onFillingDisk(failAt: number, cwd: 'cwd' | 'disk', args: (disk: string) => string) {
  const srv = await petServer({ failAt });
  const dir = tempDir();
  const disk = join(dir, 'disk');
  mkdirSync(disk);
  if (cwd === 'cwd') mkdirSync(join(dir, 'cwd'));
  const text = records(1, 1500, 100);
  writeFileSync(join(dir, 'pets.ndjson'), text);
  const r = await onSmallDisks(
    [{ path: disk, kib: Math.ceil(text.length / 1024) + 40 }],
    `cp '${dir}/pets.ndjson' '${disk}/pets.ndjson' && cd '${join(dir, cwd)}' &&
    ${node} pets create ${args(disk)} --concurrency 1 >/dev/null; echo "exit=$?"
    echo "disk=$(ls -A '${disk}' | tr '\\n' ' ')"`,
    serverEnv(srv, dir),
  );
  return { r, cwd: join(dir, 'cwd') };
}

/** A promise the test settles (`open`) when it has done what the server's answers wait for. */
function gated(): { gate: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
}

/**
 * Sends `n` records of about `width` characters from a file while the server holds its answers;
 * `change` is applied to the file once the first request came, then the answers go. `sent` are
 * the names the server received, without their padding.
 */
async function changedWhileSent(n: number, width: number, change: (file: string) => void) {
  const { gate, open } = gated();
  const srv = await petServer({ gate });
  const { dir, file } = inputFile(n, tempDir(), width);
  const p = spawnCreate(srv, dir, file, { timeoutMs: 60_000 });
  await p.until(() => srv.requests.length >= 1);
  change(file);
  open();
  const { code } = await p.exited;
  const sent = srv.requests.map((r) => (JSON.parse(r.body) as { name: string }).name.replace(/\.+$/, ''));
  return { code, sent, p };
}

/** Checks the account of a run of 3,000 records stopped by a changed input; returns it. */
function expectStoppedUnsent(stderr: string): ReturnType<typeof lastJson> {
  const err = lastJson(stderr);
  expect(err.code).toBe('input_changed');
  expect(err).toMatchObject({ records: 3000, remainingFile: null });
  const created = err.created as number;
  expect(created + (err.unknown as unknown[]).length + (err.remaining as number)).toBe(3000);
  expect(err.remainingRanges).toEqual([{ lines: [created + 1, 3000] }]);
  return err;
}

/** Overwrites the first `from` in `file` with `to` (as long), in place: its size stays, as with `dd conv=notrunc`. */
function editInPlace(file: string, from: string, to: string): void {
  const at = readFileSync(file).indexOf(from);
  expect(at).toBeGreaterThan(0);
  expect(to.length).toBe(from.length);
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, to, at);
  } finally {
    closeSync(fd);
  }
}

describe('1. a copy of the input that cannot be kept: a clear non-zero exit, nothing sent, nothing left', () => {
  it.each([
    ['stdin, TMPDIR missing', '--from-file - < "$D/in.ndjson"', 'MISSING'],
    ['a process substitution, TMPDIR missing', '--from-file <(cat "$D/in.ndjson")', 'MISSING'],
    ['stdin, TMPDIR a file', '--from-file - < "$D/in.ndjson"', 'FILE'],
  ])('%s: exit 2 naming TMPDIR', async (_name, args, tmp) => {
    const srv = await petServer();
    const dir = tempDir();
    writeFileSync(join(dir, 'in.ndjson'), records(1, 10));
    writeFileSync(join(dir, 'a-file'), 'x');
    const tmpdir = join(dir, tmp === 'FILE' ? 'a-file' : 'missing');
    const r = await shell(`D='${dir}'; ${node} pets create ${args}`, serverEnv(srv, dir, { TMPDIR: tmpdir }));
    expect(r.code, r.stderr).toBe(2);
    expect(unwrapped(r.stderr)).toContain(tmpdir);
    expect(unwrapped(r.stderr)).toContain('TMPDIR');
    expect(unwrapped(r.stderr)).toContain('nothing was sent');
    expect(srv.requests).toHaveLength(0);
  });

  it.skipIf(!canMountSmallDisks())('a read-only TMPDIR: exit 2, nothing sent', async () => {
    const { r, srv } = await onSmallTmp(
      { kib: 64, readOnly: true },
      records(1, 10),
      (dir) => `${node} pets create --from-file - < '${dir}/in.ndjson'`,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(unwrapped(r.stderr)).toContain('read-only file system');
    expect(srv.requests).toHaveLength(0);
  });

  it.skipIf(!canMountSmallDisks()).each([
    [
      'a full TMPDIR: exit 2, nothing sent, no partial copy left',
      64,
      records(1, 4000, 60),
      (dir: string) => `--from-file - < '${dir}/in.ndjson'`,
      'no space left on the device',
    ],
    [
      '--from-file /dev/zero: exit 2 at once, nothing sent, no copy left',
      1024,
      undefined,
      () => '--from-file /dev/zero',
      /line 1: .*NUL/,
    ],
  ] as const)('%s', async (_name, kib, input, args, said) => {
    const { r, srv } = await onSmallTmp(
      { kib },
      input,
      (dir, tmp) => `${node} pets create ${args(dir)}${exitAndLeft(tmp)}`,
    );
    expect(r.stdout, r.stderr).toContain('exit=2\n');
    expect(r.stdout).toContain('left=0\n');
    expect(unwrapped(r.stderr)).toMatch(said);
    expect(srv.requests).toHaveLength(0);
  });
});

describe('never exit 0 unfinished', () => {
  it('a command that registered nothing: exit 1, code internal, without saying what it was doing', () => {
    const entry = join(CLI, '..', '..', 'dist', 'petstore.cjs');
    // A command that awaits a promise nothing will ever settle: the event loop drains.
    const script = `require(${JSON.stringify(entry)}).run(['pets', 'list', '--json'], () => new Promise(() => {}));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('internal');
    expect(r.stderr).toMatch(/ended without a result \(/);
  });

  it('a command whose work ends without a result: exit 1, code internal, naming what it was doing', () => {
    const entry = join(CLI, '..', '..', 'dist', 'petstore.cjs');
    // stdin replaced by a stream that never delivers a byte and holds nothing open: the copy
    // of `--from-file -` to the spool waits on it, and the event loop drains.
    const script = [
      `const { Readable } = require('node:stream');`,
      `Object.defineProperty(process, 'stdin', { value: new Readable({ read() {} }), configurable: true });`,
      `require(${JSON.stringify(entry)}).run(['pets', 'create', '--from-file', '-', '--output', 'json']);`,
    ].join('\n');
    const dir = tempDir();
    const r = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, PETSTORE_CONFIG_DIR: dir, PETSTORE_BASE_URL: 'http://127.0.0.1:9', PETSTORE_API_KEY: KEY },
    });
    expect(r.status, r.stderr).toBe(1);
    const err = lastJson(r.stderr);
    expect(err.code).toBe('internal');
    expect(err.message).toMatch(/ended without a result while copying stdin to a temporary file/);
  });
});

describe('2. a full disk while the remaining file is written', () => {
  it.skipIf(!canMountSmallDisks())(
    'beside the input is full: written in the current directory instead, and the account names it',
    async () => {
      // The input fills most of a small disk: its remaining records (more than 16 KiB) cannot fit beside it.
      const { r, cwd } = await onFillingDisk(2, 'cwd', (disk) => `--from-file '${disk}/pets.ndjson' --output ndjson`);
      expect(r.stdout, r.stderr).toContain('exit=1\n');
      // Nothing of petstore's is left on the full disk.
      expect(r.stdout).toContain('disk=pets.ndjson \n');
      const account = lastJson(r.stderr);
      expect(account).toMatchObject({ code: 'unavailable', created: 1, remaining: 1499 });
      expect(account.remainingFile).toBe(join(cwd, 'pets.ndjson.remaining.ndjson'));
      expect(namesOf(readFileSync(join(cwd, 'pets.ndjson.remaining.ndjson'), 'utf8'))).toEqual(range(2, 1500));
    },
  );

  it.skipIf(!canMountSmallDisks())(
    'nowhere to write it: exit 1 all the same, the account says it was not saved and which lines to rebuild it from',
    async () => {
      const { r } = await onFillingDisk(3, 'disk', () => '--from-file pets.ndjson');
      expect(r.stdout, r.stderr).toContain('exit=1\n');
      expect(r.stdout).toContain('disk=pets.ndjson \n');
      const err = unwrapped(r.stderr);
      expect(err).toContain('created 2: lines 1-2');
      expect(err).toMatch(/the 1,498 records not created could not be saved: .*no space left on the device/);
      expect(err).toContain('lines 3-1500 of "pets.ndjson"');
    },
  );
});

describe('3. a planted symlink is never followed', () => {
  it('symlinks at the remaining name and at the old temp names: the victim is untouched, the next free name is used', async () => {
    const srv = await petServer({ delayMs: 30, failAt: 5 });
    const { dir, file } = inputFile(20);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, `${file}.remaining.ndjson`);
    const p = spawnCreate(srv, dir, file, { args: ['--concurrency', '1'] });
    // The temp names an earlier version used (name.PID.tmp), planted before they are needed.
    symlinkSync(victim, `${file}.remaining.ndjson.${p.child.pid}.tmp`);
    const { code } = await p.exited;
    expect(code).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readlinkSync(`${file}.remaining.ndjson`)).toBe(victim);
    const next = `${file}.remaining-2.ndjson`;
    expect(lastJson(p.stderr())).toMatchObject({ remainingFile: next, remaining: 16 });
    expect(lstatSync(next).isFile()).toBe(true);
    expect(statSync(next).mode & 0o777).toBe(0o600);
    expect(namesOf(readFileSync(next, 'utf8'))).toEqual(range(5, 20));
  });
});

describe('4. the remaining file never replaces a file, nor lands beside a device', () => {
  it("a user's file and an earlier remaining file keep their content; the first free name is used", async () => {
    const srv = await petServer({ failAt: 2 });
    const { dir, file } = inputFile(4);
    writeFileSync(`${file}.remaining.ndjson`, 'mine\n');
    writeFileSync(`${file}.remaining-2.ndjson`, 'earlier\n');
    const r = await create(srv, dir, [file, '--concurrency', '1']);
    expect(r.code).toBe(1);
    expect(readFileSync(`${file}.remaining.ndjson`, 'utf8')).toBe('mine\n');
    expect(readFileSync(`${file}.remaining-2.ndjson`, 'utf8')).toBe('earlier\n');
    expect(namesOf(readFileSync(`${file}.remaining-3.ndjson`, 'utf8'))).toEqual(range(2, 4));
    expect(unwrapped(r.stderr)).toContain(`are in ${file}.remaining-3.ndjson`);
  });

  it('--from-file /dev/stdin on a pipe: the remaining file goes to the current directory, never into /dev', async () => {
    const srv = await petServer({ failAt: 2 });
    const { dir, file } = inputFile(4);
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd);
    const r = await shell(
      `cd '${cwd}' && cat '${file}' | ${node} pets create --from-file /dev/stdin --output ndjson --concurrency 1`,
      serverEnv(srv, dir, { TMPDIR: dir }),
    );
    try {
      expect(r.code, r.stderr).toBe(1);
      expect(existsSync('/dev/stdin.remaining.ndjson')).toBe(false);
      expect(lastJson(r.stderr).remainingFile).toBe(join(cwd, 'stdin.remaining.ndjson'));
      expect(namesOf(readFileSync(join(cwd, 'stdin.remaining.ndjson'), 'utf8'))).toEqual(range(2, 4));
    } finally {
      spawnSync('rm', ['-f', '/dev/stdin.remaining.ndjson']);
    }
  });
});

describe('5. SIGHUP and SIGQUIT end a run like SIGTERM: the account and the remaining file', () => {
  it.each([
    ['SIGHUP', 129],
    ['SIGQUIT', 131],
  ] as const)('%s while records are sent from a file: exit %d', async (sig, want) => {
    const srv = await petServer({ delayMs: 100 });
    const { dir, file } = inputFile(20);
    const p = spawnCreate(srv, dir, file);
    await afterThreeRecords(p, sig);
    const { code } = await p.exited;
    expect(code).toBe(want);
    const err = lastJson(p.stderr());
    expect(err.code).toBe('interrupted');
    const created = err.created as number;
    const unknown = (err.unknown as unknown[]).length;
    expect(created + unknown + (err.remaining as number)).toBe(20);
    expect(err.remainingFile).toBe(`${file}.remaining.ndjson`);
    expect(namesOf(readFileSync(`${file}.remaining.ndjson`, 'utf8'))).toEqual(range(created + unknown + 1, 20));
  });

  it('a hang-up comes twice (the terminal, then the shell): the second does not cut the remaining file short', async () => {
    const srv = await petServer({ delayMs: 20 });
    const { dir, file } = inputFile(200_000);
    const p = spawnCreate(srv, dir, file);
    await afterThreeRecords(p, 'SIGHUP');
    // More hang-ups every few ms until the run ends, so some land while the remaining file is
    // written, however long that takes on a loaded machine (polling for its temp file could
    // miss the moment).
    const state = { ended: false };
    void p.exited.then(() => (state.ended = true));
    while (!state.ended) {
      p.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await p.exited).code).toBe(129);
    const err = lastJson(p.stderr());
    expect(err.remainingFile).toBe(`${file}.remaining.ndjson`);
    const handled = (err.created as number) + (err.unknown as unknown[]).length;
    expect(namesOf(readFileSync(`${file}.remaining.ndjson`, 'utf8'))).toEqual(range(handled + 1, 200_000));
  });

  it('SIGHUP with --from-file -: the account, the remaining file in the current directory, no copy of stdin left', async () => {
    const srv = await petServer({ delayMs: 100 });
    const { dir, tmp } = withTmp();
    const p = spawnCreate(srv, dir, '-', { env: { TMPDIR: tmp }, input: records(1, 20) });
    await afterThreeRecords(p, 'SIGHUP');
    const { code } = await p.exited;
    expect(code).toBe(129);
    expect(readdirSync(tmp)).toEqual([]);
    const err = lastJson(p.stderr());
    expect(err.code).toBe('interrupted');
    expect(typeof err.remainingFile).toBe('string');
    expect(existsSync(err.remainingFile as string)).toBe(true);
  });
});

describe.skipIf(!hasTmux())('5. a terminal that hangs up', () => {
  it('the terminal closed mid-run: exit 129 with the account, no crash of Node on the way out', async () => {
    const srv = await petServer({ delayMs: 5 });
    const { dir, file } = inputFile(3000);
    // Keeps the terminal as stdin (as a person's run has it) and writes down how the run
    // ended; it ignores the hang-up itself, so it outlives the terminal.
    const wrapper = join(dir, 'record-exit.cjs');
    writeFileSync(
      wrapper,
      `process.on('SIGHUP', () => {});
const fs = require('node:fs');
const [out, err, rc, ...argv] = process.argv.slice(2);
const c = require('node:child_process').spawn('petstore', argv, { stdio: ['inherit', fs.openSync(out, 'w'), fs.openSync(err, 'w')] });
c.on('exit', (code, signal) => fs.writeFileSync(rc, code + ' ' + signal));
`,
    );
    const [out, err, rc] = [join(dir, 'out'), join(dir, 'err'), join(dir, 'rc')];
    const t = startTmux({ env: serverEnv(srv, dir), width: 80, height: 20 });
    t.sendLine(
      `'${process.execPath}' '${wrapper}' '${out}' '${err}' '${rc}' pets create --from-file '${file}' -o ndjson`,
    );
    while (srv.requests.length < 20) await new Promise((r) => setTimeout(r, 10));
    t.kill();
    // Polled until the wrapper saw the run end: it saves its whole remaining file first,
    // however long a loaded machine takes; the limit is for a hang.
    for (let i = 0; i < 12_000 && !existsSync(rc); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(rc, 'utf8')).toBe('129 null');
    const stderr = readFileSync(err, 'utf8');
    expect(stderr).not.toContain('Assertion failed');
    const account = lastJson(stderr);
    expect(account).toMatchObject({ code: 'interrupted', remainingFile: `${file}.remaining.ndjson` });
    expect(namesOf(readFileSync(out, 'utf8'))).toHaveLength(account.created as number);
    expect(srv.requests).toHaveLength(account.created as number);
  }, 240_000);
});

describe('6. input checked is input sent', () => {
  it('a file that grows while records are sent: stops before any unchecked record is sent, exit 1, the account', async () => {
    // The server holds its answers until the file has grown: the run cannot have sent every
    // record first, however slow the test is to append.
    const { code, sent, p } = await changedWhileSent(3000, 100, (file) =>
      appendFileSync(file, `${records(3001, 3025)}{"name":"Bad","categoryId":1.5}\n`),
    );
    expect(code).toBe(1);
    expect(sent.length).toBeLessThan(3000);
    expect(sent).toEqual(range(1, sent.length));
    expectStoppedUnsent(p.stderr());
  });

  // The server holds its answers until the file was changed: the run has then read no more
  // than what its first requests needed, whatever the machine's load.
  it.each([
    ['a same-size edit in place', (file: string) => editInPlace(file, 'P2000.', 'Q2000.'), 'it was modified'],
    ['a truncation', (file: string) => truncateSync(file, 150_000), 'its size went from'],
  ] as const)(
    '%s while records are sent: stops before any record read after it is sent, exit 1, the account',
    async (_, change, what) => {
      const { code, sent, p } = await changedWhileSent(3000, 100, change);
      expect(code, p.stderr()).toBe(1);
      // Only records of the first chunk (64 KiB, about 650 records) were read before the change.
      expect(sent.length).toBeLessThan(1000);
      expect(inOrder(sent)).toEqual(range(1, sent.length));
      expect(expectStoppedUnsent(p.stderr()).message).toContain(what);
    },
  );

  it('a file changed after it was read whole: every checked record is created once, exit 0, a warning names the change', async () => {
    // 1,000 records of about 30 bytes: one chunk, read (and compared) before the first request.
    const { code, sent, p } = await changedWhileSent(1000, 0, (file) => editInPlace(file, 'P500"', 'Q500"'));
    expect(code, p.stderr()).toBe(0);
    expect(inOrder(sent)).toEqual(range(1, 1000));
    expect(namesOf(p.stdout())).toEqual(range(1, 1000));
    const warnings = p
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { level?: string; message: string })
      .filter((m) => m.level === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('pets.ndjson');
    expect(warnings[0]?.message).toMatch(/changed after it was read \(it was modified\)/);
    expect(warnings[0]?.message).toContain('the 1,000 records sent are those checked');
  });

  it('invalid UTF-8 is refused with exit 2 naming the line, nothing sent', async () => {
    const srv = await petServer();
    const dir = tempDir();
    const file = join(dir, 'latin1.ndjson');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"name":"Rex","categoryId":1}\n{"name":"Caf'),
        Buffer.from([0xe9]),
        Buffer.from('","categoryId":1}\n'),
      ]),
    );
    const r = await create(srv, dir, [file]);
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toMatch(/line 2: not valid UTF-8/);
    expect(unwrapped(r.stderr)).toContain('nothing was sent');
    expect(srv.requests).toHaveLength(0);
  });
});

/** A first run of `n` records from a file, record `failAt` failing: exit 1, the rest saved beside the file. */
async function stoppedRun(n: number, failAt: number) {
  const srv = await petServer({ failAt });
  const { dir, file } = inputFile(n);
  const env = serverEnv(srv, dir);
  expect((await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1'], { env })).code).toBe(1);
  return { srv, file, env, remaining: `${file}.remaining.ndjson` };
}

describe('8. re-runs do not duplicate', () => {
  it('a remaining file is removed once all its records are created; the original is refused until then, or with --force', async () => {
    const { srv, file, env, remaining } = await stoppedRun(6, 4);
    const names = (): string[] => srv.requests.map((r) => (JSON.parse(r.body) as { name: string }).name);
    expect(names()).toEqual(range(1, 4));

    // The original again: refused, naming the file to send instead.
    const again = await runMain(['pets', 'create', '--from-file', file], { env });
    expect(again.code).toBe(2);
    expect(unwrapped(again.stderr)).toContain(remaining);
    expect(unwrapped(again.stderr)).toContain('--force');
    expect(names()).toHaveLength(4);

    // The printed re-run command: every record created, and the file removed.
    const rest = await runMain(['pets', 'create', '--from-file', remaining], { env });
    expect(rest.code, rest.stderr).toBe(0);
    expect(names()).toEqual([...range(1, 4), ...range(4, 6)]);
    expect(existsSync(remaining)).toBe(false);
    expect(unwrapped(rest.stderr)).toContain(`removed ${remaining}`);

    // The same command again, from the shell's history: nothing is created twice.
    const twice = await runMain(['pets', 'create', '--from-file', remaining], { env });
    expect(twice.code).toBe(2);
    expect(names()).toHaveLength(7);

    // The original, now created in full: a warning, not a refusal.
    const full = await runMain(['pets', 'create', '--from-file', file], { env });
    expect(full.code).toBe(0);
    expect(unwrapped(full.stderr)).toMatch(/every record of .* was created before/);
    expect(names()).toHaveLength(13);
  });

  it('a remaining file whose failed record was fixed by hand is known by its place, and kept once created: petstore no longer wrote it', async () => {
    const srv = await start((req) => {
      const pet = JSON.parse(req.body) as { name: string };
      if (pet.name === ' ') return errorReply(400, 'invalid_request', 'invalid name: must not be empty');
      return { status: 201, body: { id: 1, ...pet } };
    });
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, `${records(1, 2)}{"name":" ","categoryId":3}\n${records(4, 5)}`);
    const env = serverEnv(srv, dir);
    expect((await runMain(['pets', 'create', '--from-file', file], { env })).code).toBe(6);
    const remaining = `${file}.remaining.ndjson`;
    // Fixed as an editor does it: a new file renamed over the old one.
    writeFileSync(`${remaining}.new`, readFileSync(remaining, 'utf8').replace('" "', '"P3"'));
    renameSync(`${remaining}.new`, remaining);
    const rest = await runMain(['pets', 'create', '--from-file', remaining], { env });
    expect(rest.code, rest.stderr).toBe(0);
    // Not the file petstore wrote (a new one took its place): kept, and the note says why.
    expect(existsSync(remaining)).toBe(true);
    expect(unwrapped(rest.stderr)).toContain(
      `kept ${remaining}: every record of it was created, but it is another file than the one petstore wrote (replaced since); delete it yourself`,
    );
    // Sent again all the same: a warning, as for any input created in full before.
    const again = await runMain(['pets', 'create', '--from-file', remaining], { env });
    expect(unwrapped(again.stderr)).toMatch(/every record of .* was created before/);
    // The run it came from counts as complete.
    const full = await runMain(['pets', 'create', '--from-file', file], { env });
    expect(unwrapped(full.stderr)).toMatch(/every record of .* was created before/);
  });

  it('a remaining file changed in place (same inode) is kept once created, and the note says why', async () => {
    const { env, remaining } = await stoppedRun(3, 2);
    editInPlace(remaining, '"P2"', '"Q2"');
    const rest = await runMain(['pets', 'create', '--from-file', remaining], { env });
    expect(rest.code, rest.stderr).toBe(0);
    expect(existsSync(remaining)).toBe(true);
    expect(unwrapped(rest.stderr)).toContain(
      `kept ${remaining}: every record of it was created, but it was changed since petstore wrote it`,
    );
  });

  it('a remaining file deleted since: the refusal names it as gone and the lines to send, not as never saved', async () => {
    const { srv, file, env, remaining } = await stoppedRun(5, 3);
    rmSync(remaining);
    const again = await runMain(['pets', 'create', '--from-file', file], { env });
    expect(again.code).toBe(2);
    const hint = unwrapped(again.stderr);
    expect(hint).toContain(
      `The records not created (lines 3-5) were saved to ${remaining}, which is gone: send those lines.`,
    );
    expect(hint).not.toContain('were not saved');
    expect(srv.requests).toHaveLength(3);
  });

  it('--force sends an input whose earlier run stopped partway', async () => {
    const { srv, file, env } = await stoppedRun(3, 2);
    expect((await runMain(['pets', 'create', '--from-file', file], { env })).code).toBe(2);
    const forced = await runMain(['pets', 'create', '--from-file', file, '--force'], { env });
    expect(forced.code).toBe(0);
    expect(srv.requests).toHaveLength(5);
    // A file of the user's is never removed.
    expect(existsSync(file)).toBe(true);
  });
});

describe('9. progress on a terminal', () => {
  it('one progress line while sending, one summary line at the end; nothing extra when stderr is not a terminal', async () => {
    const srv = await petServer();
    const { dir, file } = inputFile(300);
    const tty = await create(srv, dir, [file], { tty: { stderr: true } });
    expect(tty.code).toBe(0);
    // The progress line is redrawn in place (`\r`, erase in line) and erased before the
    // summary, which names where the pets went, as the first line did.
    // The URL and key came from variables, which the target says; a line too long for 80
    // columns goes on indented (continuations joined here).
    const plain = stripVTControlCharacters(tty.stderr).replace(/\n {2}/g, ' ');
    const target = `production (${new URL(srv.baseUrl).host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY)`;
    expect(plain.startsWith(`env: ${target}\n\rcreated `)).toBe(true);
    expect(plain).toMatch(/^.*\n\rcreated [\d,]+ of 300/);
    expect(plain.endsWith(` in ${target}\n`)).toBe(true);
    expect(plain).toMatch(/\rcreated 300 pets in \d+\.\d s in production/);
    expect(plain.split('\n')).toHaveLength(3);
    const piped = await create(srv, dir, [inputFile(3).file]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe.skipIf(!hasTmux())('9. progress in a real terminal', () => {
  it.each([80, 60])(
    '%d columns: 5,000 records show a progress line, then one summary line',
    async (width) => {
      const srv = await petServer();
      const { dir, file } = inputFile(5000);
      const t = startTmux({ env: serverEnv(srv, dir), width, height: 20 });
      try {
        t.sendLine(`petstore pets create --from-file '${file}' > /dev/null; echo "rc=$?"`);
        const during = await t.waitFor(/created [\d,]+ of 5,000 \([\d,]+\/s, \d+ in flight\)/, { timeoutMs: 60_000 });
        expect(during).not.toMatch(/rc=\d/);
        const screen = await t.waitFor(/rc=\d+/, { timeoutMs: 60_000 });
        // The summary names the target; at 60 columns it wraps, its second line indented.
        expect(screen).toMatch(
          /\ncreated 5,000 pets in \d+\.\d s in production\s+\(127\.0\.0\.1:\d+,\s+from\s+PETSTORE_BASE_URL\s+and\s+PETSTORE_API_KEY\)\nrc=0\n/,
        );
        expect(screen).not.toMatch(/of 5,000/);
        expect(screen.split('\n').filter((l) => l.length > width && !l.includes('petstore pets create'))).toEqual([]);
      } finally {
        t.kill();
      }
      // Its waits allow a loaded machine 60 s each; the test's own limit must not cut them short.
    },
    150_000,
  );
});

describe('--dry-run', () => {
  it('checks everything, prints the records as they would be sent, sends nothing', async () => {
    const srv = await petServer();
    const { dir, file } = inputFile(3);
    const r = await create(srv, dir, [file, '--dry-run', '--output', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(records(1, 3));
    expect(unwrapped(r.stderr)).toContain('3 records');
    expect(srv.requests).toHaveLength(0);
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"name":"A"}\n');
    const refused = await create(srv, dir, [bad, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(srv.requests).toHaveLength(0);
  });
});

describe('the account in JSON', () => {
  it('failed and unknown are arrays of {line, ...}; createdRanges are line ranges', async () => {
    const srv = await petServer({ failAt: 3 });
    const { dir, file } = inputFile(5);
    const r = await create(srv, dir, [file, '--json', '--concurrency', '1']);
    expect(r.code).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({
      code: 'unavailable',
      records: 5,
      created: 2,
      createdRanges: [{ lines: [1, 2] }],
      failed: [{ line: 3, code: 'unavailable', message: 'try later', status: 503 }],
      unknown: [],
      notSent: 2,
      remaining: 3,
      remainingFile: `${file}.remaining.ndjson`,
      remainingRanges: [{ lines: [3, 5] }],
    });
  });
});

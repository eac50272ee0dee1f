/**
 * What petstore trusts of its config directory (cli-contract.md "What petstore trusts (ssh's
 * rule)"; docs/configuration.md "Who may own petstore's files"): the directory, config.json,
 * sandbox.json and its journal are used only when owned by the effective user or root and
 * writable by neither group nor others; otherwise exit 2 naming the path, why and the fix,
 * while commands that need no stored value keep working. Links: config.json and the
 * directory may be links to what passes; the sandbox's files are never written through one.
 * A FIFO in a file's place is refused at once. A config writer killed mid-write leaves a
 * temp file that the next writer removes. Real files in temp dirs; in-process (runMain)
 * where nothing could hang, spawned where a regression would (a FIFO) or where the process
 * is the point (kill -9, another uid). Other owners need root (chown, setpriv): those tests
 * are skipped with the reason printed elsewhere.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER, THIRD, otherUsersUnavailable } from '../helpers/other-user.js';
import { CLI, baseEnv, runCli, unwrapped, type CliResult } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const asRoot = otherUsersUnavailable === undefined;
const KILL_BEFORE_RENAME = fileURLToPath(new URL('../helpers/kill-before-rename.cjs', import.meta.url));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});

const mode = (path: string): number => statSync(path).mode & 0o7777;

/**
 * A config directory whose production environment would run `touch MARKER` for its key: the
 * marker proves whether a key command from this directory ever ran.
 */
function configWithKeyCommand(): { dir: string; file: string; marker: string; text: string } {
  const dir = join(tempDir(), 'petstore');
  mkdirSync(dir, { mode: 0o700 });
  const marker = join(dir, '..', 'key-command-ran');
  const file = join(dir, 'config.json');
  const text = JSON.stringify({ production: { baseUrl: server.baseUrl, apiKeyCommand: `touch ${marker}` } });
  writeFileSync(file, text, { mode: 0o600 });
  return { dir, file, marker, text };
}

/** Exit 2 with code `config`, naming `path`, `why` and the `fix`; nothing on stdout. */
function expectRefused(r: CliResult, path: string, why: string, fix?: string): void {
  expect(r.timedOut, 'a hang').toBeUndefined();
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const text = unwrapped(r.stderr);
  expect(text).toContain(`${path} ${why}`);
  if (fix !== undefined) expect(text).toContain(fix);
  expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at /);
}

it('control: in a private directory the key command does run (the marker is a real witness)', async () => {
  const { dir, marker } = configWithKeyCommand();
  const r = await runMain(['pets', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
  expect(r.code).not.toBe(0); // touch prints no key
  expect(existsSync(marker)).toBe(true);
});

/** A config folder `name` (environment staging) that every user may read, in a folder every user may enter. */
function readableConfig(name: string): string {
  const parent = tempDir();
  chmodSync(parent, 0o755);
  const dir = join(parent, name);
  mkdirSync(dir, { mode: 0o755 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ environment: 'staging' }), { mode: 0o644 });
  return dir;
}

describe.concurrent('a config directory others can change is refused (exit 2), nothing run or written', () => {
  const cases: [string, (dir: string) => void, string, string | ((dir: string) => string)][] = [
    [
      'group-writable (0775)',
      (d) => chmodSync(d, 0o775),
      'is writable by its group (mode 0775)',
      (d) => `chmod go-w ${d}`,
    ],
    [
      'other-writable (0777)',
      (d) => chmodSync(d, 0o777),
      'is writable by other users (mode 0777)',
      (d) => `chmod go-w ${d}`,
    ],
    [
      'sticky, world-writable (1777)',
      (d) => chmodSync(d, 0o1777),
      'is writable by other users (mode 1777)',
      (d) => `chmod go-w ${d}`,
    ],
  ];
  if (asRoot) {
    cases.push([
      'owned by another user',
      (d) => execFileSync('chown', ['-R', `${OTHER.uid}:${OTHER.gid}`, d]),
      `is owned by uid ${OTHER.uid}, not by you (uid 0) or root`,
      `Use a folder of your own (or have its owner, uid ${OTHER.uid}, remove it).`,
    ]);
  }

  it.each(cases)('%s', async (_name, spoil, why, fixOf) => {
    const { dir, file, marker, text } = configWithKeyCommand();
    spoil(dir);
    const before = mode(dir);
    const env = { PETSTORE_CONFIG_DIR: dir };
    const fix = typeof fixOf === 'string' ? fixOf : fixOf(dir);
    for (const args of [
      ['pets', 'list'],
      ['config', 'get', 'environment'],
      ['config', 'list'],
      ['auth', 'status'],
      ['config', 'set', 'environment', 'staging'],
      ['config', 'unset', 'production.baseUrl'],
      ['auth', 'logout'],
      ['--env', 'sandbox', 'pets', 'list'],
      ['sandbox', 'reset'],
    ]) {
      expectRefused(await runMain(args, { env }), dir, why, fix);
    }
    expect(existsSync(marker), 'the key command ran').toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(mode(dir), 'the directory was changed').toBe(before);
  });

  it.each(cases)('%s: commands that need no stored value still work', async (_name, spoil) => {
    const { dir, marker } = configWithKeyCommand();
    spoil(dir);
    const env = { PETSTORE_CONFIG_DIR: dir };
    expect((await runMain(['--help'], { env })).code).toBe(0);
    expect((await runMain(['--version'], { env })).code).toBe(0);
    const path = await runMain(['config', 'path'], { env });
    expect(path).toMatchObject({ code: 0, stdout: `${join(dir, 'config.json')}\n`, stderr: '' });
    const run = await runMain(['pets', 'list', '--json'], {
      env: { ...env, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: 'env-key-for-trust-test' },
    });
    expect(run).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe.concurrent('config.json others can change is refused (exit 2)', () => {
  it.each([
    ['0666', 0o666, 'is writable by other users (mode 0666)'],
    ['0664', 0o664, 'is writable by its group (mode 0664)'],
  ])('mode %s', async (_name, bits, why) => {
    const { dir, file, marker, text } = configWithKeyCommand();
    chmodSync(file, bits);
    for (const args of [
      ['pets', 'list'],
      ['config', 'set', 'environment', 'staging'],
    ]) {
      expectRefused(await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } }), file, why, `chmod go-w ${file}`);
    }
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(mode(file)).toBe(bits);
  });

  it.skipIf(!asRoot)('owned by another user', async () => {
    const { dir, file, marker, text } = configWithKeyCommand();
    chownSync(file, OTHER.uid, OTHER.gid);
    for (const args of [
      ['pets', 'list'],
      ['config', 'set', 'environment', 'staging'],
    ]) {
      expectRefused(await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } }), file, `is owned by uid ${OTHER.uid}`);
    }
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).uid).toBe(OTHER.uid);
  });

  it('larger than 1 MiB: refused, left as it is', async () => {
    const { dir, file } = configWithKeyCommand();
    writeFileSync(file, `{"pad": "${'x'.repeat(1024 * 1024)}"}`, { mode: 0o600 });
    const r = await runMain(['config', 'get', 'environment'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expectRefused(r, file, 'is larger than 1 MiB');
  });
});

describe.concurrent('links', () => {
  it('config.json may be a link to a private file: read and written through it, the link kept', async () => {
    const dir = tempDir();
    const target = join(tempDir(), 'dotfiles-config.json');
    writeFileSync(target, JSON.stringify({ environment: 'staging' }), { mode: 0o600 });
    symlinkSync(target, join(dir, 'config.json'));
    const env = { PETSTORE_CONFIG_DIR: dir };
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'staging\n' });
    expect((await runMain(['config', 'set', 'environment', 'sandbox'], { env })).code).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ environment: 'sandbox' });
  });

  it('config.json linked to a file others can write: refused, the target untouched', async () => {
    const dir = tempDir();
    const target = join(tempDir(), 'shared-config.json');
    writeFileSync(target, '{}');
    chmodSync(target, 0o666);
    symlinkSync(target, join(dir, 'config.json'));
    const r = await runMain(['config', 'set', 'environment', 'staging'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expectRefused(r, join(dir, 'config.json'), 'is writable by other users (mode 0666)');
    expect(readFileSync(target, 'utf8')).toBe('{}');
  });

  it.skipIf(!asRoot)("config.json linked to another user's file: refused, the target untouched", async () => {
    const dir = tempDir();
    const target = join(tempDir(), 'their-config.json');
    writeFileSync(target, '{}', { mode: 0o600 });
    chownSync(target, OTHER.uid, OTHER.gid);
    symlinkSync(target, join(dir, 'config.json'));
    for (const args of [
      ['config', 'get', 'environment'],
      ['config', 'set', 'environment', 'staging'],
    ]) {
      const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } });
      expectRefused(r, join(dir, 'config.json'), `is owned by uid ${OTHER.uid}`);
    }
    expect(readFileSync(target, 'utf8')).toBe('{}');
  });

  it('the config directory may be a link to a private directory; a link to a shared one is refused', async () => {
    const real = tempDir();
    const link = join(tempDir(), 'petstore');
    symlinkSync(real, link);
    const env = { PETSTORE_CONFIG_DIR: link };
    expect((await runMain(['config', 'set', 'environment', 'staging'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(real, 'config.json'), 'utf8'))).toEqual({ environment: 'staging' });
    chmodSync(real, 0o777);
    expectRefused(await runMain(['config', 'get', 'environment'], { env }), link, 'is writable by other users');
  });

  describe('sandbox.json and its journal are never written through a link', () => {
    /** A real sandbox elsewhere (the link's target), and its bytes. */
    async function realSandbox(): Promise<{ data: string; journal: string; bytes: () => [Buffer, Buffer] }> {
      const dir = tempDir();
      expect((await runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } })).code).toBe(0);
      const data = join(dir, 'sandbox.json');
      const journal = `${data}.journal`;
      return { data, journal, bytes: () => [readFileSync(data), readFileSync(journal)] };
    }

    const COMMANDS = [
      ['sandbox', 'reset'],
      ['--env', 'sandbox', 'pets', 'create', '--name', 'Intruder', '--category-id', '1'],
      ['--env', 'sandbox', 'pets', 'list'],
      ['sandbox', 'serve', '--port', '0'],
    ];

    it('sandbox.json a link: every command refuses it; link and target untouched', async () => {
      const target = await realSandbox();
      const before = target.bytes();
      const dir = tempDir();
      const link = join(dir, 'sandbox.json');
      symlinkSync(target.data, link);
      for (const args of COMMANDS) {
        const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir }, signal: AbortSignal.timeout(60_000) });
        expectRefused(r, link, 'is a symbolic link', `rm ${link}`);
      }
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(target.bytes()).toEqual(before);
    });

    it('the journal a link: every command refuses it; neither file written, the target untouched', async () => {
      const target = await realSandbox();
      const before = target.bytes();
      const dir = tempDir();
      expect((await runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } })).code).toBe(0);
      const own = readFileSync(join(dir, 'sandbox.json'));
      const link = join(dir, 'sandbox.json.journal');
      rmSync(link);
      symlinkSync(target.journal, link);
      for (const args of COMMANDS) {
        const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir }, signal: AbortSignal.timeout(60_000) });
        expectRefused(r, link, 'is a symbolic link', `rm ${link}`);
      }
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(dir, 'sandbox.json')).equals(own)).toBe(true);
      expect(target.bytes()).toEqual(before);
    });
  });
});

describe.concurrent('a FIFO in a file place is refused at once, never waited on (spawned: a regression hangs)', () => {
  /** A FIFO nobody writes to: a blocking open of it never returns. */
  function fifo(path: string): void {
    execFileSync('mkfifo', ['-m', '600', path]);
  }

  it.each([
    ['config get environment', ['config', 'get', 'environment']],
    ['config set environment staging', ['config', 'set', 'environment', 'staging']],
    ['pets list', ['pets', 'list']],
  ])('config.json a FIFO: %s → exit 2', async (_name, args) => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    fifo(file);
    expectRefused(
      await runCli(args, { env: { PETSTORE_CONFIG_DIR: dir } }),
      file,
      'is not a regular file',
      `rm ${file}`,
    );
    expect(lstatSync(file).isFIFO()).toBe(true);
  });

  it.each([
    ['--env sandbox pets list', ['--env', 'sandbox', 'pets', 'list']],
    ['--env sandbox pets create', ['--env', 'sandbox', 'pets', 'create', '--name', 'X', '--category-id', '1']],
    ['sandbox reset', ['sandbox', 'reset']],
    ['sandbox serve', ['sandbox', 'serve', '--port', '0']],
  ])('sandbox.json or its journal a FIFO: %s → exit 2', async (_name, args) => {
    const dir = tempDir();
    const data = join(dir, 'sandbox.json');
    fifo(data);
    const env = { PETSTORE_CONFIG_DIR: dir };
    expectRefused(await runCli(args, { env }), data, 'is not a regular file', `rm ${data}`);
    rmSync(data);
    expect((await runMain(['sandbox', 'reset'], { env })).code).toBe(0);
    const journal = `${data}.journal`;
    rmSync(journal);
    fifo(journal);
    expectRefused(await runCli(args, { env }), journal, 'is not a regular file', `rm ${journal}`);
  });
});

it('a journal larger than the cap (256 MiB) is refused at once, not read', async () => {
  const dir = tempDir();
  const env = { PETSTORE_CONFIG_DIR: dir };
  expect((await runMain(['sandbox', 'reset'], { env })).code).toBe(0);
  const journal = join(dir, 'sandbox.json.journal');
  truncateSync(journal, 256 * 1024 * 1024 + 1); // sparse: no disk used
  expectRefused(await runMain(['--env', 'sandbox', 'pets', 'list'], { env }), journal, 'is larger than 256 MiB');
});

describe.concurrent('temp files of a config writer killed mid-write', () => {
  it('kill -9 between the temp file and its rename: the next config set removes it and stores its value', async () => {
    const dir = join(tempDir(), 'petstore');
    const env = { ...baseEnv(), PETSTORE_CONFIG_DIR: dir, HOME: dir };
    // The first writer kills itself (SIGKILL) as it is about to rename its temp file.
    const killed = await new Promise<{ signal: NodeJS.Signals | null }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--require', KILL_BEFORE_RENAME, CLI, 'config', 'set', 'environment', 'staging'],
        {
          env,
          stdio: 'ignore',
        },
      );
      child.on('error', reject);
      child.on('close', (_code, signal) => resolve({ signal }));
    });
    expect(killed.signal).toBe('SIGKILL');
    const left = readdirSync(dir).filter((n) => n.startsWith('config.json.tmp-'));
    expect(left, 'the kill left its temp file, as kill -9 does').toHaveLength(1);
    expect(mode(join(dir, left[0]!))).toBe(0o600);

    const r = await runMain(['config', 'set', 'environment', 'sandbox'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).filter((n) => n.startsWith('config.json.tmp-'))).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toMatchObject({ environment: 'sandbox' });
  });

  it('only temp files of conf’s naming that this user owns are removed, beside a linked file’s target too', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const target = join(elsewhere, 'petstore.json');
    writeFileSync(target, '{}', { mode: 0o600 });
    symlinkSync(target, join(dir, 'config.json'));
    const ours = [join(dir, 'config.json.tmp-1764245678a1b2c3'), join(elsewhere, 'petstore.json.tmp-1764245678d4e5f6')];
    const kept = [join(dir, 'config.json.tmp-mine'), join(dir, 'config.json.tmp-1764245678a1b2c3.bak')];
    for (const path of [...ours, ...kept]) writeFileSync(path, '{"auth":{}}', { mode: 0o600 });
    if (asRoot) {
      const theirs = join(dir, 'config.json.tmp-1764245678ffffff');
      writeFileSync(theirs, '{}', { mode: 0o600 });
      chownSync(theirs, OTHER.uid, OTHER.gid);
      kept.push(theirs);
    }
    const r = await runMain(['config', 'set', 'environment', 'staging'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    for (const path of ours) expect(existsSync(path), path).toBe(false);
    for (const path of kept) expect(existsSync(path), path).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ environment: 'staging' });
  });
});

describe.skipIf(!asRoot)('other users (root plays them)', () => {
  it("sudo -E: root with a user's HOME refuses the user's config directory, with the fix, and changes nothing", async () => {
    const home = tempDir();
    const { dir, marker, text } = configWithKeyCommand();
    mkdirSync(join(home, '.config'), { mode: 0o755 });
    execFileSync('mv', [dir, join(home, '.config', 'petstore')]);
    const userDir = join(home, '.config', 'petstore');
    execFileSync('chown', ['-R', `${OTHER.uid}:${OTHER.gid}`, home]);
    const env = { HOME: home };
    for (const args of [
      ['pets', 'list'],
      ['config', 'set', 'environment', 'staging'],
      ['--env', 'sandbox', 'pets', 'list'],
    ]) {
      const r = await runMain(args, { env });
      expectRefused(r, userDir, `is owned by uid ${OTHER.uid}, not by you (uid 0) or root`);
      expect(unwrapped(r.stderr)).toContain("Running as root with another user's HOME (sudo -E)?");
    }
    expect(existsSync(marker), 'the key command ran').toBe(false);
    expect(readFileSync(join(userDir, 'config.json'), 'utf8')).toBe(text);
    expect(readdirSync(userDir)).toEqual(['config.json']);
    expect(statSync(userDir).uid).toBe(OTHER.uid);
    expect(mode(userDir)).toBe(0o700);
  });

  it("another user's config directory is refused for a user who is not root (no sudo advice)", async () => {
    const dir = readableConfig('theirs');
    execFileSync('chown', ['-R', `${OTHER.uid}:${OTHER.gid}`, dir]);
    const r = await runCli(['config', 'get', 'environment'], { env: { PETSTORE_CONFIG_DIR: dir }, as: THIRD });
    expectRefused(r, dir, `is owned by uid ${OTHER.uid}, not by you (uid ${THIRD.uid}) or root`);
    expect(r.stderr).not.toContain('sudo');
  });

  it("root's config directory and file pass for any user", async () => {
    const dir = readableConfig('roots');
    const r = await runCli(['config', 'get', 'environment'], { env: { PETSTORE_CONFIG_DIR: dir }, as: THIRD });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('staging\n');
  });
});

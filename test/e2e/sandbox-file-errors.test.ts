/**
 * File-system problems on the sandbox's paths are configuration errors: exit 2 with a
 * message naming the path and the problem, for `--env sandbox`, `sandbox serve` and
 * `sandbox reset` alike; never "This looks like a bug", never an HTTP 500 reaching the
 * user. Run in-process (runMain) against real files; the full disk needs a process of its
 * own (a private mount namespace with a small tmpfs, root only).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, unwrapped } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const undo: (() => void)[] = [];
afterAll(() => {
  for (const fn of undo.splice(0)) fn();
  removeTempDirs();
});

/** The commands that touch the sandbox data, each with a bound so `serve` cannot hang the test. */
const COMMANDS: [string, string[]][] = [
  ['--env sandbox pets list', ['--env', 'sandbox', 'pets', 'list']],
  ['--env sandbox pets create', ['--env', 'sandbox', 'pets', 'create', '--name', 'X', '--category-id', '1']],
  ['sandbox serve', ['sandbox', 'serve']],
  ['sandbox reset', ['sandbox', 'reset']],
];

function run(dir: string, args: string[]) {
  return runMain(args, { env: { PETSTORE_CONFIG_DIR: dir }, signal: AbortSignal.timeout(15_000) });
}

/** The failure every case must look like: exit 2, the path and the problem named, nothing else. */
function expectConfigError(r: { code: number | null; stdout: string; stderr: string }, path: string, problem: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(unwrapped(r.stderr)).toContain(path);
  expect(unwrapped(r.stderr)).toMatch(problem);
  expect(r.stderr).not.toMatch(/looks like a bug|HTTP 500|internal_error|\n\s+at /);
}

/**
 * Makes `dir` read-only for this process: `chattr +i` as root (root ignores permission
 * bits), mode 0555 otherwise. Returns false where that does not stop a write here.
 */
function makeReadOnly(dir: string): boolean {
  try {
    if (process.getuid?.() === 0) {
      execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
      undo.push(() => execFileSync('chattr', ['-i', dir], { stdio: 'ignore' }));
    } else {
      chmodSync(dir, 0o555);
      undo.push(() => chmodSync(dir, 0o700));
    }
  } catch {
    return false; // No chattr, or a file system without the attribute.
  }
  try {
    writeFileSync(join(dir, 'probe'), '');
    return false;
  } catch {
    return true;
  }
}

describe.concurrent('the data file is a directory', () => {
  it.each(COMMANDS)('%s → exit 2 naming sandbox.json', async (_name, args) => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.json');
    mkdirSync(file);
    expectConfigError(await run(dir, args), file, /it is a directory/);
  });
});

describe.concurrent('the config directory is a file', () => {
  it.each(COMMANDS)('%s → exit 2 naming the path', async (_name, args) => {
    const notDir = join(tempDir(), 'config');
    writeFileSync(notDir, 'a file, not a directory\n');
    expectConfigError(await run(notDir, args), notDir, /not a directory/);
    expect(readFileSync(notDir, 'utf8')).toBe('a file, not a directory\n');
  });
});

describe('a read-only config directory', () => {
  const seeded = tempDir();
  const empty = tempDir();
  let readOnly = false;
  beforeAll(async () => {
    expect((await run(seeded, ['--env', 'sandbox', 'pets', 'list'])).code).toBe(0);
    readOnly = makeReadOnly(seeded) && makeReadOnly(empty);
  });

  it('reads still work from an existing store', async (ctx) => {
    if (!readOnly) ctx.skip('cannot make a directory read-only here');
    const r = await run(seeded, ['--env', 'sandbox', 'pets', 'list', '--limit', '1']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('1\tRex\t1\tavailable\n');
    expect(r.code).toBe(0);
  });

  it.for(COMMANDS.slice(1))('%s (store present) → exit 2 naming the lock', async ([, args], ctx) => {
    if (!readOnly) ctx.skip('cannot make a directory read-only here');
    expectConfigError(await run(seeded, args), join(seeded, 'sandbox.json.lock'), /permission denied/);
  });

  it.for(COMMANDS)('%s (no store yet) → exit 2 naming the path', async ([, args], ctx) => {
    if (!readOnly) ctx.skip('cannot make a directory read-only here');
    expectConfigError(await run(empty, args), join(empty, 'sandbox.json'), /permission denied/);
  });
});

/** Whether this process may make a private mount namespace with a tmpfs (root, CAP_SYS_ADMIN). */
const CAN_MOUNT =
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=8k tmpfs /mnt'], {
    stdio: 'ignore',
  }).status === 0;

describe('a full disk', () => {
  it.skipIf(!CAN_MOUNT)('a create whose journal append finds no space → exit 2 naming the journal; data intact', () => {
    const dir = tempDir();
    // In a private mount namespace: a 64 KiB tmpfs as the config dir. A first pet whose
    // line fills the journal to exactly 4096 bytes (one tmpfs page), then a file that
    // takes the rest, so the next append needs a page the disk does not have.
    const script = `
      set -e
      mount -t tmpfs -o size=64k,mode=0700 tmpfs "$1"
      export PETSTORE_CONFIG_DIR="$1"
      node "$2" --env sandbox pets create --name "$3" --category-id 1 > /dev/null
      echo "journal $(wc -c < "$1/sandbox.json.journal")"
      dd if=/dev/zero of="$1/fill" bs=4096 2>/dev/null || true
      set +e
      node "$2" --env sandbox pets create --name Full --category-id 1
      echo "exit $?"
      node "$2" --env sandbox pets list -o ndjson | wc -l | sed 's/^/count /'
      tail -c 1 "$1/sandbox.json.journal" | od -An -c | tr -d ' ' | sed 's/^/last /'
    `;
    // The line carries the create's Idempotency-Key (a UUID), whether it sent a status (`-`)
    // and when (13 digits of epoch ms), as docs/sandbox.md says.
    const keyed = `,"idempotency":{"key":"${'0'.repeat(36)}","fingerprint":"-","at":${'0'.repeat(13)}}`;
    const name = 'x'.repeat(
      4096 - '{"generation":1}\n'.length - `{"id":10,"name":"","categoryId":1,"status":"available"${keyed}}\n`.length,
    );
    const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', dir, CLI, name], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: dir },
      timeout: 60_000,
    });
    expect(r.stdout).toContain('journal 4096\n');
    expect(r.stdout).toContain('exit 2\n');
    expect(r.stderr).toContain(`${dir}/sandbox.json.journal`);
    expect(r.stderr).toContain('no space left on the device');
    expect(r.stderr).not.toMatch(/looks like a bug|HTTP 500|internal_error/);
    // The failed create added nothing, and the journal still ends with a whole line.
    expect(r.stdout).toContain('count 11\n');
    expect(r.stdout).toContain('last \\n\n');
  });
});

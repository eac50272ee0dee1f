/**
 * A bulk create's records of its runs (src/commands/pets/create/run-record.ts) and the
 * state folder they live in (src/fs/state-folder.ts), against real processes (the runs killed
 * with -9 are test/e2e/bulk-exactly-once.test.ts's):
 *
 * - What petstore trusts (cli-contract.md "What petstore trusts"): a state folder of
 *   another user's, one others may write, or a link, is refused (exit 2) before anything is
 *   sent; a record planted there by another user never makes petstore delete the user's
 *   input; a link or a FIFO in a record's place is refused, never followed nor waited on.
 *   Other users are played as root (files chowned to them); those tests are skipped with
 *   the reason printed elsewhere.
 *
 * Nothing here waits for a fixed time: each step waits for the event it needs (a lock
 * marked by a waiter, a process's exit), with generous limits for a hang only.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyOf, pathKeyOf, type RunTarget } from '../../src/commands/pets/create/run-record.js';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { OTHER, otherUsersUnavailable } from '../helpers/other-user.js';
import { runCli, unwrapped, type CliResult } from '../helpers/run-cli.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { tempDir } from '../helpers/temp-config.js';
import { type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_bulkstate_0123456789';
const { start } = fileServers();

/** NDJSON text of `n` records named `<prefix>-1`..`<prefix>-n`. */
function records(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `{"name":"${prefix}-${i + 1}","categoryId":${i + 1}}\n`).join('');
}

/** A server that creates every pet it is sent. */
function petServer(): Promise<TestServer> {
  let next = 1000;
  return start((req) => ({ status: 201, body: { id: next++, ...(JSON.parse(req.body) as object) } }));
}

/**
 * A victim's bulk create setup: an input of 3 records in its own folder, and the
 * environment of a run against `srv` keeping its state in `state`.
 */
function victim(srv: TestServer, state: string): { dir: string; input: string; env: Record<string, string> } {
  const dir = tempDir();
  const input = join(dir, 'pets.ndjson');
  writeFileSync(input, records('mine', 3));
  return {
    dir,
    input,
    env: remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_STATE_DIR: state }),
  };
}

/**
 * A pet server, a fresh state folder (mode 0700, then as `prepare` leaves it) and a victim's
 * setup against them.
 */
async function inStateFolder(prepare?: (state: string) => void) {
  const srv = await petServer();
  const state = join(tempDir(), 'state');
  mkdirSync(state, { mode: 0o700 });
  prepare?.(state);
  return { srv, state, ...victim(srv, state) };
}

/** Where the runs of `victim` send: the target its records are named by. */
const targetOf = (srv: TestServer): RunTarget => ({ environment: 'production', where: srv.baseUrl });

/** The record file name of `input` sent to `srv`. */
function recordName(srv: TestServer, input: string): string {
  return `${keyOf(targetOf(srv), createHash('sha256').update(readFileSync(input)).digest('hex'))}.json`;
}

/** The `.path` file name that finds a remaining file petstore wrote at `path` for `srv`. */
function pathName(srv: TestServer, path: string): string {
  return `${pathKeyOf(targetOf(srv), realpathSync(path))}.path`;
}

const create = (input: string): string[] => ['pets', 'create', '--from-file', input];

/** Expects a refusal of the state folder or a file in it: exit 2, code config, nothing sent. */
function expectRefused(r: CliResult, srv: TestServer, ...phrases: string[]): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.timedOut).toBeUndefined();
  const text = unwrapped(r.stderr);
  for (const p of phrases) expect(text).toContain(p);
  expect(srv.requests).toHaveLength(0);
}

describe('the state folder: used only when nobody else can write it', () => {
  it.each([0o777, 0o1777, 0o770])(
    'mode %o: exit 2 naming the path, the mode and the fix; nothing sent, nothing written there',
    async (mode) => {
      const { srv, state, input, env } = await inStateFolder((state) => chmodSync(state, mode));
      const r = await runCli(create(input), { env });
      const shown = mode.toString(8).padStart(4, '0');
      expectRefused(r, srv, `the state folder ${state} is writable by`, `(mode ${shown})`, `chmod go-w ${state}`);
      expect(readdirSync(state)).toEqual([]);
    },
  );

  it.skipIf(otherUsersUnavailable !== undefined)(
    "another user's: exit 2 naming the path, its owner and the fix; nothing sent",
    async () => {
      const { srv, state, input, env } = await inStateFolder((state) => chownSync(state, OTHER.uid, OTHER.gid));
      const r = await runCli(create(input), { env });
      expectRefused(r, srv, `the state folder ${state} is owned by uid ${OTHER.uid}`, 'Use a folder of your own');
    },
  );

  it('a link, even to a folder of your own: exit 2 naming it and the fix; nothing sent', async () => {
    const srv = await petServer();
    const base = tempDir();
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'state'));
    const { input, env } = victim(srv, join(base, 'state'));
    const r = await runCli(create(input), { env });
    expectRefused(
      r,
      srv,
      `${join(base, 'state')} is a symbolic link`,
      'Set PETSTORE_STATE_DIR to the folder it points to',
    );
    expect(readdirSync(join(base, 'real'))).toEqual([]);
  });

  it('a dry run does not look at it', async () => {
    const { input, env } = await inStateFolder((state) => chmodSync(state, 0o777));
    expect((await runCli([...create(input), '--dry-run'], { env })).code).toBe(0);
  });
});

describe("a record planted by another user never deletes the user's input", () => {
  /**
   * Plants in `state` what says that `input` is a remaining file petstore wrote and sent
   * in full but for its edit: a `.path` file finding a record whose file is `input` (its
   * device and inode, another content), as another user could write it into a folder they
   * may write.
   */
  function plant(state: string, srv: TestServer, input: string, owner?: { uid: number; gid: number }): void {
    const st = statSync(input);
    const key = 'ab'.repeat(20);
    const written = { path: realpathSync(input), size: st.size, sha256: 'cd'.repeat(32), dev: st.dev, ino: st.ino };
    const record = {
      version: 1,
      state: 'unsent',
      pid: 1,
      environment: 'production',
      input: written.path,
      sha256: written.sha256,
      records: 3,
      created: 0,
      createdRanges: [],
      unknownLines: [],
      remainingRanges: [],
      remainingFile: null,
      written,
      from: null,
      updatedAt: new Date().toISOString(),
    };
    const files = [join(state, `${key}.json`), join(state, pathName(srv, input))];
    writeFileSync(files[0]!, JSON.stringify(record), { mode: 0o600 });
    writeFileSync(files[1]!, key, { mode: 0o600 });
    if (owner !== undefined) for (const f of files) chownSync(f, owner.uid, owner.gid);
  }

  it.skipIf(otherUsersUnavailable !== undefined)(
    "in the user's own folder, files of another user's: exit 2 naming the file; nothing sent, the input kept",
    async () => {
      const { srv, state, input, env } = await inStateFolder();
      plant(state, srv, input, OTHER);
      const r = await runCli(create(input), { env });
      expectRefused(r, srv, `in petstore's state folder, is owned by uid ${OTHER.uid}`);
      expect(readFileSync(input, 'utf8')).toBe(records('mine', 3));
    },
  );

  it.skipIf(otherUsersUnavailable !== undefined)(
    'in a folder every user may write (mode 1777), files of another user: exit 2; nothing sent, the input kept',
    async () => {
      const srv = await petServer();
      const state = join(tempDir(), 'shared');
      mkdirSync(state);
      chmodSync(state, 0o1777);
      const { input, env } = victim(srv, state);
      plant(state, srv, input, OTHER);
      const r = await runCli(create(input), { env });
      expectRefused(r, srv, `the state folder ${state} is writable by other users (mode 1777)`);
      expect(readFileSync(input, 'utf8')).toBe(records('mine', 3));
    },
  );

  it("even one the rule lets through (the user's own): the input, not proven to be the file petstore wrote, is kept, and the note says why", async () => {
    const { srv, state, input, env } = await inStateFolder();
    plant(state, srv, input);
    const r = await runCli(create(input), { env });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests).toHaveLength(3);
    expect(readFileSync(input, 'utf8')).toBe(records('mine', 3));
    expect(unwrapped(r.stderr)).toContain(
      `kept ${realpathSync(input)}: every record of it was created, but it was changed since petstore wrote it`,
    );
  });
});

describe('a link or a FIFO in the place of a file petstore reads there', () => {
  it("a link at the input's record: exit 2 naming it; nothing sent, the link's target untouched", async () => {
    const { srv, state, dir, input, env } = await inStateFolder();
    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'keep me\n');
    symlinkSync(precious, join(state, recordName(srv, input)));
    const r = await runCli(create(input), { env });
    expectRefused(r, srv, `${join(state, recordName(srv, input))}, in petstore's state folder, is a symbolic link`);
    expect(readFileSync(precious, 'utf8')).toBe('keep me\n');
  });

  it.each(['record', 'path'] as const)(
    "a FIFO at the input's %s file: exit 2 at once, naming it; nothing sent",
    async (which) => {
      const { srv, state, input, env } = await inStateFolder();
      const fifo = join(state, which === 'record' ? recordName(srv, input) : pathName(srv, input));
      execFileSync('mkfifo', [fifo]);
      const r = await runCli(create(input), { env });
      expectRefused(r, srv, `${fifo}, in petstore's state folder, is not a regular file`, `rm ${fifo}`);
    },
  );

  it('a FIFO there and a SIGTERM: the run ends, 143 (or its refusal, 2, when that came first); nothing sent', async () => {
    const { srv, state, input, env } = await inStateFolder();
    execFileSync('mkfifo', [join(state, recordName(srv, input))]);
    const run = spawnCli(create(input), { env });
    await run.opened(realpathSync(input)).catch(() => undefined);
    run.child.kill('SIGTERM');
    const { code, killed } = await run.exited;
    expect(killed).toBe(false);
    expect([143, 2]).toContain(code);
    expect(srv.requests).toHaveLength(0);
  });
});

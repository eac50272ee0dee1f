/**
 * Other local users, for the tests of what petstore trusts (src/fs/trust.ts): uids with no
 * account, played with util-linux's `setpriv --reuid/--regid --clear-groups`, which only
 * root may do. Where that is impossible the tests that need it are skipped with the reason
 * printed (`otherUsersUnavailable`).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** A user and its primary group, as numbers. */
export interface LocalUser {
  uid: number;
  gid: number;
}

/** Another local user (no account needed). */
export const OTHER: LocalUser = { uid: 1001, gid: 1001 };
/** A third local user, for the victim when root is the attacker's target too. */
export const THIRD: LocalUser = { uid: 1002, gid: 1002 };

function unavailable(): string | undefined {
  if (process.geteuid?.() !== 0) return 'playing other users needs root (setpriv --reuid)';
  try {
    execFileSync('setpriv', ['--reuid', String(OTHER.uid), '--regid', String(OTHER.gid), '--clear-groups', 'true']);
  } catch (err) {
    return `setpriv cannot switch users here: ${(err as Error).message}`;
  }
  return undefined;
}

/** Why tests that play other users cannot run on this machine, or `undefined` when they can. */
export const otherUsersUnavailable: string | undefined = unavailable();
if (otherUsersUnavailable !== undefined) {
  console.warn(`skipping the tests that play other local users: ${otherUsersUnavailable}`);
}

/** `argv` run as `user`: the `setpriv` prefix. */
export function asUser(user: LocalUser, argv: readonly string[]): [string, ...string[]] {
  return ['setpriv', '--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', ...argv];
}

const shared = new Map<string, readonly [string, ...string[]]>();

/**
 * The command line of a copy of the CLI (`cliArgv`: `[node, bin/petstore.js]` or
 * `[executable]`) that every user can read and run: the checkout may
 * sit in a folder only its owner can enter (a CI clone under /root). The shim with `dist/`
 * and `package.json` is copied to a 0755 temp folder, `node_modules` linked beside them;
 * the executable is copied alone.
 */
export function sharedCopyOf(cliArgv: readonly [string, ...string[]]): readonly [string, ...string[]] {
  const known = shared.get(cliArgv.join('\0'));
  if (known !== undefined) return known;
  const [first, shim] = cliArgv;
  const dir = mkdtempSync(join(tmpdir(), 'petstore-shared-cli-'));
  chmodSync(dir, 0o755);
  let copy: [string, ...string[]];
  if (shim === undefined) {
    const exe = join(dir, basename(first));
    copyFileSync(first, exe);
    chmodSync(exe, 0o755);
    copy = [exe];
  } else {
    const root = dirname(dirname(shim));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(dir, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    execFileSync('chmod', ['-R', 'a+rX', dir]);
    copy = [first, join(dir, 'bin', 'petstore.js')];
  }
  shared.set(cliArgv.join('\0'), copy);
  return copy;
}

/**
 * Small and read-only file systems for tests of full disks and unwritable folders: a bash
 * script run in a private mount namespace (`unshare --user --map-root-user --mount`) where
 * the given folders are tmpfs mounts of a given size, or read-only. Nothing outside the
 * namespace sees the mounts (they vanish with the script), so the script itself looks at
 * what was left in them. Works without root wherever user namespaces are allowed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { shell, type ShellResult } from './shell.js';

/** A folder to mount a fresh tmpfs on. */
export interface SmallDisk {
  /** An existing folder; the mount hides what it holds. */
  path: string;
  /** Size in KiB. */
  kib: number;
  /** Mount it read-only (writes fail with EROFS). */
  readOnly?: boolean;
}

let usable: boolean | undefined;

/** Whether this machine lets a test mount a tmpfs in a private namespace. */
export function canMountSmallDisks(): boolean {
  usable ??= (() => {
    try {
      execFileSync(
        'unshare',
        ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs /mnt'],
        {
          stdio: 'ignore',
        },
      );
      return true;
    } catch {
      return false;
    }
  })();
  return usable;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `script` with bash where each of `disks` is a tmpfs of its size (read-only when
 * asked). The environment is PATH and LANG plus `env`, as `shell` gives it.
 */
export function onSmallDisks(
  disks: SmallDisk[],
  script: string,
  env: Record<string, string>,
  timeoutMs?: number,
): Promise<ShellResult> {
  const mounts = disks
    .map((d) => `mount -t tmpfs -o size=${d.kib}k${d.readOnly === true ? ',ro' : ''} tmpfs ${quote(d.path)}`)
    .join(' && ');
  const inner = `${mounts} || exit 99\n${script}`;
  return shell(
    `exec unshare --user --map-root-user --mount bash --norc --noprofile -c ${quote(inner)}`,
    env,
    timeoutMs,
  );
}

/**
 * Whether this process may make a private mount namespace with a tmpfs in it: root on Linux
 * (CAP_SYS_ADMIN), without a user namespace (unlike `canMountSmallDisks`).
 */
export function canMountPrivately(): boolean {
  return (
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=8k tmpfs /mnt'], {
      stdio: 'ignore',
    }).status === 0
  );
}

// The package.json that goes into the tarball, and the way the clone's own is put back.
//
// npm warns at install time about a package from a tarball, a folder or git that declares
// `prepare`, `preinstall`, `install` or `postinstall` ("install scripts not yet covered by
// allowScripts"), and a user would be right to ask why a bundled CLI needs one. The clone
// needs `prepare` (it builds dist/ on `npm install`); the package needs none of its
// scripts (what they run is not shipped). So `prepack` swaps package.json for one without
// `scripts`, `devDependencies` and `overrides` (what only a clone uses), keeping the
// original beside it, and `postpack` puts the original back: the rewrite-and-restore of
// `clean-package`, written here so that an interrupted pack cannot leave the clone's
// package.json rewritten. The original is kept, byte for byte, in
// `package.json.packing-<pid of npm>`; a guard process restores it as soon as that npm
// process is gone (killed, Ctrl-C), and the next build or pack restores any backup whose
// npm is gone (a machine that went down mid-pack).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';

/** The fields of package.json that only a clone uses; none of them goes into the tarball. */
const CLONE_ONLY_FIELDS = ['scripts', 'devDependencies', 'overrides'];

const BACKUP = /^package\.json\.packing-(\d+)$/;

/** Whether process `pid` runs (a zombie, already dead but not yet reaped, does not). */
function alive(pid) {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill's answer stands
  }
}

/** The parent pid and command name of `pid` from /proc, or undefined where there is none. */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return {
      comm: stat.slice(stat.indexOf('(') + 1, close),
      ppid: Number(stat.slice(close + 2).split(' ')[1]),
    };
  } catch {
    return undefined;
  }
}

/**
 * The pid of the npm process that runs this lifecycle script: the nearest ancestor that is
 * not a shell (npm runs a script through `sh -c`). 0 when it cannot be told (no /proc, or
 * not run by npm): the backup then waits for `postpack` or the next build.
 */
function npmPid() {
  if (process.env.npm_lifecycle_event === undefined) return 0;
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const stat = procStat(pid);
    if (stat === undefined) return 0;
    if (!/^(sh|bash|dash|ash|zsh|ksh)$/.test(stat.comm)) return pid;
    pid = stat.ppid;
  }
  return 0;
}

/** Writes `text` to `file` whole or not at all (a temp file renamed over it). */
function writeWhole(file, text) {
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

/** The backups in `root`, each with the pid of the npm that made it (0: not known). */
function backups(root) {
  return readdirSync(root)
    .map((name) => ({ name, match: BACKUP.exec(name) }))
    .filter(({ match }) => match !== null)
    .map(({ name, match }) => ({ file: join(root, name), pid: Number(match[1]) }));
}

/**
 * Puts back the clone's package.json from a backup whose npm process is gone. Returns the
 * backups restored (for a note).
 */
export function restoreLeftovers(root) {
  const restored = [];
  for (const backup of backups(root)) {
    if (backup.pid !== 0 && alive(backup.pid)) continue;
    renameSync(backup.file, join(root, 'package.json'));
    restored.push(backup.file);
  }
  return restored;
}

/**
 * `prepack`: keeps the original package.json in a backup, starts the guard that restores
 * it if npm dies before `postpack`, and writes the package's package.json in its place.
 * @throws Error when another pack of this clone is under way (its backup's npm still runs).
 */
export function stripForPack(root, guardScript) {
  for (const file of restoreLeftovers(root)) console.error(`package.json restored from ${file} (a pack cut short)`);
  const busy = backups(root);
  if (busy.length > 0) throw new Error(`another npm pack of this folder is under way (npm pid ${busy[0].pid})`);
  const file = join(root, 'package.json');
  const original = readFileSync(file, 'utf8');
  const pid = npmPid();
  const backup = join(root, `package.json.packing-${pid}`);
  writeWhole(backup, original);
  if (pid !== 0) {
    spawn(process.execPath, [guardScript, 'guard', String(pid), backup], {
      cwd: root,
      detached: true,
      stdio: 'ignore',
    }).unref();
  }
  const packed = JSON.parse(original);
  for (const field of CLONE_ONLY_FIELDS) delete packed[field];
  writeWhole(file, `${JSON.stringify(packed, null, 2)}\n`);
}

/** `postpack`: puts the original package.json back (the backup of this npm, else the only one). */
export function restoreAfterPack(root) {
  const pid = npmPid();
  const all = backups(root);
  const own = all.find((b) => b.pid === pid) ?? (all.length === 1 ? all[0] : undefined);
  if (own !== undefined) renameSync(own.file, join(root, 'package.json'));
}

/**
 * The guard: waits for npm process `pid` to end, then restores `backup` if `postpack` has
 * not. Polls, since Node can wait for no process but its own children; a quarter second
 * is nothing beside a pack.
 */
export function guard(root, pid, backup) {
  const timer = setInterval(() => {
    if (!existsSync(backup)) return clearInterval(timer);
    if (alive(pid)) return;
    clearInterval(timer);
    try {
      renameSync(backup, join(root, 'package.json'));
    } catch {
      // postpack or a build got there first
    }
  }, 250);
}

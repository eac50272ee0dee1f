/**
 * Starts the built CLI as a child process the test can steer while it runs: send it a
 * signal, close its stdout after some lines (as `| head -N` does), keep its stdin open.
 * For tests where the process is the point; `runCli` is simpler when nothing happens mid-run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { CLI_ARGV, RUN_TIMEOUT_MS, baseEnv, expectNoSecret, folderOrNone } from './run-cli.js';

/** Options of a steered run. */
export interface SpawnOptions {
  /** Extra environment on top of PATH and LANG. */
  env: Record<string, string>;
  /** Written to stdin, which is then closed (unless `keepStdinOpen`). */
  input?: string;
  /** Leave stdin open and unwritten (a pipe whose writer never ends, like `sleep 30 |`). */
  keepStdinOpen?: boolean;
  /** Close the read end of stdout after this many lines, as `| head -N` does. */
  closeStdoutAfterLines?: number;
  /** Stop reading stdout after this many lines, leaving it open (a reader that hangs); `child.stdout.resume()` reads on. */
  stallStdoutAfterLines?: number;
  /** Values that must never appear in the output. */
  secrets?: string[];
  /** SIGKILL after this many ms (default 60 s, as `runCli`: only a hang reaches it); `killed` is then true. */
  timeoutMs?: number;
}

/** A running CLI. */
export interface Steered {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
  /**
   * Resolves once `cond` holds (checked every 10 ms); rejects after `ms` (default 30 s,
   * `UNTIL_MS`: a limit for a hang, not a guess at how long the event takes).
   */
  until(cond: () => boolean, ms?: number): Promise<void>;
  /**
   * Resolves once the process holds `path` open (Linux: /proc/PID/fd). petstore opens its
   * input only after installing its signal handlers, so a signal sent then reaches them.
   */
  opened(path: string): Promise<void>;
}

/** How long `until` (and `opened`) waits by default before giving up. */
const UNTIL_MS = 30_000;

/** Whether process `pid` has `path` open. */
function holdsOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Starts `petstore ...args` under the test's control. */
export function spawnCli(args: string[], opts: SpawnOptions): Steered {
  const [command, ...pre] = CLI_ARGV;
  const child = spawn(command, [...pre, ...args], {
    env: { ...baseEnv(), HOME: opts.env.PETSTORE_CONFIG_DIR ?? '/nonexistent', ...opts.env },
    // Files a run leaves where it stands (a remaining file of stdin) go to the test's folder.
    cwd: folderOrNone(opts.env.PETSTORE_CONFIG_DIR),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let lines = 0;
  let stalled = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    lines += d.split('\n').length - 1;
    if (opts.closeStdoutAfterLines !== undefined && lines >= opts.closeStdoutAfterLines) child.stdout.destroy();
    if (!stalled && opts.stallStdoutAfterLines !== undefined && lines >= opts.stallStdoutAfterLines) {
      stalled = true;
      child.stdout.pause();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  if (opts.input !== undefined) child.stdin.write(opts.input);
  if (opts.keepStdinOpen !== true) child.stdin.end();
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? RUN_TIMEOUT_MS);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      expectNoSecret(args, opts.secrets ?? [], stdout, stderr);
      child.stdin.destroy();
      resolve({ code, signal, killed });
    });
  });
  const until = async (cond: () => boolean, ms = UNTIL_MS): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; stderr so far: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const pid = (): number => child.pid ?? -1;
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    until,
    opened: (path) => until(() => holdsOpen(pid(), path)),
  };
}

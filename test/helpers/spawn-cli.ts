/**
 * Starts the built CLI as a child process the test can steer while it runs: send it a
 * signal, close its stdout after some lines (as `| head -N` does), keep its stdin open.
 * For tests where the process is the point; `runCli` is simpler when nothing happens mid-run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { CLI, baseEnv } from './run-cli.js';

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
  /** Values that must never appear in the output. */
  secrets?: string[];
  /** SIGKILL after this many ms (default 20 s); `killed` is then true. */
  timeoutMs?: number;
}

/** A running CLI. */
export interface Steered {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
  /** Resolves once `cond` holds (checked every 10 ms); rejects after `ms`. */
  until(cond: () => boolean, ms?: number): Promise<void>;
  /**
   * Resolves once the process has installed its own SIGINT and SIGTERM handlers (Linux:
   * `SigCgt` in /proc/PID/status), so a signal sent then reaches petstore's handling, not
   * Node's default of dying by it.
   */
  handlesSignals(): Promise<void>;
}

/** Whether process `pid` catches SIGINT (2) and SIGTERM (15), from /proc/PID/status. */
function catchesStopSignals(pid: number): boolean {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (mask === undefined) return false;
    const bits = BigInt(`0x${mask}`);
    return (bits & (1n << 1n)) !== 0n && (bits & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}

/** Starts `petstore ...args` under the test's control. */
export function spawnCli(args: string[], opts: SpawnOptions): Steered {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...baseEnv(), HOME: opts.env.PETSTORE_CONFIG_DIR ?? '/nonexistent', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let lines = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    lines += d.split('\n').length - 1;
    if (opts.closeStdoutAfterLines !== undefined && lines >= opts.closeStdoutAfterLines) child.stdout.destroy();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  if (opts.input !== undefined) child.stdin.write(opts.input);
  if (opts.keepStdinOpen !== true) child.stdin.end();
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 20_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      for (const s of opts.secrets ?? []) {
        expect(stdout, 'a secret reached stdout').not.toContain(s);
        expect(stderr, 'a secret reached stderr').not.toContain(s);
      }
      child.stdin.destroy();
      resolve({ code, signal, killed });
    });
  });
  const until = async (cond: () => boolean, ms = 15_000): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; stderr so far: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const handlesSignals = (): Promise<void> => until(() => child.pid !== undefined && catchesStopSignals(child.pid));
  return { child, stdout: () => stdout, stderr: () => stderr, exited, until, handlesSignals };
}

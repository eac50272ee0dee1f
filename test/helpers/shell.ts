/** Runs a bash script (no rc files) in the background and collects its output. */
import { spawn } from 'node:child_process';
import { RUN_TIMEOUT_MS, baseEnv, folderOrNone } from './run-cli.js';

/** Output and exit code of a script. */
export interface ShellResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Runs `script` with bash and the given environment (on top of PATH and LANG), in
 * `PETSTORE_CONFIG_DIR` when it is given; killed after `timeoutMs` (default 60 s, as `runCli`:
 * only a hang reaches it on a loaded machine).
 * Asynchronous, so servers living in the test process keep answering while it runs.
 * `HOME` defaults to the config dir, as in runCli: without one a process finds the real
 * user's home, and a bulk run's record would land in its state folder, where a later
 * test on a reused port reads it as an earlier run of the same input.
 */
export function shell(script: string, env: Record<string, string>, timeoutMs = RUN_TIMEOUT_MS): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', script], {
      env: { ...baseEnv(), HOME: env.PETSTORE_CONFIG_DIR ?? '/nonexistent', ...env },
      // Files a run leaves where it stands (a remaining file of stdin) go to the test's folder.
      cwd: folderOrNone(env.PETSTORE_CONFIG_DIR),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ stdout, stderr, code });
    });
  });
}

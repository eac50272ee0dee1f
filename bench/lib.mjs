// Small pieces the bench scripts share.
import { spawn } from 'node:child_process';

/** The median of a list of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs argv as a whole process; resolves { ms, code, out, err, peakKiB } with its wall time.
 * With `rssProbe`, file descriptor 3 is open for bench/rss-probe.cjs (preloaded by the
 * caller with `--require`), and `peakKiB` is what it reported. With `quiet`, stdout is
 * not kept (`out` is empty), for commands that print a lot.
 */
export function runProcess(argv, env, { rssProbe = false, quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const stdio = ['ignore', quiet ? 'ignore' : 'pipe', 'pipe', ...(rssProbe ? ['pipe'] : [])];
    const child = spawn(argv[0], argv.slice(1), { env, stdio });
    let out = '';
    let err = '';
    let probe = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    if (rssProbe) child.stdio[3].on('data', (d) => (probe += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code,
        out,
        err,
        peakKiB: Number(probe.trim()) || undefined,
      }),
    );
  });
}

/**
 * A separate process that takes the sandbox data's lock with petstore's own lock code
 * (src/file-lock.ts, bundled once per test process with esbuild) and holds it until it
 * is killed or its stdin closes: for tests of a busy store and of a holder killed with -9.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-config.js';

const LOCK_TS = fileURLToPath(new URL('../../src/file-lock.ts', import.meta.url));

let bundled: Promise<string> | undefined;

/** Builds the holder script (CommonJS, everything bundled) and returns its path. */
function holderScript(): Promise<string> {
  bundled ??= (async () => {
    const out = join(tempDir('petstore-lock-holder-'), 'holder.cjs');
    await build({
      stdin: {
        contents: `
          import { FileLock } from ${JSON.stringify(LOCK_TS)};
          const lock = new FileLock(process.argv[2]);
          lock.run({ deadline: Date.now() + 30000 }, () => {
            process.stdout.write('locked ' + process.pid + '\\n');
            return new Promise((resolve) => process.stdin.on('end', resolve).resume());
          }).then(() => lock.close());
        `,
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: out,
      logLevel: 'error',
    });
    return out;
  })();
  return bundled;
}

/** A running holder. */
export interface LockHolder {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Resolves when the process has exited (and been reaped). */
  exited: Promise<void>;
}

/**
 * Starts a process that takes the lock of the data file `file` and resolves once it holds
 * it. Close its stdin to make it release the lock and exit; kill it to leave the lock behind.
 */
export async function holdLock(file: string): Promise<LockHolder> {
  const script = await holderScript();
  const child = spawn(process.execPath, [script, file], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the lock holder did not lock: ${err}`)), 15_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => reject(new Error(`the lock holder exited: ${err}`)));
  });
  return { child, pid: child.pid ?? 0, exited };
}

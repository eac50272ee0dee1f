/**
 * A separate process that takes a file's lock with petstore's own lock code
 * (src/fs/file-lock.ts, bundled once per test process with esbuild): for tests of a busy store
 * and of a holder killed with -9 at any moment of its life.
 *
 * Modes:
 * - `hold`: takes the lock and holds it until it is killed or its stdin closes.
 * - `exit`: takes the lock and exits at once while holding it, so its exit handler lets
 *   go of the lock (owner file, then the directory): a kill that races with it lands
 *   anywhere in that.
 * - `cycle`: takes and lets go of the lock in a loop (each turn makes and removes the lock
 *   directory and its owner file), until it is killed or its stdin closes.
 * - `log` (`takeAndLog`): takes the lock once, writes `enter PID` to a log file, holds the
 *   lock a moment, writes `leave PID`, lets go and exits: many of them at once show whether
 *   two ever held the lock together.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-config.js';

const LOCK_TS = fileURLToPath(new URL('../../src/fs/file-lock.ts', import.meta.url));

let bundled: Promise<string> | undefined;

/** Builds the holder script (CommonJS, everything bundled) and returns its path. */
function holderScript(): Promise<string> {
  bundled ??= (async () => {
    const out = join(tempDir('petstore-lock-holder-'), 'holder.cjs');
    await build({
      stdin: {
        contents: `
          import { FileLock } from ${JSON.stringify(LOCK_TS)};
          import { closeSync, constants, openSync, writeSync } from 'node:fs';
          const [file, mode, log] = process.argv.slice(2);
          const lock = new FileLock(file);
          const wait = () => ({ deadline: Date.now() + 30000 });
          let stop = false;
          process.stdin.on('end', () => (stop = true)).resume();
          const note = (word) => {
            // One write to a file opened with O_APPEND: the lines of several processes never mix.
            const fd = openSync(log, constants.O_WRONLY | constants.O_APPEND);
            writeSync(fd, word + ' ' + process.pid + '\\n');
            closeSync(fd);
          };
          if (mode === 'log') {
            lock
              .run({ deadline: Date.now() + 120000 }, async () => {
                note('enter');
                // Held across a few turns of the event loop and a timer, as real work is.
                await new Promise((resolve) => setTimeout(resolve, 20));
                note('leave');
              })
              .then(() => lock.close())
              .then(() => process.exit(0), (err) => { console.error(String(err)); process.exit(1); });
          } else if (mode === 'cycle') {
            (async () => {
              for (let turn = 0; !stop; turn++) {
                await lock.run(wait(), async () => {});
                await lock.close();
                if (turn === 0) process.stdout.write('cycling ' + process.pid + '\\n');
                await new Promise((resolve) => setImmediate(resolve));
              }
            })();
          } else {
            lock.run(wait(), () => {
              process.stdout.write('locked ' + process.pid + '\\n');
              if (mode === 'exit') process.exit(0);
              return new Promise((resolve) => (stop ? resolve() : process.stdin.on('end', resolve)));
            }).then(() => lock.close());
          }
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

/**
 * Starts a process that takes the lock of `file` once (`log` mode, see the module comment),
 * appending `enter PID` and `leave PID` to `log` (created here if missing), with the
 * modules of `preload` loaded first (`node --require`). Resolves with its exit code and stderr.
 */
export async function takeAndLog(
  file: string,
  log: string,
  preload?: string,
): Promise<{ code: number | null; stderr: string }> {
  closeSync(openSync(log, 'a'));
  const script = await holderScript();
  const pre = preload === undefined ? [] : ['--require', preload];
  const child = spawn(process.execPath, [...pre, script, file, 'log', log], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: err }));
  });
}

/** What a holder process does with the lock (see the module comment). */
export type HolderMode = 'hold' | 'exit' | 'cycle';

/** A running holder. */
export interface LockHolder {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Resolves when the process has exited (and been reaped). */
  exited: Promise<void>;
}

/**
 * Starts a process that takes the lock of `file` (`<file>.lock`) and resolves once it
 * holds it (`cycle`: once it has taken and let go of it a first time). Close its stdin to
 * make it let go and exit; kill it to leave whatever it was doing unfinished.
 */
export async function holdLock(file: string, mode: HolderMode = 'hold'): Promise<LockHolder> {
  const script = await holderScript();
  const child = spawn(process.execPath, [script, file, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  await new Promise<void>((resolve, reject) => {
    // A limit for a holder that never locks; a loaded machine starts one late.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the lock holder did not lock: ${err}`));
    }, 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    // 'close' comes after the last of stdout: an `exit` holder may be gone before its line is read.
    child.on('close', () => reject(new Error(`the lock holder exited: ${err}`)));
  });
  return { child, pid: child.pid ?? 0, exited };
}

/**
 * The path of the owner file (`owner-<token>`, src/fs/file-lock.ts) in the lock directory
 * `lockPath`, or undefined when there is none (no lock, or an empty one: a free lock).
 */
export function ownerFile(lockPath: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(lockPath);
  } catch {
    return undefined;
  }
  const name = names.find((n) => n.startsWith('owner-'));
  return name === undefined ? undefined : join(lockPath, name);
}

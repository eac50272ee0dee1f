/** Temporary config directories for tests: real folders under the OS temp dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** Creates a fresh empty directory (mode 0700) and returns its path; removed by `removeTempDirs`. */
export function tempDir(prefix = 'petstore-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made. */
export function removeTempDirs(): void {
  // A shell in a tmux session may still be writing (history, on hang-up) as it exits: retry.
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

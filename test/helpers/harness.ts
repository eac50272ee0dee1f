/**
 * What most command tests set up the same way: the environment of a run against a server,
 * and the JSON message line a run ends with (errors and accounts are JSON off a terminal:
 * cli-contract.md "Errors and exit codes").
 */
import { afterAll, expect } from 'vitest';
import type { CliResult } from './run-cli.js';
import { removeTempDirs, tempDir } from './temp-config.js';
import { serverPool } from './test-server.js';
import { pagingServerPool } from './paging-server.js';
import { tmuxPool } from './tmux.js';

/**
 * The environment of a run against a remote server at `baseUrl` with `key`, in a fresh
 * config directory (unless `extra` names one), plus `extra`.
 */
export function remoteEnv(baseUrl: string, key: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PETSTORE_CONFIG_DIR: extra.PETSTORE_CONFIG_DIR ?? tempDir(),
    PETSTORE_BASE_URL: baseUrl,
    PETSTORE_API_KEY: key,
    ...extra,
  };
}

/** The JSON error object on the last line of stderr (`--output json`, PETSTORE_MESSAGES=json). */
export function lastJson(stderr: string): { code: string; message: string; status: number } & Record<string, unknown> {
  return JSON.parse(stderr.trim().split('\n').pop()!) as { code: string; message: string; status: number };
}

/** The error object on the last line of a run's stderr (errors are JSON off a terminal), or undefined. */
export function lastError(r: CliResult): { code?: unknown; message?: unknown } | undefined {
  try {
    return JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '') as { code?: unknown };
  } catch {
    return undefined;
  }
}

/**
 * The test servers of the calling file (`const { start } = fileServers();` at its top level):
 * closed after its tests, and the temp folders they made removed.
 */
export function fileServers(): ReturnType<typeof serverPool> {
  const pool = serverPool();
  afterAll(async () => {
    await pool.closeAll();
    removeTempDirs();
  });
  return pool;
}

/**
 * The paging servers and tmux terminals of the calling file (at its top level): the
 * terminals killed and the servers closed after its tests, and its temp folders removed.
 */
export function filePagingTerminals(): {
  paging: ReturnType<typeof pagingServerPool>;
  tmux: ReturnType<typeof tmuxPool>;
} {
  const paging = pagingServerPool();
  const tmux = tmuxPool();
  afterAll(async () => {
    tmux.killAll();
    await paging.closeAll();
    removeTempDirs();
  });
  return { paging, tmux };
}

/** What `fn` throws (undefined when it returns): for checks on the error object itself. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Checks that `stdout` is the sandbox's seed pets as `pets list` prints them, int64 values exact. */
export function expectSeedPets(stdout: string): void {
  const lines = stdout.trimEnd().split('\n');
  expect(lines[0]).toBe('1\tRex\t1\tavailable');
  expect(lines).toContain('9007199254740993\tAtlas\t9223372036854775807\tavailable');
}

/**
 * What command tests set up the same way, in one place: a run's environment against a
 * server (`remoteEnv`), the JSON message line a run ends with (`lastJson`, `lastError`:
 * errors and accounts are JSON off a terminal, cli-contract.md "Errors and exit codes"),
 * config folders, the embedded sandbox and its seed, servers that accept only some keys,
 * and the servers, paging servers and terminals of a test file, closed after its tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { specOperation } from '../fixtures/api-spec.js';
import { pagingServerPool } from './paging-server.js';
import { registerSecret, type CliResult } from './run-cli.js';
import { runMain, TEST_NOW } from './run-main.js';
import { removeTempDirs, tempDir } from './temp-config.js';
import { errorReply, serverPool, startTestServer, type Handler, type TestServer } from './test-server.js';
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
 * A config directory that does not exist yet (petstore must create it), its config.json, and
 * the environment that points a run at it.
 */
export function freshConfig(): { dir: string; file: string; env: Record<string, string> } {
  const dir = join(tempDir(), 'petstore-config');
  return { dir, file: join(dir, 'config.json'), env: { PETSTORE_CONFIG_DIR: dir } };
}

/** A config file's content, parsed. */
export const readConfig = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/** Runs `petstore --env sandbox ...args` in-process with `dir` as its config directory (its sandbox data). */
export function inSandbox(dir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runMain(['--env', 'sandbox', ...args], { env: { PETSTORE_CONFIG_DIR: dir, ...env } });
}

/** The sandbox's ten seed pets as `pets list` prints them piped (tab-separated), in id order. */
export const SEED_TSV = [
  '1\tRex\t1\tavailable',
  '2\tWhiskers\t2\tavailable',
  '3\tBubbles\t3\tpending',
  '4\tPolly\t4\tsold',
  '5\tNibbles\t5\tavailable',
  '6\tShadow\t2\tpending',
  '7\tGoldie\t3\tavailable',
  '8\tBuddy\t1\tsold',
  '9\tKiwi\t4\tavailable',
  '9007199254740993\tAtlas\t9223372036854775807\tavailable',
];

/**
 * A sandbox data directory shared, read-only, by the tests of the calling file (call at its
 * top level or in a `describe`): seeded once in `beforeAll`, so concurrent first reads do not
 * all create the data file. Read `.dir` inside the tests.
 */
export function seededSandbox(): { dir: string } {
  const shared = { dir: '' };
  beforeAll(async () => {
    shared.dir = tempDir();
    const r = await inSandbox(shared.dir, ['pets', 'list', '--limit', '1']);
    expect(r.code).toBe(0);
  });
  return shared;
}

/** The keys of the production and staging servers of `keyedServers`, and one neither accepts. */
export const KEYS = {
  production: 'prod-key-0123456789-PRODUCTION',
  staging: 'staging-key-0123456789-STAGING',
  other: 'env-key-0123456789-FROM-ENVIRONMENT',
};

/** A handler that answers 200 `[]` to the bearer `key`, 401 to anything else. */
export const acceptOnly =
  (key: string): Handler =>
  (req) =>
    req.headers.authorization === `Bearer ${key}`
      ? { status: 200, body: [] }
      : errorReply(401, 'unauthorized', 'invalid API key');

/** The production and staging servers of `keyedServers`. */
export interface KeyedServers {
  production: TestServer;
  staging: TestServer;
}

/**
 * A production and a staging server for the calling test file (call at its top level), each
 * accepting only its own key of `KEYS`: started before its tests, their records cleared and
 * handlers restored before each, closed after them with the temp dirs. Read the servers
 * inside the tests. The keys are registered as secrets: no run may print them.
 */
export function keyedServers(): KeyedServers {
  for (const k of Object.values(KEYS)) registerSecret(k);
  const servers = {} as KeyedServers;
  beforeAll(async () => {
    [servers.production, servers.staging] = await Promise.all([
      startTestServer(acceptOnly(KEYS.production)),
      startTestServer(acceptOnly(KEYS.staging)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([servers.production.close(), servers.staging.close()]);
    removeTempDirs();
  });
  beforeEach(() => {
    servers.production.requests.length = 0;
    servers.staging.requests.length = 0;
    servers.production.handle(acceptOnly(KEYS.production));
    servers.staging.handle(acceptOnly(KEYS.staging));
  });
  return servers;
}

/** A fresh config with the base URLs of both `servers` set (`config set`), nothing logged in. */
export async function configured(servers: KeyedServers): Promise<{ file: string; env: Record<string, string> }> {
  const c = freshConfig();
  for (const name of ['production', 'staging'] as const) {
    const r = await runMain(['config', 'set', `${name}.baseUrl`, servers[name].baseUrl], { env: c.env });
    expect(r.code).toBe(0);
  }
  return c;
}

/** How a deprecation warning names an operation of the spec: `listPets (GET /pets)`. */
export function operationNamed(operationId: string): string {
  const op = specOperation(operationId);
  return `${op.operationId} (${op.method} ${op.path})`;
}

/** Whole UTC days from the in-process runs' date (TEST_NOW) to `iso`, as the CLI counts them. */
export function daysUntil(iso: string): number {
  return Math.floor(Date.parse(iso) / 86_400_000) - Math.floor(Date.parse(TEST_NOW) / 86_400_000);
}

/** Creates pet `name` (category 1) in the sandbox of `dir`, expecting exit 0 and nothing on stderr; its stdout line. */
export async function sandboxCreated(dir: string, name: string): Promise<string> {
  const r = await inSandbox(dir, ['pets', 'create', '--name', name, '--category-id', '1']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

/** Every pet the sandbox of `dir` holds (`pets list --all`), one line each, expecting exit 0 and nothing on stderr. */
export async function sandboxListed(dir: string): Promise<string[]> {
  const r = await inSandbox(dir, ['pets', 'list', '--all', '--limit', '100']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trimEnd().split('\n');
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

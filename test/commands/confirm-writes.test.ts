/**
 * Writes confirmed where the user asks for it (cli-contract.md "Environments":
 * `NAME.confirmWrites`; "Global flags": `--yes`), in-process through `main()` against a
 * recording server on 127.0.0.1: the setting through `config set|get|list` and a
 * hand-written file, and the matrix off a terminal (refused without `--yes`, nothing sent;
 * sent once with it) for every write — each write operation of the declarations
 * (test/helpers/operations.ts), `pets create --from-file`, `api` with a method other than
 * GET or HEAD — and the reads (each read operation) and `--dry-run` that never ask.
 * The question itself, on a real terminal, is test/e2e/confirm-writes.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshConfig, lastJson, readConfig, remoteEnv } from '../helpers/harness.js';
import { CLI_OPERATIONS, CLI_READS, CLI_WRITES, examplePet, operationAt, successReply } from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { serverPool, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_confirm_writes_0123';
const pool = serverPool();
afterAll(async () => {
  await pool.closeAll();
  removeTempDirs();
});

/**
 * A server that creates what it is sent (id 42), and answers any other declared operation
 * as it succeeds with pet 42 (its example's name and category); anything else, `[]`.
 */
function shop(): Promise<TestServer> {
  return pool.start((req) => {
    if (req.method === 'POST') {
      return { status: 201, raw: JSON.stringify({ id: 42, ...(JSON.parse(req.body) as object) }) };
    }
    const op = operationAt(req.method, req.url);
    return op === undefined ? { status: 200, body: [] } : successReply(op, examplePet(op, 42));
  });
}

/** Each write operation, by name. */
const WRITES = CLI_WRITES.map((op) => [op.name, op] as const);

/** A config folder whose config.json holds `content` (mode 0600, as petstore writes it). */
function configWith(content: unknown): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'config.json'), typeof content === 'string' ? content : JSON.stringify(content), {
    mode: 0o600,
  });
  return dir;
}

/** Runs `args` against `server` with `dir` as the config folder. */
function run(server: TestServer, dir: string, args: string[], opts: MainOptions = {}) {
  return runMain(args, {
    ...opts,
    env: remoteEnv(server.baseUrl, KEY, {
      PETSTORE_CONFIG_DIR: dir,
      // Errors as JSON objects, to read their code and hint.
      PETSTORE_MESSAGES: 'json',
      ...(opts.env as Record<string, string>),
    }),
  });
}

/** A file of `n` NewPet records (NDJSON). */
function petsFile(n: number): string {
  const file = join(tempDir(), 'new-pets.ndjson');
  writeFileSync(file, Array.from({ length: n }, (_, i) => `{"name":"Pet${i}","categoryId":1}\n`).join(''));
  return file;
}

/** `pets create`'s run, as its declaration gives it. */
const CREATE = CLI_OPERATIONS.find((op) => op.id === 'createPet')!.argv;

describe.concurrent('the setting', () => {
  it('config set stores a JSON boolean; config get prints it, and false by default', async () => {
    const { file, env } = freshConfig();
    expect((await runMain(['config', 'get', 'production.confirmWrites'], { env })).stdout).toBe('false\n');
    const set = await runMain(['config', 'set', 'production.confirmWrites', 'true'], { env });
    expect(set.code).toBe(0);
    expect(readConfig(file)).toEqual({ production: { confirmWrites: true } });
    const got = await runMain(['config', 'get', 'production.confirmWrites', '-o', 'json'], { env });
    expect(JSON.parse(got.stdout)).toEqual({ key: 'production.confirmWrites', value: 'true', source: 'file' });
    expect((await runMain(['config', 'get', 'staging.confirmWrites'], { env })).stdout).toBe('false\n');
    await runMain(['config', 'set', 'production.confirmWrites', 'false'], { env });
    expect(readConfig(file)).toEqual({ production: { confirmWrites: false } });
  });

  it('config set refuses anything but true or false (exit 2, nothing written)', async () => {
    const { file, env } = freshConfig();
    const r = await runMain(['config', 'set', 'staging.confirmWrites', 'yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid staging\.confirmWrites "yes": must be true or false/);
    expect(() => readConfig(file)).toThrow();
  });

  it('config list shows both environments, with where the value comes from', async () => {
    const dir = configWith({ staging: { confirmWrites: true } });
    const r = await runMain(['config', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.stdout).toContain('production.confirmWrites\tfalse\tdefault\n');
    expect(r.stdout).toContain('staging.confirmWrites\ttrue\tfile\n');
  });

  it('config unset removes it: off again', async () => {
    const dir = configWith({ production: { confirmWrites: true } });
    const env = { PETSTORE_CONFIG_DIR: dir };
    expect((await runMain(['config', 'unset', 'production.confirmWrites'], { env })).code).toBe(0);
    expect((await runMain(['config', 'get', 'production.confirmWrites'], { env })).stdout).toBe('false\n');
  });

  it.each([
    ['a JSON boolean', true, 'true'],
    ['a hand-written "true"', 'true', 'true'],
    ['a hand-written "false"', 'false', 'false'],
  ])('reads %s', async (_name, value, printed) => {
    const dir = configWith({ production: { confirmWrites: value } });
    const r = await runMain(['config', 'get', 'production.confirmWrites'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.stdout).toBe(`${printed}\n`);
  });

  it('a value of another shape in the file is reported with its path (exit 2)', async () => {
    const dir = configWith({ production: { confirmWrites: 'yes' } });
    const r = await runMain(['config', 'get', 'production.confirmWrites'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/wrong shape at production\.confirmWrites/);
  });
});

describe.concurrent('off by default: nothing is asked, the write is sent', () => {
  it.each(
    WRITES.flatMap(([name, op]) =>
      (
        [
          ['no config file', undefined],
          ['confirmWrites false', { production: { confirmWrites: false } }],
          ['confirmWrites on for staging only', { staging: { confirmWrites: true } }],
        ] as const
      ).map(([what, content]) => [name, what, op, content] as const),
    ),
  )('%s: %s', async (_name, _what, op, content) => {
    const server = await shop();
    const r = await run(server, content === undefined ? tempDir() : configWith(content), op.argv);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${op.request.method} ${op.request.url}`]);
  });
});

describe.concurrent('confirmWrites off a terminal', () => {
  const on = { production: { confirmWrites: true } };

  /** Asserts the refusal: exit 2, code `not_confirmed`, the environment and host, and the server saw nothing. */
  function refused(r: Awaited<ReturnType<typeof runMain>>, server: TestServer): void {
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const error = lastJson(r.stderr);
    expect(error.code).toBe('not_confirmed');
    expect(error.message).toMatch(/^production\.confirmWrites is on, and no question can be asked here/);
    expect(error.message).toContain(`nothing was sent to production (${new URL(server.origin).host})`);
    expect(error).toMatchObject({ environment: 'production', host: new URL(server.origin).host });
    expect(server.requests).toEqual([]);
  }

  it.each(WRITES)('%s without --yes: refused, nothing sent', async (_, op) => {
    const server = await shop();
    refused(await run(server, configWith(on), op.argv), server);
  });

  it('the text form says it in words, with the hint naming --yes and the setting', async () => {
    const server = await shop();
    const r = await run(server, configWith(on), CREATE, { env: { PETSTORE_MESSAGES: 'text' } });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toBe(
      `error: production.confirmWrites is on, and no question can be asked here (not a terminal, or PETSTORE_NO_PROMPT): nothing was sent to production (${new URL(server.origin).host}) ` +
        // The command, too long for the line it stood on, is bare on a line of its own: pasteable.
        'Add --yes to send it without a question, or stop asking with petstore config set production.confirmWrites false\n',
    );
    expect(server.requests).toEqual([]);
  });

  it.each(WRITES)('%s with --yes, before or after the command words: sent once', async (_, op) => {
    const pet = examplePet(op, 42);
    for (const args of [
      ['--yes', ...op.argv],
      [...op.argv, '--yes'],
    ]) {
      const server = await shop();
      const r = await run(server, configWith(on), args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^${pet.id}\t${pet.name}\t${pet.categoryId}`));
      expect(server.requests.map((q) => [q.method, q.url])).toEqual([[op.request.method, op.request.url]]);
    }
  });

  it.each(
    WRITES.flatMap(([name, op]) =>
      (
        [
          ['stdin is a pipe', { stdout: true, stderr: true, stdin: false }, {}],
          ['stderr is a pipe', { stdout: true, stderr: false, stdin: true }, {}],
          ['PETSTORE_NO_PROMPT on a terminal', true, { PETSTORE_NO_PROMPT: '1' }],
        ] as [string, MainOptions['tty'], Record<string, string>][]
      ).map(([what, tty, extra]) => [name, what, op, tty, extra] as const),
    ),
  )('%s: no question where %s: refused', async (_name, _what, op, tty, extra) => {
    const server = await shop();
    const r = await run(server, configWith(on), op.argv, { tty, env: extra });
    refused(r, server);
  });

  it.each(WRITES)('%s: the selected environment’s setting counts: staging’s for --env staging', async (_, op) => {
    const server = await shop();
    const dir = configWith({ staging: { confirmWrites: true } });
    const r = await run(server, dir, ['--env', 'staging', ...op.argv]);
    expect(r.code).toBe(2);
    expect(lastJson(r.stderr).message).toMatch(/^staging\.confirmWrites is on/);
    expect(server.requests).toEqual([]);
    const prod = await run(server, dir, op.argv);
    expect(prod.code, prod.stderr).toBe(0);
  });

  it('a broken config file leaves it off when the URL and key come from variables (the run needs nothing else of it)', async () => {
    const server = await shop();
    // remoteEnv: PETSTORE_BASE_URL and PETSTORE_API_KEY, which need nothing else of the file.
    const broken = configWith('{ not json');
    const r = await run(server, broken, CREATE);
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('pets create --from-file: refused before the first record, nothing sent, no run recorded', async () => {
    const server = await shop();
    const dir = configWith(on);
    const file = petsFile(3);
    refused(await run(server, dir, ['pets', 'create', '--from-file', file]), server);
    // Not an earlier run that stopped partway: the same file goes with --yes, not `already_sent`.
    const again = await run(server, dir, ['pets', 'create', '--from-file', file, '--yes']);
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it('pets create --from-file --yes: every record sent, once', async () => {
    const server = await shop();
    const r = await run(server, configWith(on), ['pets', 'create', '--from-file', petsFile(3), '--yes']);
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => (JSON.parse(q.body) as { name: string }).name)).toEqual(['Pet0', 'Pet1', 'Pet2']);
  });

  it('pets create --from-file --dry-run sends nothing and never asks', async () => {
    const server = await shop();
    const r = await run(server, configWith(on), ['pets', 'create', '--from-file', petsFile(2), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(server.requests).toEqual([]);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('api %s: refused without --yes, sent once with it', async (method) => {
    const server = await shop();
    const dir = configWith(on);
    const args = ['api', method, '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'];
    refused(await run(server, dir, args), server);
    const r = await run(server, dir, [...args, '--yes']);
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => q.method)).toEqual([method]);
  });

  it.each(['GET', 'HEAD'])('api %s never asks', async (method) => {
    const server = await shop();
    const r = await run(server, configWith(on), ['api', method, '/pets']);
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => q.method)).toEqual([method]);
  });

  it.each(CLI_READS.map((op) => [op.name, op] as const))('reads never ask: %s', async (_, op) => {
    const server = await shop();
    const r = await run(server, configWith(on), op.argv);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`${op.request.method} ${op.request.url}`]);
  });

  it('the sandbox never asks', async () => {
    const dir = configWith(on);
    const r = await runMain(['--env', 'sandbox', ...CREATE], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
  });
});

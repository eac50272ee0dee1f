/**
 * Which form messages on stderr take (cli-contract.md "Errors and exit codes"): on a
 * terminal every message is text, errors included, whatever `-o` or `--jq` say; off one,
 * with `--output json|ndjson`, errors, warnings and notes are one JSON object a line
 * (`--verbose` lines stay text); `PETSTORE_MESSAGES=json|text` forces either for every
 * message. `--jq` implies `--output json`, and so these rules. And `--quiet`, which drops
 * warnings and notes but never errors. In-process (runMain) against the sandbox, whose
 * `pets get` warns that getPet is deprecated; and every declared operation failing against
 * a test server on 127.0.0.1 that answers the last error status the spec documents for it
 * (a deprecated one warns first).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { CLI_OPERATIONS, documentedErrors, type CliOperation } from '../helpers/operations.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply } from '../helpers/test-server.js';

afterAll(() => removeTempDirs());

const KEY = 'pk_test_messages_0123456789';
const { start } = fileServers();

/** Each operation, with the last error status the spec documents for it and its exit code. */
const failing = CLI_OPERATIONS.map((op) => {
  const { status, exit } = documentedErrors(op).at(-1)!;
  return [op.name, op, status, exit] as const;
});

/**
 * Runs `op` with `extra` against a server that refuses it with `status` (code
 * `refused_STATUS`); on a terminal the target's banner, text or JSON, is taken out of stderr.
 */
async function refused(op: CliOperation, status: number, extra: string[], opts: MainOptions = {}) {
  const srv = await start(() => errorReply(status, `refused_${status}`, `the store refused with ${status}`));
  const r = await runMain([...op.argv, ...extra], {
    ...opts,
    env: remoteEnv(srv.baseUrl, KEY, { NO_COLOR: '1', ...(opts.env as Record<string, string>) }),
  });
  expect(srv.requests).toHaveLength(1);
  const stderr = r.stderr
    .split(/(?<=\n)/)
    .filter((l) => !l.startsWith('env: ') && !l.startsWith('{"level":"target"'))
    .join('');
  return { ...r, stderr };
}

function sandbox(extra: Record<string, string> = {}) {
  return { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_ENV: 'sandbox', NO_COLOR: '1', ...extra };
}

/** The lines of stderr, each parsed as JSON (or `undefined` when it is not). */
function parsed(stderr: string): unknown[] {
  return stderr
    .trimEnd()
    .split('\n')
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return undefined;
      }
    });
}

describe.concurrent('messages on a terminal with --output json', () => {
  it.each([['json'], ['ndjson']])(
    '-o %s: the deprecation warning is text, wrapped at 60 columns, never mid-word',
    async (format) => {
      const r = await runMain(['pets', 'get', '1', '-o', format], {
        env: sandbox(),
        tty: { stderr: true },
        columns: 60,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^warning: `pets get` is deprecated/);
      expect(r.stderr).not.toContain('{"level"');
      for (const line of r.stderr.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(60);
      // Words are whole: the message reads the same with its line breaks taken out.
      expect(r.stderr.replace(/\n {2}/g, ' ')).toContain('replaced by `pets list --status STATUS`');
    },
  );

  it('a note is text too (more pets exist than the page held)', async () => {
    const r = await runMain(['pets', 'list', '-L', '1', '--json'], { env: sandbox(), tty: { stderr: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('More pets exist: add --all to fetch every page.\n');
  });

  it('and nothing when stderr is not a terminal: notes are for people', async () => {
    const r = await runMain(['pets', 'list', '-L', '1', '--json'], { env: sandbox(), tty: { stdout: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.each(failing)('%s: an error is text too: a person reads it', async (_, op, status, exit) => {
    const r = await refused(op, status, ['--json'], { tty: { stderr: true } });
    expect(r.code).toBe(exit);
    if (op.deprecated) expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toMatch(new RegExp(`^error: .*refused_${status}, HTTP ${status}`, 'm'));
    expect(r.stderr).not.toContain('{"');
  });

  it('a bad --jq expression is text, its caret under the expression on a line of its own', async () => {
    const r = await runMain(['pets', 'list', '--jq', '.[0'], { env: sandbox(), tty: { stderr: true } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: invalid --jq expression: syntax error/);
    expect(r.stderr).toContain('\n    .[0\n      ^\n');
    expect(r.stderr).not.toContain('\\n');
    expect(r.stderr).not.toContain('{"');
  });
});

describe.concurrent('messages when stderr is not a terminal', () => {
  it.each(failing)(
    '%s: with --output json every line is a JSON object: the warning, then the error',
    async (_, op, status, exit) => {
      const r = await refused(op, status, ['--json']);
      expect(r.code).toBe(exit);
      const lines = parsed(r.stderr);
      if (op.deprecated) expect(lines[0]).toMatchObject({ level: 'warning' });
      else expect(lines).toHaveLength(1);
      expect(lines.at(-1)).toMatchObject({ code: `refused_${status}`, status });
      expect(lines).not.toContain(undefined);
    },
  );

  it('a bad --jq expression piped is one JSON line, its line feeds escaped in the JSON', async () => {
    const r = await runMain(['pets', 'list', '--jq', '.[0'], { env: sandbox() });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const error = JSON.parse(lines[0] ?? '') as { code: string; message: string; status: number };
    expect(error).toMatchObject({ code: 'usage', status: 0 });
    expect(error.message).toContain('\n    .[0\n      ^');
  });

  it.each(failing)('%s: --jq implies --output json, and so JSON messages', async (_, op, status, exit) => {
    const r = await refused(op, status, ['--jq', '.name']);
    expect(r.code).toBe(exit);
    expect(parsed(r.stderr)).not.toContain(undefined);
    expect(parsed(r.stderr).at(-1)).toMatchObject({ code: `refused_${status}`, status });
  });

  it.each(failing)('%s: without JSON output, text', async (_, op, status, exit) => {
    const r = await refused(op, status, []);
    expect(r.code).toBe(exit);
    if (op.deprecated) expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toMatch(/^error: /m);
    expect(r.stderr).not.toContain('{"');
  });
});

describe.concurrent('PETSTORE_MESSAGES', () => {
  it.each(failing)(
    '%s =text: every message is text, the error too, even with --output json',
    async (_, op, status, exit) => {
      const r = await refused(op, status, ['--json'], { env: { PETSTORE_MESSAGES: 'text' } });
      expect(r.code).toBe(exit);
      if (op.deprecated) expect(r.stderr).toMatch(/^warning: /);
      expect(r.stderr).toMatch(/^error: /m);
      expect(r.stderr).not.toContain('{"');
    },
  );

  it.each(failing)(
    '%s =json: every message is JSON, on a terminal and without --output json',
    async (_, op, status, exit) => {
      const r = await refused(op, status, [], { env: { PETSTORE_MESSAGES: 'json' }, tty: true });
      expect(r.code).toBe(exit);
      const lines = parsed(r.stderr);
      expect(lines).not.toContain(undefined);
      if (op.deprecated) expect(lines[0]).toMatchObject({ level: 'warning' });
      expect(lines.at(-1)).toMatchObject({ code: `refused_${status}` });
    },
  );

  it('=json on a terminal: a bad --jq expression is one JSON line', async () => {
    const r = await runMain(['pets', 'list', '--jq', '.[0'], {
      env: sandbox({ PETSTORE_MESSAGES: 'json' }),
      tty: true,
    });
    expect(r.code).toBe(2);
    expect(parsed(r.stderr)).toEqual([expect.objectContaining({ code: 'usage', status: 0 })]);
  });

  it('=text piped: a bad --jq expression is text', async () => {
    const r = await runMain(['pets', 'list', '--jq', '.[0'], { env: sandbox({ PETSTORE_MESSAGES: 'text' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: invalid --jq expression/);
    expect(r.stderr).toContain('\n      ^\n');
  });

  it('=json: --verbose lines are JSON objects too', async () => {
    const r = await runMain(['pets', 'list', '-L', '1', '--verbose'], {
      env: sandbox({ PETSTORE_MESSAGES: 'json' }),
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = parsed(r.stderr);
    expect(lines).not.toContain(undefined);
    expect(lines[0]).toMatchObject({ level: 'verbose', message: expect.stringMatching(/^> GET /) as unknown });
  });

  it('another value is a usage error naming the variable (exit 2)', async () => {
    const r = await runMain(['pets', 'list'], { env: sandbox({ PETSTORE_MESSAGES: 'yaml' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PETSTORE_MESSAGES');
    expect(r.stdout).toBe('');
  });
});

describe.concurrent('--quiet', () => {
  it.each([['-q'], ['--quiet']])(
    '%s drops the deprecation warning of pets get, on a terminal and off',
    async (flag) => {
      for (const tty of [true, false]) {
        const r = await runMain(['pets', 'get', '1', flag], { env: sandbox(), tty: { stderr: tty } });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('1');
        expect(r.stderr).toBe('');
      }
    },
  );

  it('drops notes (more pets exist than the page held)', async () => {
    const r = await runMain(['pets', 'list', '-L', '1', '-q'], { env: sandbox(), tty: { stderr: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.each(failing)(
    '%s: never drops an error: text on a terminal, JSON off one with --json',
    async (_, op, status, exit) => {
      const onTerminal = await refused(op, status, ['--quiet'], { tty: { stderr: true } });
      expect(onTerminal.code).toBe(exit);
      expect(onTerminal.stderr).toMatch(new RegExp(`^error: .*HTTP ${status}`));
      expect(onTerminal.stderr).not.toContain('warning:');
      const piped = await refused(op, status, ['--quiet', '--json']);
      expect(piped.code).toBe(exit);
      expect(parsed(piped.stderr)).toEqual([expect.objectContaining({ code: `refused_${status}`, status })]);
    },
  );
});

/**
 * Which form messages on stderr take (cli-contract.md "Errors and exit codes"): on a
 * terminal every message is text, errors included, whatever `-o` or `--jq` say; off one,
 * with `--output json|ndjson`, errors, warnings and notes are one JSON object a line
 * (`--verbose` lines stay text); `PETSTORE_MESSAGES=json|text` forces either for every
 * message. `--jq` implies `--output json`, and so these rules. And `--quiet`, which drops
 * warnings and notes but never errors. In-process (runMain) against the sandbox: its
 * `pets get` warns that getPet is deprecated, and `pets get 404404` fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

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

  it('an error is text too: a person reads it', async () => {
    const r = await runMain(['pets', 'get', '404404', '--json'], { env: sandbox(), tty: { stderr: true } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toMatch(/^error: .*not_found, HTTP 404/m);
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
  it('with --output json every line is a JSON object: the warning, then the error', async () => {
    const r = await runMain(['pets', 'get', '404404', '--json'], { env: sandbox() });
    expect(r.code).toBe(5);
    const lines = parsed(r.stderr);
    expect(lines[0]).toMatchObject({ level: 'warning' });
    expect(lines.at(-1)).toMatchObject({ code: 'not_found', status: 404 });
    expect(lines).not.toContain(undefined);
  });

  it('a bad --jq expression piped is one JSON line, its line feeds escaped in the JSON', async () => {
    const r = await runMain(['pets', 'list', '--jq', '.[0'], { env: sandbox() });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const error = JSON.parse(lines[0] ?? '') as { code: string; message: string; status: number };
    expect(error).toMatchObject({ code: 'usage', status: 0 });
    expect(error.message).toContain('\n    .[0\n      ^');
  });

  it('--jq implies --output json, and so JSON messages', async () => {
    const r = await runMain(['pets', 'get', '404404', '--jq', '.name'], { env: sandbox() });
    expect(r.code).toBe(5);
    expect(parsed(r.stderr)).not.toContain(undefined);
  });

  it('without JSON output, text', async () => {
    const r = await runMain(['pets', 'get', '404404'], { env: sandbox() });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toMatch(/^error: /m);
  });
});

describe.concurrent('PETSTORE_MESSAGES', () => {
  it('=text: every message is text, the error too, even with --output json', async () => {
    const r = await runMain(['pets', 'get', '404404', '--json'], { env: sandbox({ PETSTORE_MESSAGES: 'text' }) });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toMatch(/^error: /m);
    expect(r.stderr).not.toContain('{"');
  });

  it('=json: every message is JSON, on a terminal and without --output json', async () => {
    const r = await runMain(['pets', 'get', '404404'], {
      env: sandbox({ PETSTORE_MESSAGES: 'json' }),
      tty: true,
    });
    expect(r.code).toBe(5);
    const lines = parsed(r.stderr);
    expect(lines).not.toContain(undefined);
    expect(lines[0]).toMatchObject({ level: 'warning' });
    expect(lines.at(-1)).toMatchObject({ code: 'not_found' });
  });

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

  it('never drops an error: text on a terminal, JSON off one with --json', async () => {
    const onTerminal = await runMain(['pets', 'get', '404404', '--quiet'], { env: sandbox(), tty: { stderr: true } });
    expect(onTerminal.code).toBe(5);
    expect(onTerminal.stderr).toMatch(/^error: .*HTTP 404/);
    expect(onTerminal.stderr).not.toContain('warning:');
    const piped = await runMain(['pets', 'get', '404404', '--quiet', '--json'], { env: sandbox() });
    expect(piped.code).toBe(5);
    expect(parsed(piped.stderr)).toEqual([expect.objectContaining({ code: 'not_found', status: 404 })]);
  });
});

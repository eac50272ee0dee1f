/**
 * Process-level faults (cli-contract.md "Network behaviour", "Output"): a reader that
 * closes the pipe early (`| head -1`), and Ctrl-C (SIGINT) during a slow request and
 * during sandbox writes, which must leave no half-written or locked file behind.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { answer, closedPortBaseUrl, slowHeaders } from '../helpers/fault-server.js';
import { CLI_SHELL, runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { shell } from '../helpers/shell.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { tempDir } from '../helpers/temp-config.js';
import { fileTestServer } from '../helpers/test-server.js';

const KEY = 'pst_faults_proc_Wq82mZ4kLx7R';

const server = await fileTestServer();

/**
 * 99 pets with 1000-character names: ~100 KB of output, more than a pipe buffer (64 KiB).
 * One short of the `--limit 100` asked, so no full-page warning joins stderr.
 */
function bigPets(): unknown[] {
  return Array.from({ length: 99 }, (_, i) => ({
    id: i + 1,
    name: `${'n'.repeat(995)}-${String(i + 1).padStart(3, '0')}`,
    categoryId: 1,
    status: 'sold',
  }));
}

describe('a closed stdout', () => {
  for (const output of ['ndjson', 'table', 'json']) {
    it(`\`pets list --output ${output} | head -1\` ends quietly with exit 0`, async () => {
      server.handle(answer({ status: 200, body: bigPets() }));
      const dir = tempDir();
      const errFile = join(dir, 'stderr.txt');
      const script = `${CLI_SHELL} pets list --limit 100 --output ${output} 2>"${errFile}" | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`;
      // Asynchronous: the test server lives in this process and must keep answering.
      const r = await shell(script, remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, HOME: dir }));
      expect(r.stderr.trim()).toBe('exit=0');
      expect(readFileSync(errFile, 'utf8')).toBe('');
      const lines = r.stdout.split('\n');
      expect(lines).toHaveLength(2); // one line and the final newline
      expect(r.stdout.length).toBeLessThan(70_000);
      expect(r.stdout).not.toContain(KEY);
    });
  }
});

/** Starts the CLI, sends SIGINT once `when` resolves, and resolves with its result when it exits. */
async function runAndInterrupt(
  args: string[],
  env: Record<string, string>,
  when: (stderr: () => string) => Promise<void>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const p = spawnCli(args, { env, secrets: [KEY, env.PETSTORE_API_KEY ?? KEY] });
  void when(p.stderr).then(() => p.child.kill('SIGINT'));
  const { code, signal } = await p.exited;
  return { code, signal, stdout: p.stdout(), stderr: p.stderr() };
}

/** Waits for `cond` (an event: a request, a line); the limit is for a hang only. */
async function waitFor(cond: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Longer than any run here may take (spawnCli kills a run after 60 s): a slow answer or a
 * Retry-After this long is never waited out, so a run that ends with 130 did not wait for it.
 */
const NEVER_MS = 120_000;

/**
 * "At once" after SIGINT, with room for a loaded machine: far below the waits a run that
 * ignored SIGINT would sit out (NEVER_MS, or a 20 s Retry-After), far above a quiet
 * machine's few milliseconds.
 */
const AT_ONCE_MS = 10_000;

describe('Ctrl-C', () => {
  it('during a slow request: exit 130 at once, no stack trace, the key not shown', async () => {
    server.requests.length = 0;
    server.handle(slowHeaders(NEVER_MS));
    let sentAt = 0;
    const r = await runAndInterrupt(['pets', 'list', '--verbose'], remoteEnv(server.baseUrl, KEY), async () => {
      await waitFor(() => server.requests.length === 1);
      sentAt = Date.now();
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('error:');
    expect(r.stderr).not.toContain(KEY);
    expect(Date.now() - sentAt).toBeLessThan(AT_ONCE_MS);
    expect(server.requests).toHaveLength(1);
  });

  it('during a slow request with --json: one JSON object', async () => {
    server.requests.length = 0;
    server.handle(slowHeaders(NEVER_MS));
    const r = await runAndInterrupt(['pets', 'list', '--json'], remoteEnv(server.baseUrl, KEY), () =>
      waitFor(() => server.requests.length === 1),
    );
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stderr)).toEqual({ code: 'interrupted', message: 'interrupted', status: 0 });
  });

  it('during a Retry-After wait: exit 130 without waiting it out', async () => {
    server.requests.length = 0;
    server.handle(
      answer({
        status: 503,
        headers: { 'retry-after': '20' },
        body: { code: 'unavailable', message: 'later', status: 503 },
      }),
    );
    let sentAt = 0;
    const r = await runAndInterrupt(
      // --verbose says when the wait starts: SIGINT goes then, not 200 ms after the request.
      ['pets', 'list', '--verbose'],
      remoteEnv(server.baseUrl, KEY),
      async (stderr) => {
        await waitFor(() => /^\* retry 1 of \d+ after HTTP 503 in 20 s \(Retry-After\)$/m.test(stderr()));
        sentAt = Date.now();
      },
    );
    expect(r.code).toBe(130);
    // Well short of the 20 s a run that waited it out would take.
    expect(Date.now() - sentAt).toBeLessThan(AT_ONCE_MS);
    expect(server.requests).toHaveLength(1);
  });

  it('during the backoff after a refused connection: exit 130 at once', async () => {
    const base = await closedPortBaseUrl();
    let sentAt = 0;
    const r = await runAndInterrupt(
      ['pets', 'list', '--verbose', '--retries', '10'],
      remoteEnv(base, KEY),
      async (stderr) => {
        // Retry 5's backoff is 2-4 s (src/http/retry.ts: 250 ms doubled, capped at 4 s, half
        // of it jitter), retry 3's only 0.5-1 s: SIGINT sent when its line shows lands in the
        // wait even when a loaded machine delays it by a second or more.
        await waitFor(() => stderr().includes('* retry 5 of 10'));
        sentAt = Date.now();
      },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // The backoff was not waited out: no attempt after it (the first and four retries).
    expect(r.stderr).not.toContain('retry 6 of 10');
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(5);
    expect(Date.now() - sentAt).toBeLessThan(AT_ONCE_MS);
  });

  it('during `--env sandbox pets create`, repeated: the store always reads and no lock is left', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.json');
    const env = { PETSTORE_CONFIG_DIR: dir };
    // What the store holds, read through petstore itself (the data is a snapshot plus a journal).
    const names = async (seen: string): Promise<string[]> => {
      const r = await runMain(['--env', 'sandbox', 'pets', 'list', '--all', '--json'], { env });
      expect(r.code, `${seen}: the store must read; ${r.stderr}`).toBe(0);
      return (JSON.parse(r.stdout) as { name: string }[]).map((p) => p.name);
    };
    // Seed the files first, so every run below changes existing ones.
    const seeded = await runCli(['--env', 'sandbox', 'pets', 'list'], { env });
    expect(seeded.code).toBe(0);
    const count0 = (await names('seed')).length;
    const outcomes: (number | string | null)[] = [];
    for (let i = 0; i < 8; i++) {
      // Spread the signal over start-up, the request and the write.
      const delay = 150 + ((i * 53) % 300);
      const r = await runAndInterrupt(
        ['--env', 'sandbox', 'pets', 'create', '--name', `Int${i}`, '--category-id', '1'],
        { PETSTORE_CONFIG_DIR: dir },
        () => new Promise((res) => setTimeout(res, delay)),
      );
      outcomes.push(r.code ?? r.signal);
      const seen = `run ${i}, SIGINT after ${delay} ms: exit ${r.code ?? r.signal}, stderr ${JSON.stringify(r.stderr)}, files ${readdirSync(dir).join(' ')}`;
      expect([0, 130, 'SIGINT'], seen).toContain(r.code ?? r.signal);
      expect(r.stderr, seen).not.toMatch(/\n\s+at /);
      await names(seen);
      expect(existsSync(`${file}.lock`), seen).toBe(false);
      expect(
        readdirSync(dir).filter(
          (f) => !['sandbox.json', 'sandbox.json.journal', 'sandbox.json.key', 'config.json'].includes(f),
        ),
        seen,
      ).toEqual([]);
    }
    const all = await names('end');
    // Every run that reported success stored its pet.
    const succeeded = outcomes.filter((o) => o === 0).length;
    expect(all.filter((n) => n.startsWith('Int')).length).toBeGreaterThanOrEqual(succeeded);
    expect(all.length).toBeGreaterThanOrEqual(count0);
  });
});

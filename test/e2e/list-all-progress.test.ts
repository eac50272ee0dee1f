/**
 * The `--all` progress line in a real terminal (tmux): shown on a TTY stderr, rewritten in
 * place, erased at the end; never written when stderr is piped (in-process, `runMain`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { startPagingServer, type PagingServer } from '../helpers/paging-server.js';
import { baseEnv, CLI } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'test-key-progress-0123456789';
let server: PagingServer | undefined;
let tmux: TmuxSession | undefined;

afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await server?.close();
  server = undefined;
  removeTempDirs();
});

/**
 * How long the screen may take to show what the test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;

describe('pets list --all progress', () => {
  it('shows "fetched N pages, M pets…" on a terminal and clears it at the end', async () => {
    // Page 3 is held until the screen shows the progress line, so the test never races
    // the run for a glimpse of it, however slowly a loaded machine draws. 250 ms between
    // pages (more than the line's 100 ms between drawings) gets each page's count drawn.
    let released = false;
    let held: (() => void) | undefined;
    const release = (): void => {
      released = true;
      held?.();
    };
    server = await startPagingServer({
      pages: 8,
      perPage: 20,
      delayMs: 250,
      override: (page, _req, res) => {
        // Answered as any page once released (the screen may show page 2's count before page 3 is asked for).
        if (page !== 3 || released) return false;
        held = () => {
          const pets = Array.from({ length: 20 }, (_, i) => ({
            id: 40 + i + 1,
            name: `pet-${40 + i + 1}-`.padEnd(8, 'x'),
            categoryId: 1,
            status: 'available',
          }));
          res.writeHead(200, {
            'content-type': 'application/json',
            link: `<${server?.origin ?? ''}/v1/pets?limit=20&page=4>; rel="next"`,
          });
          res.end(JSON.stringify(pets));
        };
        return true;
      },
    });
    const dir = tempDir();
    const out = join(dir, 'out.ndjson');
    const env = remoteEnv(server.baseUrl, KEY, { ...baseEnv(), TERM: 'xterm', PETSTORE_CONFIG_DIR: dir, HOME: dir });
    // stdout goes to a file, so the pane shows only stderr; the shell prints the exit code
    // after, and sleeps on (the test kills the terminal) so the screen stays to be read.
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} pets list --all --output ndjson > ${JSON.stringify(out)}; echo "EXIT=$?"; sleep 3600`;
    tmux = startTmux({ command: `sh -c '${cmd.replace(/'/g, `'\\''`)}'`, env });
    const during = await tmux.waitFor((s) => /fetched 2 pages, 40 pets…/.test(s), { timeoutMs: SCREEN_MS });
    // Rewritten in place: one progress line on the screen, never a scrolling list.
    expect(during.match(/fetched/g)).toHaveLength(1);
    release();
    const after = await tmux.waitFor((s) => s.includes('EXIT='), { timeoutMs: SCREEN_MS });
    expect(after).toContain('EXIT=0');
    expect(after).not.toContain('fetched');
    // The line was erased: the exit line starts at the first column of the row below the
    // one naming the environment.
    expect(after.split('\n')[0]).toBe(
      `env: production (${new URL(server.baseUrl).host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY)`,
    );
    expect(after.split('\n')[1]).toBe('EXIT=0');
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(160);
    expect(server.urls).toHaveLength(8);
  }, 180_000);

  it('writes no progress when stderr is piped', async () => {
    server = await startPagingServer({ pages: 4, perPage: 5, delayMs: 50 });
    const r = await runMain(['pets', 'list', '--all'], {
      env: remoteEnv(server.baseUrl, KEY),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(20);
  });
});

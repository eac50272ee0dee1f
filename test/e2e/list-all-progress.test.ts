/**
 * The `--all` progress line in a real terminal (tmux): shown on a TTY stderr, rewritten in
 * place, erased at the end; never written when stderr is piped (in-process, `runMain`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('pets list --all progress', () => {
  it('shows "fetched N pages, M pets…" on a terminal and clears it at the end', async () => {
    server = await startPagingServer({ pages: 8, perPage: 20, delayMs: 250 });
    const dir = tempDir();
    const out = join(dir, 'out.ndjson');
    const env = {
      ...baseEnv(),
      TERM: 'xterm',
      PETSTORE_BASE_URL: server.baseUrl,
      PETSTORE_API_KEY: KEY,
      PETSTORE_CONFIG_DIR: dir,
      HOME: dir,
    };
    // stdout goes to a file, so the pane shows only stderr; the shell prints the exit code after.
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} pets list --all --output ndjson > ${JSON.stringify(out)}; echo "EXIT=$?"; sleep 60`;
    tmux = startTmux({ command: `sh -c '${cmd.replace(/'/g, `'\\''`)}'`, env });
    const during = await tmux.waitFor((s) => /fetched [2-7] pages, \d+ pets…/.test(s));
    // Rewritten in place: one progress line on the screen, never a scrolling list.
    expect(during.match(/fetched/g)).toHaveLength(1);
    const after = await tmux.waitFor((s) => s.includes('EXIT='), { timeoutMs: 15_000 });
    expect(after).toContain('EXIT=0');
    expect(after).not.toContain('fetched');
    // The line was erased: the exit line starts at the first column of the first row.
    expect(after.split('\n')[0]).toBe('EXIT=0');
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(160);
  }, 30_000);

  it('writes no progress when stderr is piped', async () => {
    server = await startPagingServer({ pages: 4, perPage: 5, delayMs: 50 });
    const r = await runMain(['pets', 'list', '--all'], {
      env: { PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(20);
  });
});

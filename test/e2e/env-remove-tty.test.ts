/**
 * `env remove` on a real terminal (tmux, the built CLI): it asks first, naming what goes
 * (the base URL, the stored key masked), default No; declined → exit 2 and the environment
 * kept; Ctrl-C at the question → exit 130 and kept; accepted → removed (cli-contract.md
 * "Environments"). Off a terminal it needs --yes: test/commands/env/env.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freshConfig, readConfig } from '../helpers/harness.js';
import { registerSecret } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { hasTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'eu-key-0123456789-TTYTEST';
registerSecret(KEY);

/** A limit for a hang: a loaded machine draws the screen late, never wrongly. */
const SCREEN_MS = 60_000;

let tmux: TmuxSession | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await server?.close();
  server = undefined;
  removeTempDirs();
});

describe.skipIf(!hasTmux())('env remove on a terminal', () => {
  it('asks (default No): declined and Ctrl-C keep it (exit 2, 130), yes removes it', async () => {
    // auth login tries the key: a server that takes it.
    const s = await startTestServer(() => ({ status: 200, body: [] }));
    server = s;
    const c = freshConfig();
    expect((await runMain(['config', 'set', 'staging-eu.baseUrl', s.baseUrl], { env: c.env })).code).toBe(0);
    expect((await runMain(['env', 'use', 'staging-eu'], { env: c.env })).code).toBe(0);
    const login = await runMain(['--env', 'staging-eu', 'auth', 'login', '--with-token'], {
      env: c.env,
      input: `${KEY}\n`,
    });
    expect(login.code).toBe(0);
    const before = readFileSync(c.file, 'utf8');

    const t = startTmux({ env: c.env });
    tmux = t;
    const shows = (pattern: RegExp): Promise<string> => t.waitFor(pattern, { timeoutMs: SCREEN_MS });
    // Asked by this run: until `clear` has run, the screen still shows the command line
    // typed and, after Ctrl-C, the last run's question unanswered.
    const asks = (): Promise<string> =>
      t.waitFor((screen) => question.test(screen) && !screen.includes('clear;'), { timeoutMs: SCREEN_MS });
    const question = new RegExp(
      `Remove the environment staging-eu \\(base URL ${s.baseUrl.replace(/[.]/g, '\\.')}, stored key \\*{4}TEST\\)\\? \\(y/N\\)`,
    );

    t.sendLine('petstore env remove staging-eu; echo "DECLINED=$?"');
    await asks();
    t.send('n');
    t.send('Enter');
    await shows(/DECLINED=2/);
    expect(readFileSync(c.file, 'utf8')).toBe(before);

    t.sendLine('clear; petstore env remove staging-eu; echo "INTERRUPTED=$?"');
    await asks();
    t.send('C-c');
    await shows(/INTERRUPTED=130/);
    expect(readFileSync(c.file, 'utf8')).toBe(before);

    t.sendLine('clear; petstore env remove staging-eu; echo "ACCEPTED=$?"');
    await asks();
    t.send('y');
    t.send('Enter');
    const screen = await shows(/ACCEPTED=0/);
    expect(screen).toContain('production is the default again');
    expect(screen).not.toContain(KEY);
    expect(readConfig(c.file)).toEqual({});
  }, 240_000);
});

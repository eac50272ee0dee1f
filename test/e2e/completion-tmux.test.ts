/**
 * The bash completion script loaded into an interactive bash in a real terminal (tmux):
 * `source <(petstore completion bash)`, then Tab completes commands and `--status` values.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshConfig } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

/**
 * How long the screen may take to show what a test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;

/** Waits for the screen to show what `test` looks for, not for time: a loaded machine may take long. */
function shows(t: TmuxSession, test: (screen: string) => boolean): Promise<string> {
  return t.waitFor(test, { timeoutMs: SCREEN_MS });
}

let tmux: TmuxSession | undefined;
afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  removeTempDirs();
});

/** An interactive bash in `cwd` (and with `env`) with petstore's completion loaded, its screen cleared. */
async function bashWithCompletion(cwd?: string, env: Record<string, string> = {}): Promise<TmuxSession> {
  const t = startTmux({
    command: 'bash --norc --noprofile -i',
    env: { TERM: 'xterm', HISTFILE: '/dev/null', ...env },
  });
  tmux = t;
  await shows(t, (s) => /[$#]/.test(s));
  t.type(`PS1='$ '; ${cwd === undefined ? '' : `cd '${cwd}'; `}source <(petstore completion bash); echo LOADED`);
  t.send('Enter');
  await shows(t, (s) => /^LOADED$/m.test(s));
  t.type('clear');
  t.send('Enter');
  // Cleared, and the prompt drawn again: keys typed before bash draws it are echoed ahead of
  // it (`petstore pe     $ petstore pets`), which a loaded machine makes likely.
  await shows(t, (s) => !s.includes('LOADED') && /^\$ *$/m.test(s));
  return t;
}

describe('completion in an interactive bash', () => {
  it('`config set environment <TAB><TAB>` offers the environments, not the keys again', async () => {
    const t = await bashWithCompletion();
    t.type('petstore config set environment ');
    t.send('Tab');
    t.send('Tab');
    const screen = await shows(t, (s) => /production/.test(s) && /staging/.test(s));
    expect(screen).toMatch(/production\s+sandbox\s+staging/);
    expect(screen).not.toContain('baseUrl');
    t.type('sa');
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore config set environment sandbox *$/m.test(s));
  }, 240_000);

  it('`--env staging-<TAB>` completes a configured environment, asked of petstore at Tab time', async () => {
    const c = freshConfig();
    const set = await runMain(['config', 'set', 'staging-eu.baseUrl', 'https://eu.example.com/v1'], { env: c.env });
    expect(set.code).toBe(0);
    const t = await bashWithCompletion(undefined, c.env);
    t.type('petstore --env staging-');
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore --env staging-eu *$/m.test(s));
    t.type(' env use s');
    t.send('Tab');
    t.send('Tab');
    await shows(t, (s) => /sandbox\s+staging\s+staging-eu/.test(s));
  }, 240_000);

  it('`--from-file data<TAB>` completes the directory `data/` with no space after it, then the file in it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'new-pets.ndjson'), '{"name":"Rex","categoryId":1}\n');
    const t = await bashWithCompletion(dir);
    t.type('petstore pets create --from-file da');
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore pets create --from-file data\/$/m.test(s));
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore pets create --from-file data\/new-pets\.ndjson *$/m.test(s));
  }, 240_000);

  it('`petstore help pets l<TAB>` completes a command word under pets', async () => {
    const t = await bashWithCompletion();
    t.type('petstore help pets l');
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore help pets list *$/m.test(s));
  }, 240_000);

  it('completes `petstore pe<TAB>` to pets and lists the --status values on <TAB><TAB>', async () => {
    // startTmux puts a `petstore` command on the shell's PATH.
    const t = await bashWithCompletion();

    t.type('petstore pe');
    t.send('Tab');
    // capture-pane drops trailing spaces; the space completion added shows once more is typed.
    await shows(t, (s) => /^\$ petstore pets *$/m.test(s));

    t.type('list --status ');
    t.send('Tab');
    t.send('Tab');
    const screen = await shows(t, (s) => /available\s+pending\s+sold/.test(s));
    expect(screen).toContain('$ petstore pets list --status');

    t.type('s');
    t.send('Tab');
    await shows(t, (s) => /^\$ petstore pets list --status sold *$/m.test(s));
  }, 240_000);
});

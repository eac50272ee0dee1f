/**
 * The bash completion script loaded into an interactive bash in a real terminal (tmux):
 * `source <(petstore completion bash)`, then Tab completes commands and `--status` values.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, CLI } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { TmuxSession } from '../helpers/tmux.js';

let tmux: TmuxSession | undefined;
afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  removeTempDirs();
});

describe('completion in an interactive bash', () => {
  it('completes `petstore pe<TAB>` to pets and lists the --status values on <TAB><TAB>', async () => {
    const bin = tempDir();
    symlinkSync(CLI, join(bin, 'petstore'));
    const env = { ...baseEnv(), PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: bin, TERM: 'xterm' };
    tmux = new TmuxSession('bash --norc --noprofile -i', env);
    await tmux.waitFor((s) => /[$#]/.test(s));
    tmux.send(`PS1='$ '; source <(petstore completion bash); echo LOADED`, true);
    tmux.send('Enter');
    await tmux.waitFor((s) => /^LOADED$/m.test(s));
    tmux.send('clear', true);
    tmux.send('Enter');
    await tmux.waitFor((s) => !s.includes('LOADED'));

    tmux.send('petstore pe', true);
    tmux.send('Tab');
    // capture-pane drops trailing spaces; the space completion added shows once more is typed.
    await tmux.waitFor((s) => /^\$ petstore pets$/m.test(s));

    tmux.send('list --status ', true);
    tmux.send('Tab');
    tmux.send('Tab');
    const screen = await tmux.waitFor((s) => /available\s+pending\s+sold/.test(s));
    expect(screen).toContain('$ petstore pets list --status');

    tmux.send('s', true);
    tmux.send('Tab');
    await tmux.waitFor((s) => /^\$ petstore pets list --status sold$/m.test(s));
  }, 30_000);
});

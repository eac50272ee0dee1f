/**
 * The bash completion script loaded into an interactive bash in a real terminal (tmux):
 * `source <(petstore completion bash)`, then Tab completes commands and `--status` values.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/temp-config.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

let tmux: TmuxSession | undefined;
afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  removeTempDirs();
});

describe('completion in an interactive bash', () => {
  it('completes `petstore pe<TAB>` to pets and lists the --status values on <TAB><TAB>', async () => {
    // startTmux puts a `petstore` command on the shell's PATH.
    tmux = startTmux({ command: 'bash --norc --noprofile -i', env: { TERM: 'xterm', HISTFILE: '/dev/null' } });
    await tmux.waitFor((s) => /[$#]/.test(s));
    tmux.type(`PS1='$ '; source <(petstore completion bash); echo LOADED`);
    tmux.send('Enter');
    await tmux.waitFor((s) => /^LOADED$/m.test(s));
    tmux.type('clear');
    tmux.send('Enter');
    await tmux.waitFor((s) => !s.includes('LOADED'));

    tmux.type('petstore pe');
    tmux.send('Tab');
    // capture-pane drops trailing spaces; the space completion added shows once more is typed.
    await tmux.waitFor((s) => /^\$ petstore pets *$/m.test(s));

    tmux.type('list --status ');
    tmux.send('Tab');
    tmux.send('Tab');
    const screen = await tmux.waitFor((s) => /available\s+pending\s+sold/.test(s));
    expect(screen).toContain('$ petstore pets list --status');

    tmux.type('s');
    tmux.send('Tab');
    await tmux.waitFor((s) => /^\$ petstore pets list --status sold *$/m.test(s));
  }, 30_000);
});

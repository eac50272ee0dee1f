/**
 * The CLI in a real terminal (tmux): the TTY table with header and colour, the machine
 * form when piped, NO_COLOR, a bad `--jq` expression's error as text, `sandbox serve`'s
 * export lines pasted into the shell, and Ctrl-C ending `sandbox serve` (cli-contract.md
 * "Output", "Errors and exit codes", "Commands").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer } from '../helpers/test-server.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const SGR = /\u001b\[[0-9;]*m/g;
/**
 * How long the screen may take to show what a test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;
let configDir: string;
const sessions: TmuxSession[] = [];

/** A new terminal, once its shell shows its prompt (a loaded machine may start it late). */
async function terminal(env: Record<string, string> = {}): Promise<TmuxSession> {
  const t = startTmux({ env: { PETSTORE_CONFIG_DIR: configDir, ...env } });
  sessions.push(t);
  await shows(t, /^[$#] $/m);
  return t;
}

/** The screen once `command` has run in a fresh terminal and printed its exit code (`rc=N`). */
async function ranInTerminal(command: string, opts: { escapes?: boolean } = {}): Promise<string> {
  const t = await terminal();
  t.sendLine(`${command}; echo "rc=$?"`);
  return shows(t, /rc=\d+/, opts);
}

/** Waits for the screen to show `pattern`, not for time: a loaded machine may take long. */
function shows(t: TmuxSession, pattern: RegExp, opts: { escapes?: boolean } = {}): Promise<string> {
  return t.waitFor(pattern, { ...opts, timeoutMs: SCREEN_MS });
}

beforeAll(() => {
  configDir = tempDir();
});
afterAll(() => {
  for (const t of sessions) t.kill();
  removeTempDirs();
});

describe.concurrent('in a terminal', () => {
  it('pets list shows an aligned table with a header and coloured status', async () => {
    const t = await terminal();
    t.sendLine('petstore --env sandbox pets list --status available; echo "rc=$?"');
    const screen = await shows(t, /rc=\d+/);
    expect(screen).toMatch(/rc=0/);
    const lines = screen.split('\n');
    const headerAt = lines.findIndex((l) => /^ID\s+NAME\s+CATEGORY\s+STATUS\s*$/.test(l));
    expect(headerAt, screen).toBeGreaterThanOrEqual(0);
    const header = lines[headerAt] ?? '';
    const rows = lines.slice(headerAt + 1, headerAt + 7);
    expect(rows.map((r) => r.split(/\s+/)[1])).toEqual(['Rex', 'Whiskers', 'Nibbles', 'Goldie', 'Kiwi', 'Atlas']);
    for (const col of ['NAME', 'CATEGORY', 'STATUS']) {
      const at = header.indexOf(col);
      for (const r of rows) expect(r.charAt(at - 1), `column ${col} in ${JSON.stringify(r)}`).toBe(' ');
      for (const r of rows) expect(r.charAt(at), `column ${col} in ${JSON.stringify(r)}`).not.toBe(' ');
    }
    expect(rows[5]).toMatch(/^9007199254740993\s+Atlas\s+9223372036854775807\s+available\s*$/);
    expect(screen).not.toContain('\t');

    const coloured = t.capture({ escapes: true });
    // tmux re-emits the green foreground (SGR 32) before each status cell.
    // eslint-disable-next-line no-control-regex -- an SGR sequence is what is looked for
    expect(coloured).toMatch(/\u001b\[32mavailable/);
    // The names are not coloured.
    expect(coloured).toMatch(/Rex/);
  }, 180_000);

  it('NO_COLOR=1 leaves the table without colour', async () => {
    const screen = await ranInTerminal('NO_COLOR=1 petstore --env sandbox pets list --status available', {
      escapes: true,
    });
    expect(screen).toMatch(/rc=0/);
    expect(screen.replace(SGR, '')).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS\s*$/m);
    const tableLines = screen.split('\n').filter((l) => !/^[$#] /.test(l) && /available|CATEGORY/.test(l));
    expect(tableLines.length, screen).toBe(7);
    for (const l of tableLines) expect(l).not.toMatch(SGR);
  }, 180_000);

  it('--no-color leaves the table without colour', async () => {
    const screen = await ranInTerminal('petstore --env sandbox pets list --status sold --no-color', { escapes: true });
    const tableLines = screen.split('\n').filter((l) => !/^[$#] /.test(l) && /sold\s*$|CATEGORY/.test(l));
    expect(tableLines.length, screen).toBe(3);
    for (const l of tableLines) expect(l).not.toMatch(SGR);
  }, 180_000);

  it('piped through cat, the same command prints the tab-separated form', async () => {
    const screen = await ranInTerminal('petstore --env sandbox pets list --status available | cat -A');
    expect(screen).toMatch(/rc=0/);
    // cat -A shows tabs as ^I and line ends as $: no header, no padding, no escapes.
    expect(screen).toContain('1^IRex^I1^Iavailable$');
    expect(screen).toContain('9007199254740993^IAtlas^I9223372036854775807^Iavailable$');
    expect(screen).not.toContain('CATEGORY');
    expect(screen).not.toContain('^[');
  }, 180_000);

  it("an empty list prints nothing on stdout and a note on the terminal's stderr", async () => {
    const srv = await startTestServer(() => ({ status: 200, body: [] }));
    try {
      const t = await terminal(
        remoteEnv(srv.baseUrl, 'pk_test_terminal_0123456789', { PETSTORE_CONFIG_DIR: configDir }),
      );
      t.sendLine('petstore pets list 2>/dev/null | wc -c; petstore pets list; echo "rc=$?"');
      const screen = await shows(t, /rc=\d+/);
      expect(screen).toMatch(/^\s*0\s*$/m);
      expect(screen).toMatch(/^No pets found\.\s*\nrc=0/m);
      expect(srv.requests).toHaveLength(2);
    } finally {
      await srv.close();
    }
  }, 180_000);

  it('a bad --jq expression is text on the terminal, its caret under the expression; JSON in a pipe', async () => {
    const screen = await ranInTerminal(
      'NO_COLOR=1 petstore --env sandbox pets list --jq \'.[0\'; echo "tty=$?"; ' +
        "petstore --env sandbox pets list --jq '.[0' 2>&1 | cat",
    );
    expect(screen).toMatch(/^tty=2\s*$/m);
    const lines = screen.split('\n');
    const at = lines.findIndex((l) => l.startsWith('error: invalid --jq expression'));
    expect(at, screen).toBeGreaterThanOrEqual(0);
    // The expression and the caret under its third column, each on a line of its own.
    const expression = lines.findIndex((l, i) => i > at && l === '    .[0');
    expect(expression, screen).toBeGreaterThan(at);
    expect(lines[expression + 1]).toBe('      ^');
    expect(lines[expression + 2]).toMatch(/^jq's manual: /);
    expect(screen.split('tty=2')[0]).not.toContain('{"code"');
    // Piped, the same error is one JSON line, its line feeds escaped.
    expect(screen.split('tty=2')[1]).toMatch(
      /^\{"code":"usage","message":"invalid --jq expression: .*\\n {4}\.\[0\\n/m,
    );
  }, 180_000);

  it('`sandbox serve` on a terminal prints export lines that, pasted into the shell, reach it', async () => {
    const t = await terminal({ PETSTORE_CONFIG_DIR: tempDir() });
    // In the background, its stdout still the terminal: the same shell then takes the lines.
    t.sendLine('petstore sandbox serve --port 0 &');
    const screen = await shows(t, /Ctrl-C stops it/);
    // The shell's next prompt may stand before the first line: it came back at once.
    const lines = [...screen.matchAll(/export [A-Z_]+=\S+/g)].map((m) => m[0]);
    expect(lines).toEqual([
      expect.stringMatching(/^export PETSTORE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/) as unknown,
      expect.stringMatching(/^export PETSTORE_API_KEY=sbx_[0-9a-f]{32}$/) as unknown,
    ]);
    for (const line of lines) t.sendLine(line);
    t.sendLine('sh -c \'petstore pets list -L 1 -o json; echo "rc=$?"\'');
    const after = await shows(t, /^rc=\d+\s*$/m);
    expect(after).toMatch(/^rc=0\s*$/m);
    expect(after).toMatch(/"id":\s*\d+/);
    t.sendLine('kill %1; wait');
  }, 180_000);

  it('Ctrl-C ends `sandbox serve` and the shell sees exit 130', async () => {
    const t = await terminal();
    t.sendLine('petstore sandbox serve --port 0; echo "serve-exit=$?"');
    await shows(t, /Ctrl-C stops it/);
    t.send('C-c');
    const screen = await shows(t, /serve-exit=\d+/);
    expect(screen).toMatch(/serve-exit=130/);
    expect(screen).toMatch(/PETSTORE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1/);
  }, 180_000);
});

/**
 * Text fits the terminal and breaks only between words (cli-contract.md "Output": help
 * wraps at the terminal's width, never mid-word; messages wrap at spaces, a command in one
 * is never broken): no help paragraph carries a hard line break of its own (which leaves a
 * short line before a word that would have fitted), the lines `auth login` and `auth
 * logout` print, a confirmation question and `config list`'s table fit 60, 80 and 120
 * columns, and a bulk create's re-run command runs when pasted. Every command's help in-process, at every width; the rest in real
 * terminals (tmux), where a line too long is broken mid-word by the terminal itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandTree } from '../helpers/command-tree.js';
import { petRecords, startPetServer, type PetServer } from '../helpers/pet-server.js';
import { runMain } from '../helpers/run-main.js';
import { remoteEnv } from '../helpers/harness.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply } from '../helpers/test-server.js';
import { hasTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const sessions: TmuxSession[] = [];
const servers: PetServer[] = [];
afterAll(async () => {
  for (const t of sessions) t.kill();
  await Promise.all(servers.map((s) => s.close()));
  removeTempDirs();
});

/** Every command path of the tree, root first (`[]`, `['pets']`, `['pets', 'list']`, ...). */
async function commandPaths(): Promise<string[][]> {
  return [[], ...(await commandTree()).map((c) => c.words)];
}

/**
 * Pairs of prose lines (at the left margin, in one paragraph) where the first word of the
 * second would have fitted on the first: a hard line break in the text itself.
 */
function hardBreaks(help: string, width: number): string[] {
  const lines = help.split('\n');
  const found: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const [a = '', b = ''] = [lines[i], lines[i + 1]];
    if (a === '' || b === '' || /^\s/.test(a) || /^\s/.test(b) || a.endsWith(':') || b.endsWith(':')) continue;
    // A `backquoted command` is one word: it is never broken (text/wrap.ts).
    const next = /^(?:`[^`]*`\S*|\S+)/.exec(b)?.[0] ?? '';
    if (a.length + 1 + next.length <= width) found.push(`${a}⏎${b}`);
  }
  return found;
}

describe('help prose', () => {
  it.each([60, 80, 120])('at %i columns, no paragraph of any command has a hard line break', async (columns) => {
    const paths = await commandPaths();
    expect(paths.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const path of paths) {
      const r = await runMain([...path, '--help'], { tty: true, columns });
      expect(r.code, path.join(' ')).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
      found.push(...hardBreaks(r.stdout, columns).map((b) => `${path.join(' ')}: ${b}`));
    }
    expect(found).toEqual([]);
  });
});

/** The lines of a screen petstore printed: not the commands typed at the prompt (`$ `, `# `). */
function output(screen: string): string[] {
  return screen.split('\n').filter((l) => !/^[$#] /.test(l));
}

describe.skipIf(!hasTmux())('in a terminal', () => {
  function terminal(width: number): TmuxSession {
    const dir = tempDir();
    const t = startTmux({ env: { PETSTORE_CONFIG_DIR: `${dir}/a-config-directory-with-a-long-name` }, width });
    sessions.push(t);
    return t;
  }

  it.each([60, 80, 120])(
    'auth status --help at %i columns: its paragraph reads without a hard break',
    async (width) => {
      const t = terminal(width);
      t.sendLine('petstore auth status --help; echo "rc=$?"');
      // The help is longer than the window: what scrolled off the top counts too.
      const screen = await t.waitFor(/rc=0/, { history: true });
      expect(screen).toContain('Exit code: 0; 4 when the selected environment');
      expect(screen).toContain('Usage: petstore auth status');
      const help = screen.slice(screen.indexOf('Usage:'), screen.indexOf('rc=0'));
      expect(hardBreaks(help, width)).toEqual([]);
      for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(width);
    },
  );

  it.each([60, 80])('auth login and logout say what they did in lines of at most %i columns', async (width) => {
    const t = terminal(width);
    t.sendLine(
      'petstore config set production.baseUrl https://api.petstore.example/v1 > /dev/null 2>&1; clear; echo pk_live_wrapping_0123456789 | petstore auth login --with-token --no-verify; echo "rc=$?"',
    );
    await t.waitFor(/rc=0/);
    t.sendLine('petstore auth logout; echo "rc=$?"');
    const screen = await t.waitFor(/rc=0\n[\s\S]*rc=0/);
    expect(screen).toContain('Logged in to production');
    expect(screen).toContain('Logged out of production');
    // A word longer than a line (the config file's path) stands alone on one, whole.
    for (const line of output(screen)) if (line.includes(' ')) expect(line.length, line).toBeLessThanOrEqual(width);
    // Words are whole: the lines joined again give the path of the config file unbroken.
    expect(screen.replace(/\n/g, ' ')).toMatch(/stored in \S+\/a-config-directory-with-a-long-name\/config\.json/);
  });

  it("a bulk create's re-run command at 60 columns: never broken, on a line of its own, runs when pasted", async () => {
    const srv = await startPetServer(({ name, attempt }) =>
      name === 'P2' && attempt === 1 ? errorReply(503, 'unavailable', 'later') : 'create',
    );
    servers.push(srv);
    const dir = tempDir();
    const file = join(dir, 'big pets.ndjson');
    writeFileSync(file, petRecords(3));
    const env = remoteEnv(srv.baseUrl, 'pk_test_wrapping_0123456789', { PETSTORE_CONFIG_DIR: dir, NO_COLOR: '1' });
    const t = startTmux({ env, width: 60, height: 30 });
    sessions.push(t);
    t.sendLine(
      `clear; petstore pets create --from-file '${file}' --concurrency 1 --retries 0 > /dev/null; echo "rc=$?"`,
    );
    const screen = await t.waitFor(/rc=1/);
    const lines = output(screen);
    expect(lines.filter((l) => l.endsWith(' \\'))).toEqual([]);
    // Prose fits; the command, longer than the line, overflows whole (the capture joins what the terminal wrapped).
    const command = lines.filter((l) => /^ +petstore pets create --from-file /.test(l));
    expect(command).toHaveLength(1);
    for (const line of lines) if (!command.includes(line)) expect(line.length, line).toBeLessThanOrEqual(60);
    // Pasted as shown: the shell runs the records not created.
    t.type(command[0] ?? '');
    t.sendLine('; echo "rerun=$?"');
    await t.waitFor(/rerun=0/);
    expect(existsSync(`${file}.remaining.ndjson`)).toBe(false);
    expect(srv.created()).toEqual(['P1', 'P2', 'P3']);
  });

  it('a confirmation question at 80 columns wraps at spaces, (y/N) and then the answer on its last line', async () => {
    const t = terminal(80);
    t.sendLine('petstore config set staging-eu-west.baseUrl https://staging-eu-west.petstore.example/v1');
    t.sendLine('clear; petstore env remove staging-eu-west; echo "rc=$?"');
    const asked = await t.waitFor(/\(y\/N\)/);
    const question = output(asked).filter((l) => l.trim() !== '');
    // Two lines: the library would have cut the second word it could not fit (`no stor|ed key`).
    expect(question.length, asked).toBe(2);
    for (const line of question) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(question[1]).toMatch(/^ {2}\S.*\(y\/N\)/);
    expect(question.join(' ').replace(/ {3}/g, ' ')).toContain(
      'Remove the environment staging-eu-west (base URL https://staging-eu-west.petstore.example/v1, no stored key)?',
    );
    t.send('n');
    t.send('Enter');
    const screen = await t.waitFor(/rc=2/);
    for (const line of output(screen)) expect(line.length, line).toBeLessThanOrEqual(80);
    // Answered, the question's last line ends with the answer instead of (y/N).
    expect(screen).toMatch(/^ {2}\S.* No$/m);
  });

  it.each([60, 80])('config list fits %i columns', async (width) => {
    const t = terminal(width);
    t.sendLine('petstore config set staging.baseUrl https://staging.petstore.example.with.a.long.name/v1');
    t.sendLine("petstore config set staging.apiKeyCommand 'op read op://store/petstore/a-long-item-name/key'");
    t.sendLine('clear; petstore config list; echo "rc=$?"');
    const screen = await t.waitFor(/rc=\d/);
    expect(screen).toContain('staging.apiKeyCommand');
    for (const line of output(screen)) expect(line.length, line).toBeLessThanOrEqual(width);
  });
});

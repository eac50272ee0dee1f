/**
 * Help that teaches: examples in every command's help, `petstore help COMMAND...`, and
 * suggestions for a mistyped command or flag (exit 2, nothing sent). In-process (runMain);
 * that the built bundle prints the same help is test/e2e/help.test.ts, the fast path of
 * `--help` alone test/e2e/fast-path.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { commandTree } from '../helpers/command-tree.js';
import { remoteEnv } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs } from '../helpers/temp-config.js';
import { serverPool } from '../helpers/test-server.js';

const { start: startServer, closeAll } = serverPool();
afterAll(async () => {
  await closeAll();
  removeTempDirs();
});

/** Every command, from the tree (a new command is covered without editing this file). */
const COMMANDS = (await commandTree()).map((c) => c.words.join(' '));
/**
 * How many examples a command shows, where it is not two or three: the groups that only
 * route (their verbs have examples) and the commands with more forms to show.
 */
const EXAMPLES_BEYOND: Record<string, number> = { auth: 0, config: 0, api: 6, 'config set': 4 };

describe.concurrent('help', () => {
  it('covers the tree, which is read from the program', () => {
    expect(COMMANDS).toEqual(expect.arrayContaining(['pets', 'pets list', 'api', 'config set', 'help']));
  });

  it.each(COMMANDS)('`%s --help` shows two or three examples (or its own stated number)', async (command) => {
    const words = command.split(' ');
    const r = await runMain([...words, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`Usage: petstore ${words.join(' ')}`);
    const examples = r.stdout.split('Examples:')[1] ?? '';
    const lines = examples.split('\n').filter((l) => l.trimStart().startsWith('$ '));
    const stated = EXAMPLES_BEYOND[command];
    if (stated !== undefined) expect(lines).toHaveLength(stated);
    else {
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.length).toBeLessThanOrEqual(3);
    }
  });

  it.each(COMMANDS)('`petstore help %s` prints the same help', async (command) => {
    const words = command.split(' ');
    const viaHelp = await runMain(['help', ...words]);
    const viaFlag = await runMain([...words, '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('`petstore help` alone prints the program help', async () => {
    const r = await runMain(['help']);
    expect(r.code).toBe(0);
    for (const part of ['Usage: petstore [flags] [command]', 'completion']) expect(r.stdout).toContain(part);
  });

  it('`petstore help` with an unknown command is the usage error `petstore pets lst` gives', async () => {
    const [viaHelp, direct] = await Promise.all([runMain(['help', 'pets', 'lst']), runMain(['pets', 'lst'])]);
    expect(viaHelp.code).toBe(2);
    expect(viaHelp.stdout).toBe('');
    expect(viaHelp.stderr).toContain("unknown command 'lst'");
    expect(viaHelp.stderr).toContain('(Did you mean list?)');
    expect(viaHelp.stderr).toBe(direct.stderr);
  });
});

describe.concurrent('suggestions', () => {
  it.each([
    ['flag', 'flags'],
    ['environmen', 'environment'],
    ['envir', 'environment'],
  ])('`petstore help %s` points to `petstore help %s`, exit 2', async (word, topic) => {
    const r = await runMain(['help', word]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`unknown command '${word}'`);
    expect(r.stderr).toContain(`\`petstore help ${topic}\``);
  });

  it("a word near no topic keeps commander's own suggestion of a command", async () => {
    const r = await runMain(['help', 'pts']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'pts'");
    expect(r.stderr).toContain('(Did you mean pets?)');
  });

  it.each([
    [['pets', 'lst'], "unknown command 'lst'", '(Did you mean list?)'],
    [['pet', 'list'], "unknown command 'pet'", '(Did you mean pets?)'],
    [['pets', 'list', '--limt', '5'], "unknown option '--limt'", '(Did you mean --limit?)'],
    [
      ['pets', 'create', '--category', '1', '--name', 'Rex'],
      "unknown option '--category'",
      '(Did you mean --category-id?)',
    ],
  ])('%j suggests the closest name, exit 2, nothing sent', async (args, error, suggestion) => {
    const server = await startServer();
    const r = await runMain(args, {
      env: remoteEnv(server.baseUrl, 'key-help-0123456789'),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(error);
    expect(r.stderr).toContain(suggestion);
    expect(server.requests).toHaveLength(0);
  });

  it.each([['--watch'], ['-w'], ['--watch=1']])(
    '`pets list %s` points to `petstore pets watch`, exit 2, nothing sent',
    async (flag) => {
      const server = await startServer();
      const r = await runMain(['pets', 'list', '--status', 'sold', flag], {
        env: remoteEnv(server.baseUrl, 'key-help-0123456789'),
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`unknown option '${flag}'`);
      expect(r.stderr).toContain('(Did you mean `petstore pets watch`?)');
      expect(server.requests).toHaveLength(0);
    },
  );

  it('another command’s unknown flag keeps commander’s own suggestion', async () => {
    const r = await runMain(['pets', 'get', '7', '--watch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--watch'");
    expect(r.stderr).not.toContain('pets watch');
  });

  it('carries the suggestion in the JSON error with --json', async () => {
    const r = await runMain(['--json', 'pets', 'lst']);
    expect(r.code).toBe(2);
    const err = JSON.parse(r.stderr.trim()) as { code: string; message: string; status: number };
    expect(err).toMatchObject({ code: 'usage', status: 0 });
    expect(err.message).toContain('Did you mean list?');
  });
});

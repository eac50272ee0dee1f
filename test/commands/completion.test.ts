/**
 * `petstore completion bash|zsh|fish` end to end: the bash script is loaded into a real
 * bash and its completion function asked for candidates; the zsh and fish scripts are
 * checked for the same commands, flags and values. The scripts are generated in-process
 * (runMain); the built CLI's script in a real interactive bash is test/e2e/completion-tmux.test.ts.
 * Environment names are asked of petstore at Tab time: the shells run the built CLI
 * (`npm run build`) as `petstore` from PATH, in a config folder of the test's own; zsh and
 * fish are run too where they are installed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/config/keys.js';
import { commandTree, subcommandsOf } from '../helpers/command-tree.js';
import { freshConfig } from '../helpers/harness.js';
import { CLI_SHELL } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

let bashScript = '';
let scriptFile = '';
/** A folder with a `petstore` command (the built CLI), put first on the shells' PATH. */
let binDir = '';
/** An empty config folder: the environment names are the built-in ones there. */
let emptyConfig = '';
/** The top-level commands, from the tree itself (a new command must not need this file changed). */
let topLevel: string[] = [];

beforeAll(async () => {
  const r = await runMain(['completion', 'bash']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  bashScript = r.stdout;
  scriptFile = join(tempDir(), 'petstore.bash');
  writeFileSync(scriptFile, bashScript);
  binDir = join(tempDir(), 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'petstore'), `#!/bin/sh\nexec ${CLI_SHELL} "$@"\n`);
  chmodSync(join(binDir, 'petstore'), 0o755);
  emptyConfig = freshConfig().dir;
  topLevel = (await commandTree()).filter((c) => c.words.length === 1).map((c) => c.words[0] ?? '');
});

afterAll(() => removeTempDirs());

/** The verbs of `pets`, from the tree (a new verb must not need this file changed). */
const petVerbs = subcommandsOf(await commandTree(), ['pets']);

/** The environment of a shell that completes: `petstore` on PATH, the config folder `configDir`, a HOME of its own. */
function shellEnv(configDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    PETSTORE_CONFIG_DIR: configDir,
    HOME: tempDir(),
  };
}

/**
 * Completes the last word of `line` (words split on spaces; a trailing space = an empty
 * word) with the config folder `configDir` (default: an empty one).
 */
function complete(line: string, configDir = emptyConfig): string[] {
  // bash splits words at "=" too (COMP_WORDBREAKS): "--status=" is "--status" "=".
  const words = line.split(' ').flatMap((w) => {
    const i = w.indexOf('=');
    return i < 0 ? [w] : [w.slice(0, i), '=', ...(w.slice(i + 1) === '' ? [] : [w.slice(i + 1)])];
  });
  const script = `source ${JSON.stringify(scriptFile)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
__petstore_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    encoding: 'utf8',
    env: shellEnv(configDir),
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('completion bash', () => {
  it('is valid bash', () => {
    const r = spawnSync('bash', ['-n', scriptFile], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('completes every top-level command, and after `help` every one but help, then help’s topics', async () => {
    expect(topLevel).toEqual(expect.arrayContaining(['pets', 'api', 'help']));
    expect(petVerbs).toEqual(expect.arrayContaining(['list', 'create', 'get']));
    expect(complete('petstore ')).toEqual(topLevel);
    // The topics are help's own (its traits), read from the tree.
    const topics = Object.keys((await commandTree()).find((c) => c.words.join(' ') === 'help')?.traits.topics ?? {});
    expect(topics).toEqual(['flags', 'environment']);
    expect(complete('petstore help ')).toEqual([...topLevel.filter((c) => c !== 'help'), ...topics]);
    expect(complete('petstore help f')).toEqual(['flags']);
  });

  it.each([
    ['petstore pe', ['pets']],
    ['petstore a', ['auth', 'api']],
    [
      'petstore api --',
      ['--method', '--raw-field', '--field', '--input', '--header', '--include', '--paginate', '--max-pages'],
    ],
    ['petstore pets ', petVerbs],
    ['petstore --env sandbox pets l', ['list']],
    ['petstore -e staging sandbox ', ['serve', 'reset']],
    ['petstore pets list --', ['--limit', '--status', '--all', '--max-pages', '--help', '--env', '--output']],
    ['petstore pets list --status ', ['available', 'pending', 'sold']],
    ['petstore pets list --status p', ['pending']],
    ['petstore pets create --status=', ['available', 'pending', 'sold']],
    ['petstore pets create --status=so', ['sold']],
    ['petstore pets list ', ['--limit', '--status', '--all', '--max-pages', '--help']],
    ['petstore --env ', ['production', 'staging', 'sandbox']],
    ['petstore pets list -e s', ['staging', 'sandbox']],
    ['petstore --output ', ['table', 'tsv', 'csv', 'json', 'ndjson']],
    ['petstore -o ', ['table', 'tsv', 'csv', 'json', 'ndjson']],
    ['petstore pets list -o t', ['table', 'tsv']],
    ['petstore -e ', ['production', 'staging', 'sandbox']],
    ['petstore pets list -s ', ['available', 'pending', 'sold']],
    ['petstore pets list -L 5 -s s', ['sold']],
    ['petstore pets create --name Rex -s ', ['available', 'pending', 'sold']],
    ['petstore pets get 7 --via-list -s a', ['available']],
    ['petstore pets list -L ', []],
    ['petstore config get ', SETTING_KEYS],
    ['petstore config set s', SETTING_KEYS.filter((k) => k.startsWith('s'))],
    ['petstore config unset ', SETTING_KEYS],
    ['petstore config set environment ', ['production', 'staging', 'sandbox']],
    ['petstore config set environment s', ['staging', 'sandbox']],
    ['petstore config set staging.baseUrl --h', ['--help']],
    ['petstore help pets ', petVerbs],
    ['petstore help pets l', ['list']],
    ['petstore help config s', ['set']],
    ['petstore pets get 7 -o nd', ['ndjson']],
    ['petstore completion ', ['bash', 'zsh', 'fish']],
    ['petstore pets create --from-', ['--from-file']],
    ['petstore pets list --limit ', []],
    ['petstore pets list --fields ', ['id', 'name', 'categoryId', 'status']],
    ['petstore --fields id,na', ['id,name']],
    // A field already in the list is not offered again: the CLI refuses it ("named twice").
    ['petstore pets get 7 --fields name,categoryId,', ['name,categoryId,id', 'name,categoryId,status']],
    ['petstore pets list --fields=status,id,', ['status,id,name', 'status,id,categoryId']],
    ['petstore pets list --fields name,n', []],
    ['petstore pets list --fields id,name,categoryId,status,', []],
    ['petstore pets list --sort -', ['-id', '-name', '-categoryId', '-status']],
    ['petstore pets list --sort n', ['name']],
    ['petstore pets list --so', ['--sort']],
    ['petstore pets list --jq ', []],
    ['petstore --j', ['--json', '--jq']],
  ])('%j completes to %j', (line, expected) => {
    const got = complete(line);
    if (line.endsWith('--') || line.endsWith('list ')) for (const e of expected) expect(got).toContain(e);
    else expect(got).toEqual(expected);
  });

  it('does not offer a subcommand of another group', () => {
    expect(complete('petstore pets s')).toEqual([]);
  });
});

describe.concurrent('completion zsh and fish', () => {
  it('zsh loads bash completion through bashcompinit and carries the same function', async () => {
    const r = await runMain(['completion', 'zsh']);
    expect(r.code).toBe(0);
    for (const line of [
      'autoload -U +X bashcompinit && bashcompinit',
      '__petstore_complete()',
      'complete -F __petstore_complete petstore',
      'compgen -W "available pending sold"',
    ])
      expect(r.stdout).toContain(line);
  });

  it('fish completes commands, subcommands, flags and values', async () => {
    const r = await runMain(['completion', 'fish']);
    expect(r.code).toBe(0);
    const s = r.stdout;
    expect(s).toContain("complete -c petstore -n '__fish_use_subcommand' -a pets");
    expect(s).toContain(
      `complete -c petstore -n '__fish_seen_subcommand_from pets; and not __fish_seen_subcommand_from ${petVerbs.join(' ')}' -a list`,
    );
    expect(s).toContain(
      "complete -c petstore -n '__fish_seen_subcommand_from pets; and __fish_seen_subcommand_from list' -l status -s s -x -a 'available pending sold'",
    );
    expect(s).toContain(
      "complete -c petstore -n '__fish_seen_subcommand_from pets; and __fish_seen_subcommand_from list' -l limit -s L -x",
    );
    // The environment names are asked of petstore at Tab time, the built-in ones if it fails.
    expect(s).toContain(
      "complete -c petstore -l env -s e -x -a '(command -q petstore; and petstore __complete-envs 2>/dev/null </dev/null; or string split \\' \\' \\'production staging sandbox\\')'",
    );
    expect(s).toContain("complete -c petstore -l output -s o -x -a 'table tsv csv json ndjson'");
    expect(s).toContain(`-a '${SETTING_KEYS.join(' ')}'`);
    expect(s).toContain('-l from-file -r -F');
    expect(s).toContain('-l input -r -F');
    expect(s).toContain("-a 'bash zsh fish'");
    // As in bash: the environments after `config set environment`, the tree's words after `help`.
    expect(s).toContain(
      "complete -c petstore -n '__fish_seen_subcommand_from config; and __fish_seen_subcommand_from set; and __fish_seen_subcommand_from environment' -a '(command -q petstore; and petstore __complete-envs",
    );
    expect(s).toContain(
      `complete -c petstore -n '__fish_seen_subcommand_from help; and __fish_seen_subcommand_from pets; and not __fish_seen_subcommand_from ${petVerbs.join(' ')}' -a list`,
    );
  });

  it('refuses an unknown shell with exit 2', async () => {
    const r = await runMain(['completion', 'powershell']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("'powershell' is invalid");
    expect(r.stderr).toContain('bash, zsh, fish');
  });
});

/** fish, when installed (not a dependency of the project: its tests are skipped without it). */
const FISH = 'fish';

/** Whether `shell` is installed (zsh and fish are optional on a developer's machine). */
const has = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;

describe('completion of environment names, asked of petstore at Tab time', () => {
  /** A config folder with the environment `staging-eu` configured. */
  let configured = '';
  /** A config folder whose config.json is not JSON. */
  let broken = '';
  beforeAll(async () => {
    const c = freshConfig();
    const r = await runMain(['config', 'set', 'staging-eu.baseUrl', 'https://eu.example.com/v1'], { env: c.env });
    expect(r.code).toBe(0);
    configured = c.dir;
    broken = freshConfig().dir;
    mkdirSync(broken);
    writeFileSync(join(broken, 'config.json'), '{ not json');
  });

  it('`__complete-envs` prints the names one a line, never a URL, and is hidden from help', async () => {
    const r = await runMain(['__complete-envs'], { env: { PETSTORE_CONFIG_DIR: configured } });
    expect(r).toMatchObject({ code: 0, stdout: 'production\nstaging\nstaging-eu\nsandbox\n', stderr: '' });
    expect((await runMain(['--help'])).stdout).not.toContain('__complete');
  });

  it('`__complete-envs` with a broken config file prints the built-in names, exit 0, nothing on stderr', async () => {
    const r = await runMain(['__complete-envs'], { env: { PETSTORE_CONFIG_DIR: broken } });
    expect(r).toMatchObject({ code: 0, stdout: 'production\nstaging\nsandbox\n', stderr: '' });
  });

  it.each([
    ['petstore --env ', ['production', 'staging', 'staging-eu', 'sandbox']],
    ['petstore -e s', ['staging', 'staging-eu', 'sandbox']],
    ['petstore pets list -e staging-', ['staging-eu']],
    ['petstore env use ', ['production', 'staging', 'staging-eu', 'sandbox']],
    ['petstore env remove ', ['production', 'staging', 'staging-eu', 'sandbox']],
    ['petstore env remove staging-', ['staging-eu']],
    ['petstore config set environment s', ['staging', 'staging-eu', 'sandbox']],
  ])('bash: %j completes to %j', (line, expected) => {
    expect(complete(line, configured)).toEqual(expected);
  });

  it('bash: after the name of `env use`, flags only (it takes one name)', () => {
    const got = complete('petstore env use staging-eu ', configured);
    expect(got).toContain('--help');
    expect(got).not.toContain('staging-eu');
  });

  it('bash: a broken config file completes the built-in names, and nothing is printed', () => {
    expect(complete('petstore --env ', broken)).toEqual(['production', 'staging', 'sandbox']);
  });

  it('bash: with no petstore on PATH, the built-in names', () => {
    const script = `source ${JSON.stringify(scriptFile)}
COMP_WORDS=(petstore env use ''); COMP_CWORD=3
__petstore_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
      encoding: 'utf8',
      env: { ...shellEnv(configured), PATH: '/usr/bin:/bin' },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('production\nstaging\nsandbox\n');
  });

  describe.skipIf(!has('zsh'))('zsh', () => {
    /**
     * What zsh's completion offers for `line`: the zsh script loaded, the words set as
     * bashcompinit's `_bash_complete` sets them, and its `compgen -F` run; zsh itself then
     * keeps the candidates that start with the word (its matching, done here).
     */
    function zshComplete(line: string): string[] {
      const words = line.split(' ');
      const cur = words.at(-1) ?? '';
      const file = join(tempDir(), 'petstore.zsh');
      writeFileSync(file, zshScriptText);
      const r = spawnSync(
        'zsh',
        [
          '-f',
          '-c',
          `source ${JSON.stringify(file)}
words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}
COMP_WORDS=("\${words[@]}"); COMP_CWORD=$((CURRENT - 1))
compgen -F __petstore_complete -- '${cur}'`,
        ],
        { encoding: 'utf8', env: shellEnv(configured) },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout.split('\n').filter((l) => l !== '' && l.startsWith(cur));
    }

    let zshScriptText = '';
    beforeAll(async () => {
      zshScriptText = (await runMain(['completion', 'zsh'])).stdout;
    });

    it.each([
      ['petstore --env ', ['production', 'staging', 'staging-eu', 'sandbox']],
      ['petstore -e s', ['staging', 'staging-eu', 'sandbox']],
      ['petstore env use ', ['production', 'staging', 'staging-eu', 'sandbox']],
      ['petstore env remove ', ['production', 'staging', 'staging-eu', 'sandbox']],
    ])('%j completes to %j', (line, expected) => {
      expect(zshComplete(line)).toEqual(expected);
    });
  });

  describe.skipIf(!has(FISH))('fish', () => {
    let fishFile = '';
    beforeAll(async () => {
      fishFile = join(tempDir(), 'petstore.fish');
      writeFileSync(fishFile, (await runMain(['completion', 'fish'])).stdout);
    });

    /** The candidates fish's `complete -C` offers for `line` (names only, descriptions dropped). */
    function fishComplete(line: string, configDir = configured): string[] {
      const r = spawnSync(FISH, ['--no-config', '-c', `source ${JSON.stringify(fishFile)}; complete -C '${line}'`], {
        encoding: 'utf8',
        env: shellEnv(configDir),
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0] ?? '');
    }

    it.each([
      ['petstore --env ', ['production', 'sandbox', 'staging', 'staging-eu']],
      ['petstore -e s', ['sandbox', 'staging', 'staging-eu']],
      ['petstore env use ', ['production', 'sandbox', 'staging', 'staging-eu']],
      ['petstore env remove ', ['production', 'sandbox', 'staging', 'staging-eu']],
      ['petstore config set environment staging', ['staging', 'staging-eu']],
    ])('%j completes to %j', (line, expected) => {
      expect(fishComplete(line)).toEqual(expected);
    });

    it('a broken config file completes the built-in names', () => {
      expect(fishComplete('petstore --env ', broken)).toEqual(['production', 'sandbox', 'staging']);
    });
  });
});

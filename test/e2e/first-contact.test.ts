/**
 * A new user's first minutes: help and tables that fit the terminal (80x24 and 60x20, in
 * tmux, where the terminal's width is the point), `pets create` asking for what is missing,
 * output formats said once and honoured, and hints that are right when pasted. What needs
 * no terminal runs in-process (runMain).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/text/width.js';
import { remoteEnv } from '../helpers/harness.js';
import { closedPortBaseUrl } from '../helpers/fault-server.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { errorReply, serverPool, type TestServer } from '../helpers/test-server.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const KEY = 'pk_test_first_contact_0123';
const LONG_NAME = 'Sir Reginald Fluffington the Third, Esquire, of Barkingshire'; // 60 characters
const { start: startServer, closeAll } = serverPool();
const sessions: TmuxSession[] = [];
let dir: string;
let shop: TestServer;

beforeAll(async () => {
  dir = tempDir();
  // Raw JSON: the ids are beyond 2^53 and must reach the table exactly.
  shop = await startServer((req) =>
    req.method === 'GET'
      ? {
          status: 200,
          raw: `[{"id":9007199254740993,"name":"${LONG_NAME}","categoryId":9223372036854775807,"status":"available"},{"id":2,"name":"Rex","categoryId":1,"status":"sold"}]`,
        }
      : undefined,
  );
});
afterAll(async () => {
  for (const t of sessions) t.kill();
  await closeAll();
  removeTempDirs();
});

/**
 * How long the screen may take to show what a test waits for: a limit for a hang, many
 * times what a quiet machine needs, since CI's two cores may be busy with other work.
 */
const SCREEN_MS = 60_000;

/** Waits for the screen to show `pattern`, not for time: a loaded machine may take long. */
function shows(t: TmuxSession, pattern: RegExp, opts: { history?: boolean } = {}): Promise<string> {
  return t.waitFor(pattern, { ...opts, timeoutMs: SCREEN_MS });
}

/** A new terminal, once its shell shows its prompt (a loaded machine may start it late). */
async function terminal(width: number, height: number, env: Record<string, string> = {}): Promise<TmuxSession> {
  const t = startTmux({ width, height, env: { PETSTORE_CONFIG_DIR: dir, ...env } });
  sessions.push(t);
  await shows(t, /^[$#] $/m);
  return t;
}

/**
 * `petstore pets create <args>` in an 80x24 terminal against `server`: types `typed` at the
 * category prompt, then presses `key`; returns the screen once the run has exited.
 */
async function atCategoryPrompt(server: TestServer, args: string, typed: string, key: string): Promise<string> {
  const t = await terminal(80, 24, remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }));
  t.sendLine(`petstore pets create ${args}; echo "rc=$?"`);
  await shows(t, /Category id:/);
  t.type(typed);
  t.send(key);
  return shows(t, /^rc=\d+\s*$/m);
}

/** Runs `command` in the terminal and returns the lines it printed (scrollback included) and its exit code. */
async function runIn(t: TmuxSession, command: string): Promise<{ lines: string[]; rc: number }> {
  t.sendLine(`${command}; echo "rc=$?"`);
  const screen = await shows(t, /^rc=\d+\s*$/m, { history: true });
  const lines = screen.split('\n');
  const start = lines.findIndex((l) => l.includes(`${command}; echo`));
  const end = lines.findIndex((l, i) => i > start && /^rc=\d+\s*$/.test(l));
  return { lines: lines.slice(start + 1, end), rc: Number(/rc=(\d+)/.exec(lines[end] ?? '')?.[1]) };
}

/** The words of help text, without the line continuations an example may get. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '' && w !== '\\');
}

describe.concurrent.each([
  [80, 24],
  [60, 20],
])('in a %ix%i terminal', (width, height) => {
  it.each([['--help'], ['pets list --help'], ['api --help']])(
    '`petstore %s` fits the width and splits no word',
    async (args) => {
      const t = await terminal(width, height);
      // Longer than the screen, help would open the pager (help-pager.test.ts): this reads
      // the lines as printed.
      const { lines, rc } = await runIn(t, `petstore ${args} --no-pager`);
      expect(rc).toBe(0);
      expect(lines.join('\n')).toContain('Usage: petstore');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      // The same words in the same order as help with room to spare: none was cut in two.
      const wide = await runMain(args.split(' '), { tty: true, columns: 1000 });
      expect(words(lines.join('\n'))).toEqual(words(wide.stdout));
    },
    240_000,
  );

  it('a table with a 60-character name fits; ids, categories and statuses are whole', async () => {
    const t = await terminal(width, height, remoteEnv(shop.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }));
    const { lines, rc } = await runIn(t, 'petstore pets list');
    expect(rc).toBe(0);
    // stderr's first lines name where the list comes from (the URL and key from variables,
    // which it says; wrapped on a narrow terminal); then the table.
    const header = lines.findIndex((l) => /^ID\s+NAME\s+CATEGORY\s+STATUS\s*$/.test(l));
    expect(lines.slice(0, header).join(' ').replace(/\s+/g, ' ')).toBe(
      `env: production (${new URL(shop.baseUrl).host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY)`,
    );
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
    expect(lines[header + 1]).toMatch(/^9007199254740993 +Sir R.*… +9223372036854775807 +available\s*$/);
    expect(lines[header + 2]).toMatch(/^2 +Rex +1 +sold\s*$/);
    expect(lines).toHaveLength(header + 3);
  }, 240_000);
});

describe.concurrent('pets create in a terminal', () => {
  const created = (body: string): string => {
    const pet = JSON.parse(body) as Record<string, unknown>;
    return JSON.stringify({ id: 42, ...pet });
  };

  it('asks for the name, category id and status, checks them as the flags do, and creates the pet', async () => {
    const server = await startServer((req) =>
      req.method === 'POST' ? { status: 201, raw: created(req.body) } : undefined,
    );
    const t = await terminal(80, 24, remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }));
    t.sendLine('petstore pets create; echo "rc=$?"');
    await shows(t, /Name:/);
    t.send('Enter'); // empty: refused, asked again
    await shows(t, /The name cannot be empty/);
    t.type('Biscuit');
    t.send('Enter');
    await shows(t, /Category id:/);
    t.type('1.5');
    t.send('Enter');
    await shows(t, /The category id is a whole number/);
    t.send('BSpace', 'BSpace', 'BSpace');
    t.type('7');
    t.send('Enter');
    await shows(t, /Status:/);
    t.send('Down');
    t.send('Enter');
    const screen = await shows(t, /^rc=\d+\s*$/m);
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(screen).toMatch(/^42\s+Biscuit\s+7\s+pending\s*$/m);
    // No green tick: nothing was checked by the server when an answer was given.
    expect(screen).not.toContain('✔');
    expect(server.requests.map((r) => [r.method, JSON.parse(r.body) as unknown])).toEqual([
      ['POST', { name: 'Biscuit', categoryId: 7, status: 'pending' }],
    ]);
  }, 240_000);

  it('takes a typed name as people type it: a blank one asked again, the spaces around one dropped', async () => {
    const server = await startServer((req) =>
      req.method === 'POST' ? { status: 201, raw: created(req.body) } : undefined,
    );
    const t = await terminal(80, 24, remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }));
    t.sendLine('petstore pets create --category-id 7 -s sold; echo "rc=$?"');
    await shows(t, /Name:/);
    t.type('   ');
    t.send('Enter'); // blank: refused, asked again
    await shows(t, /The name cannot be empty/);
    // inquirer keeps what was typed after a refusal: clear it first.
    t.send('BSpace', 'BSpace', 'BSpace');
    t.type('  Biscuit ');
    t.send('Enter');
    const screen = await shows(t, /^rc=\d+\s*$/m);
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(screen).toMatch(/^42 {2}Biscuit +7 +sold\s*$/m);
    expect(server.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { name: 'Biscuit', categoryId: 7, status: 'sold' },
    ]);
  }, 240_000);

  it('asks only for what the flags left out', async () => {
    const server = await startServer((req) =>
      req.method === 'POST' ? { status: 201, raw: created(req.body) } : undefined,
    );
    const screen = await atCategoryPrompt(server, '--name Kiwi -s sold', '4', 'Enter');
    expect(screen).toMatch(/^rc=0\s*$/m);
    expect(screen).not.toContain('Name:');
    expect(screen).not.toContain('Status:');
    expect(server.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { name: 'Kiwi', categoryId: 4, status: 'sold' },
    ]);
  }, 240_000);

  it('Ctrl-C at a prompt: exit 130, nothing sent', async () => {
    const server = await startServer();
    const screen = await atCategoryPrompt(server, '--name Rex', '12', 'C-c');
    expect(screen).toMatch(/^rc=130\s*$/m);
    expect(server.requests).toHaveLength(0);
  }, 240_000);

  it('a key the server then refuses was never shown with a green tick', async () => {
    const server = await startServer(() => errorReply(401, 'unauthorized', 'invalid API key'));
    const t = await terminal(80, 24);
    t.sendLine(`petstore --env staging --base-url ${server.baseUrl} auth login; echo "rc=$?"`);
    await shows(t, /API key for staging/);
    t.type('pk_wrong_key_0123456789');
    t.send('Enter');
    const screen = await shows(t, /^rc=\d+\s*$/m);
    expect(screen).toMatch(/^rc=4\s*$/m);
    expect(screen).toContain('refused the key');
    expect(screen).not.toContain('✔');
  }, 240_000);
});

describe.concurrent('pets create without a terminal', () => {
  it.each<[string, MainOptions['tty'], Record<string, string>]>([
    ['stdin is a pipe', { stdout: true, stderr: true, stdin: false }, {}],
    ['stderr is a pipe', { stdout: true, stderr: false, stdin: true }, {}],
    ['PETSTORE_NO_PROMPT is set', true, { PETSTORE_NO_PROMPT: '1' }],
  ])('%s: exit 2 naming every missing flag in one message, nothing sent', async (_name, tty, extra) => {
    const server = await startServer();
    const r = await runMain(['pets', 'create'], {
      tty,
      env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, NO_COLOR: '1', ...extra }),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^error: missing --name and --category-id/);
    expect(r.stderr.match(/error:/g)).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
  });

  it('one missing flag is named alone', async () => {
    const r = await runMain(['pets', 'create', '--name', 'Rex'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: missing --category-id: /);
  });
});

describe.concurrent('output formats, said once and honoured', () => {
  const env = (): Record<string, string> => remoteEnv(shop.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir });

  it('-o table piped prints the table with its header, full names, no colour', async () => {
    const r = await runMain(['pets', 'list', '-o', 'table'], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS$/);
    expect(lines[1]).toContain(LONG_NAME);
    expect(r.stdout).not.toContain('\t');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('-o tsv on a terminal prints the tab-separated form', async () => {
    const r = await runMain(['pets', 'list', '-o', 'tsv'], { env: env(), tty: true, columns: 60 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`9007199254740993\t${LONG_NAME}\t9223372036854775807\tavailable\n2\tRex\t1\tsold\n`);
  });

  it('without -o: a table on a terminal, tsv in a pipe', async () => {
    const [onTty, piped] = await Promise.all([
      runMain(['pets', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true }),
      runMain(['pets', 'list'], { env: env() }),
    ]);
    expect(onTty.stdout).toMatch(/^ID\s+NAME/);
    expect(piped.stdout).toMatch(/^9007199254740993\t/);
  });

  it.each([[['--json', '-o', 'ndjson']], [['-o', 'tsv', '--json']]])(
    '%j asks for two formats: exit 2, nothing sent',
    async (flags) => {
      const server = await startServer();
      const r = await runMain(['pets', 'list', ...flags], {
        env: { ...env(), PETSTORE_BASE_URL: server.baseUrl },
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(server.requests).toHaveLength(0);
    },
  );

  it.each([
    [
      ['pets', 'list', '--json', 'id,name'],
      [
        { id: 'ID', name: LONG_NAME },
        { id: 2, name: 'Rex' },
      ],
    ],
    [
      ['pets', 'list', '-s', 'sold', '--json', 'name'],
      [{ name: LONG_NAME }, { name: 'Rex' }],
    ],
    [
      ['--json', 'id', 'pets', 'list'],
      [{ id: 'ID' }, { id: 2 }],
    ],
    [
      ['pets', 'list', '--json=status,id'],
      [
        { status: 'available', id: 'ID' },
        { status: 'sold', id: 2 },
      ],
    ],
    [
      ['pets', 'list', '--json', 'categoryId, name'],
      [
        { categoryId: 'CAT', name: LONG_NAME },
        { categoryId: 1, name: 'Rex' },
      ],
    ],
  ])("%j: --json FIELDS prints only those fields, in that order (gh's shorthand)", async (args, want) => {
    const r = await runMain(args, { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Key order is part of the answer; the ids beyond 2^53 stay exact.
    const expected = JSON.stringify(want, null, 2)
      .replace('"ID"', '9007199254740993')
      .replace('"CAT"', '9223372036854775807');
    expect(r.stdout).toBe(`${expected}\n`);
  });

  it('--json FIELDS on pets get prints one object of those fields', async () => {
    const server = await startServer((req) =>
      req.method === 'GET'
        ? { status: 200, raw: '{"id":7,"name":"Kiwi","categoryId":4,"status":"pending"}' }
        : undefined,
    );
    const r = await runMain(['pets', 'get', '7', '--json', 'status,id'], {
      env: { ...env(), PETSTORE_BASE_URL: server.baseUrl },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{\n  "status": "pending",\n  "id": 7\n}\n');
    expect(server.requests.map((q) => q.url)).toEqual(['/v1/pets/7']);
  });

  it.each([
    [['--json', 'pets', 'list'], '/v1/pets'],
    [['pets', 'get', '--json', '5'], '/v1/pets/5'],
  ])('%j: a word after --json that is not a field list keeps its meaning', async (args, path) => {
    const server = await startServer((req) =>
      req.method === 'GET'
        ? { status: 200, raw: req.url === '/v1/pets' ? '[]' : '{"id":5,"name":"Rex","categoryId":1}' }
        : undefined,
    );
    const r = await runMain(args, { env: { ...env(), PETSTORE_BASE_URL: server.baseUrl } });
    expect(r.code).toBe(0);
    expect(server.requests.map((q) => q.url)).toEqual([path]);
  });

  it.each([
    [['pets', 'list', '--json', 'id,nme'], '"nme"'],
    [['pets', 'list', '--json=id,Name'], '"Name"'],
    [['pets', 'list', '--fields', 'id,colour'], '"colour"'],
    [['pets', 'list', '--fields', 'id,,name'], 'an empty name'],
  ])('%j: an unknown field is exit 2 naming it and the valid ones, nothing sent', async (args, named) => {
    const server = await startServer();
    const r = await runMain(args, { env: { ...env(), PETSTORE_BASE_URL: server.baseUrl } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // Under --json the error is one JSON object on stderr.
    const message = r.stderr.startsWith('{') ? (JSON.parse(r.stderr) as { message: string }).message : r.stderr;
    expect(unwrapped(message)).toContain(`unknown field ${named}`);
    expect(unwrapped(message)).toContain('fields are id, name, categoryId, status');
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('hints that are right when pasted', () => {
  it('`pets lst` points at `petstore pets --help`', async () => {
    const r = await runMain(['pets', 'lst']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean list?)');
    expect(r.stderr).toContain('Run `petstore pets --help` for usage.');
  });

  it.each([
    [['pets', 'list', '--limt', '5'], 'petstore pets list --help'],
    [['pet', 'list'], 'petstore --help'],
    [['config', 'get'], 'petstore config get --help'],
  ])('%j points at `%s`', async (args, help) => {
    const r = await runMain(args, { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Run \`${help}\` for usage.`);
  });

  it('`auth login` without a terminal suggests piping the key to the same environment', async () => {
    const r = await runMain(['--env', 'staging', '--base-url', shop.baseUrl, 'auth', 'login'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    // Whole: inline between backquotes, or bare on a line of its own (too long for one at 80 columns).
    expect(unwrapped(r.stderr)).toContain(
      `petstore --env staging --base-url ${shop.baseUrl} auth login --with-token < key.txt`,
    );
  });

  it('a refused key on staging suggests `petstore --env staging auth login`', async () => {
    const server = await startServer(() => errorReply(401, 'unauthorized', 'invalid API key'));
    const config = tempDir();
    await runMain(['config', 'set', 'staging.baseUrl', server.baseUrl], { env: { PETSTORE_CONFIG_DIR: config } });
    const [fromVar, stored] = await Promise.all([
      runMain(['--env', 'staging', 'pets', 'list'], { env: { PETSTORE_CONFIG_DIR: config, PETSTORE_API_KEY: KEY } }),
      runMain(['pets', 'list'], {
        env: { PETSTORE_CONFIG_DIR: config, PETSTORE_ENV: 'staging', PETSTORE_API_KEY: KEY },
      }),
    ]);
    for (const r of [fromVar, stored]) {
      expect(r.code).toBe(4);
      expect(unwrapped(r.stderr)).toContain('The key in PETSTORE_API_KEY was refused');
      expect(r.stderr).toMatch(/`petstore --env staging auth login`|^ *petstore --env staging auth login$/m);
    }
  });

  it('a missing pet on staging suggests listing staging', async () => {
    const server = await startServer(() => errorReply(404, 'not_found', 'pet 9 not found'));
    const r = await runMain(['--env', 'staging', 'pets', 'get', '9'], {
      env: remoteEnv(server.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir }),
    });
    expect(r.code).toBe(5);
    expect(unwrapped(r.stderr)).toContain('`petstore --env staging pets list`');
  });

  it('a 404 for /pets names where the base URL came from', async () => {
    const server = await startServer(() => errorReply(404, 'not_found', 'no such path'));
    const r = await runMain(['--base-url', server.origin, 'pets', 'list'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_API_KEY: KEY },
    });
    expect(r.code).toBe(5);
    expect(unwrapped(r.stderr)).toContain(`check that ${server.origin} ends with the version segment /v1`);
    expect(unwrapped(r.stderr)).toContain('it comes from --base-url.');
  });

  it('an unreachable server names where its base URL came from, as a command that works', async () => {
    // A port below 1024 that refuses: a released ephemeral port may be taken by another test's server.
    const gone = { baseUrl: await closedPortBaseUrl() };
    const config = tempDir();
    await runMain(['config', 'set', 'staging.baseUrl', gone.baseUrl], { env: { PETSTORE_CONFIG_DIR: config } });
    const base = { PETSTORE_CONFIG_DIR: config, PETSTORE_API_KEY: KEY };
    const [fromFile, fromVar, fromFlag] = await Promise.all([
      runMain(['--env', 'staging', 'pets', 'list'], { env: base }),
      runMain(['pets', 'list'], { env: { ...base, PETSTORE_BASE_URL: gone.baseUrl } }),
      runMain(['--base-url', gone.baseUrl, 'pets', 'list'], { env: base }),
    ]);
    for (const r of [fromFile, fromVar, fromFlag]) {
      expect(r.code).toBe(3);
      expect(unwrapped(r.stderr)).toContain(`Check that the server is up and that ${gone.baseUrl} is right`);
      expect(r.stderr).not.toMatch(/<env>|\$\{/);
    }
    expect(unwrapped(fromFile.stderr)).toContain('it comes from staging.baseUrl in the config file (');
    expect(fromFile.stderr).toMatch(
      /`petstore config set staging\.baseUrl URL`|^ *petstore config set staging\.baseUrl URL$/m,
    );
    expect(unwrapped(fromVar.stderr)).toContain('it comes from PETSTORE_BASE_URL.');
    expect(unwrapped(fromFlag.stderr)).toContain('it comes from --base-url.');
  });

  it('a missing production base URL suggests config set and the sandbox', async () => {
    const r = await runMain(['pets', 'list'], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    const text = unwrapped(r.stderr);
    expect(text).toContain('`petstore config set production.baseUrl https://HOST/v1`');
    expect(text).toContain('--env sandbox');
  });

  it('--limit above 100 points at --all', async () => {
    const r = await runMain(['pets', 'list', '-L', '500']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid --limit "500": must be a whole number from 1 to 100');
    expect(r.stderr).toContain('To fetch more than 100 pets, use --all.');
    expect((await runMain(['pets', 'list', '-L', '0'])).stderr).not.toContain('--all');
  });

  it('`petstore version` prints what --version prints', async () => {
    const [word, flag] = await Promise.all([runMain(['version']), runMain(['--version'])]);
    expect(word).toMatchObject({ code: 0, stderr: '' });
    expect(word.stdout).toBe(flag.stdout);
    expect(word.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('`sandbox serve --help` names the variable the server prints', async () => {
    const r = await runMain(['sandbox', 'serve', '--help']);
    expect(r.stdout).toContain('$PETSTORE_API_KEY');
    expect(r.stdout).not.toContain('$KEY');
  });
});

describe.concurrent('every message line fits the terminal, or 80 columns when stderr is not one', () => {
  it.each([
    [undefined, 80],
    [60, 60],
    [200, 200],
  ])('stderr %s columns wide: lines of at most %i', async (columns, max) => {
    // stderr is the terminal (when there is one); stdin is not, so nothing prompts.
    const tty = { stderr: columns !== undefined };
    const env = (): Record<string, string> => ({ PETSTORE_CONFIG_DIR: tempDir(), NO_COLOR: '1' });
    const runs = await Promise.all([
      runMain(['pets', 'list'], { env: env(), tty, columns }),
      runMain(['pets', 'create'], { env: env(), tty, columns }),
      runMain(['--env', 'staging', 'auth', 'login'], { env: env(), tty, columns }),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(2);
      for (const line of r.stderr.trimEnd().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(max);
    }
  });

  it('a subcommand’s help points to the global flags, wrapped at the terminal', async () => {
    const r = await runMain(['pets', 'list', '--help'], { tty: true, columns: 60 });
    expect(r.stdout).toContain('Global flags: see `petstore help flags`');
    const flags = await runMain(['help', 'flags'], { tty: true, columns: 60, rows: 200 });
    for (const flag of ['--env', '--output', '--json', '--base-url', '--no-color'])
      expect(flags.stdout).toContain(flag);
    for (const line of flags.stdout.trimEnd().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
    for (const line of r.stdout.trimEnd().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
    expect(r.stdout).toContain('-L, --limit <n>');
    expect(r.stdout).toContain('-s, --status <status>');
  });
});

/**
 * The target is unmistakable (cli-contract.md "Environments"): on a terminal, every command
 * that talks to a remote environment names it and its host on stderr (magenta: neither dim
 * nor red), and a write names them in its summary line, production included; the sandbox
 * gets no banner, and its writes' summaries say `sandbox`. Off a terminal nothing extra is
 * printed: stderr is exactly what it was. In-process (runMain) against a test server on
 * 127.0.0.1 standing in for production and staging; the escape codes on a real terminal
 * are test/e2e/target-terminal.test.ts's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTarget } from '../../src/render/target.js';
import { fileServers, remoteEnv } from '../helpers/harness.js';
import { CLI_READS, CLI_WRITES, examplePet, operationStore } from '../helpers/operations.js';
import { unwrapped } from '../helpers/run-cli.js';
import { runMain, type MainOptions } from '../helpers/run-main.js';
import { tempDir } from '../helpers/temp-config.js';
import type { Handler } from '../helpers/test-server.js';

const KEY = 'pk_test_target_0123456789';
const { start } = fileServers();

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const SGR = /\u001b\[[0-9;]*m/g;

/** A Pet Store that lists no pets and creates every pet it is sent, ids from 21118. */
function petStore(): Handler {
  let nextId = 21118;
  return (req) => {
    if (req.method !== 'POST') return { status: 200, body: [] };
    const pet = JSON.parse(req.body) as { name: string; categoryId: number };
    return {
      status: 201,
      raw: `{"id":${nextId++},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"available"}`,
    };
  };
}

/** A two-record NDJSON input for `pets create --from-file`. */
function bulkInput(): string {
  const file = join(tempDir(), 'pets.ndjson');
  writeFileSync(file, '{"name":"Rex","categoryId":1}\n{"name":"Kiwi","categoryId":2}\n');
  return file;
}

/**
 * Runs `args` against `baseUrl` as environment `env` (production: the default), with `opts`;
 * an environment other than production and staging is first configured in a fresh config
 * file, as `config set NAME.baseUrl` writes it.
 */
function runAt(env: string, baseUrl: string, args: string[], opts: MainOptions = {}) {
  const envFlag = env === 'production' ? [] : ['--env', env];
  const configDir = join(tempDir(), 'cfg');
  if (!['production', 'staging'].includes(env)) {
    mkdirSync(configDir, { mode: 0o700 });
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ environments: { [env]: { baseUrl } } }), {
      mode: 0o600,
    });
  }
  // Wide enough that a summary naming the variables stays on one line.
  return runMain([...envFlag, ...args], {
    columns: 160,
    ...opts,
    env: remoteEnv(baseUrl, KEY, { NO_COLOR: '1', PETSTORE_CONFIG_DIR: configDir, ...opts.env }),
  });
}

/** stderr's messages, one a line: a wrapped message's continuation lines (indented 2) joined to it. */
function messageLines(stderr: string): string[] {
  return shown(stderr)
    .trimEnd()
    .replace(/\n {2}(?=\S)/g, ' ')
    .split('\n');
}

/**
 * The target as a run of `runAt` names it: production and staging take their URL and key
 * from the variables, which the banner says; a configured name given with --env takes its
 * own URL from the file and the key from PETSTORE_API_KEY.
 */
function targetAt(env: string, baseUrl: string): string {
  const host = new URL(baseUrl).host;
  return ['production', 'staging'].includes(env)
    ? `${env} (${host}, from PETSTORE_BASE_URL and PETSTORE_API_KEY)`
    : `${env} (${host}, key from PETSTORE_API_KEY)`;
}

/**
 * Each read, and what its stderr holds on a terminal after the banner against `petStore`
 * (which lists no pets); the reads of the declarations are `declaredReads`.
 */
const reads = [
  ['pets list (no pets)', ['pets', 'list'], 'No pets found.\n'],
  ['api GET', ['api', 'pets'], ''],
] as const;

/** Every read operation's run, against a store that answers it with one pet: its banner adds to nothing. */
const declaredReads = CLI_READS.map((op) => [op.name, op.argv] as const);

/** stderr as the terminal is left showing it: the progress line's drawings (`\r...ESC[K`) taken out. */
// eslint-disable-next-line no-control-regex -- the progress line's escape sequence is what is taken out
const shown = (stderr: string): string => stderr.replace(/\r[^\r\n]*?\x1b\[K/g, '');

/**
 * Each write, the summary line it ends with on a terminal (before ` in TARGET`), and the
 * store it runs against: every write operation (its summary names the pet the store
 * answers with, by id and quoted name), bulk create and `api POST`.
 */
const writes: [string, () => string[], RegExp, () => Handler][] = [
  ...CLI_WRITES.map((op): [string, () => string[], RegExp, () => Handler] => {
    const pet = examplePet(op);
    return [
      op.name,
      () => op.argv,
      new RegExp(`^\\w+ pet ${pet.id} ${JSON.stringify(pet.name)}$`),
      () => operationStore(),
    ];
  }),
  [
    'pets create --from-file',
    () => ['pets', 'create', '--from-file', bulkInput()],
    /^created 2 pets in \d+\.\d s$/,
    petStore,
  ],
  [
    'api POST',
    () => ['api', '-X', 'POST', 'pets', '-f', 'name=Rex', '-F', 'categoryId=1'],
    /^POST \/v1\/pets: 201 Created$/,
    petStore,
  ],
];

describe('describeTarget: one way of naming where a command goes', () => {
  it.each([
    ['production', 'https://api.example.com/v1', 'production (api.example.com)'],
    ['staging', 'https://staging.example.com:8443/v1', 'staging (staging.example.com:8443)'],
    ['staging-eu', 'https://eu.example.com:443/api/v1', 'staging-eu (eu.example.com)'],
    ['production', 'http://127.0.0.1:5123/v1', 'production (127.0.0.1:5123)'],
    ['production', 'http://[::1]:5123/v1', 'production ([::1]:5123)'],
    ['sandbox', 'http://127.0.0.1:40123/v1', 'sandbox'],
    // Never a checked base URL; its credentials are not shown all the same.
    ['production', 'https://user:se/cret@api.example.com/v1', 'production (api.example.com)'],
    ['production', 'api.example.com:x:y', 'production (api.example.com:x:y)'],
  ])('%s at %s is %j', (environment, baseUrl, expected) => {
    expect(describeTarget({ environment: { value: environment }, baseUrl: { value: baseUrl } })).toBe(expected);
  });

  it.each([
    ['env', 'file', 'staging (127.0.0.1:18080, from PETSTORE_BASE_URL)'],
    ['file', 'env', 'staging (127.0.0.1:18080, key from PETSTORE_API_KEY)'],
    ['env', 'env', 'staging (127.0.0.1:18080, from PETSTORE_BASE_URL and PETSTORE_API_KEY)'],
    ['flag', 'command', 'staging (127.0.0.1:18080)'],
  ])('a URL from %s and a key from %s: %j', (urlSource, keySource, expected) => {
    const from = (source: string, variable: string) => (source === 'env' ? variable : 'staging.baseUrl');
    expect(
      describeTarget({
        environment: { value: 'staging' },
        baseUrl: { value: 'http://127.0.0.1:18080/v1', source: urlSource, from: from(urlSource, 'PETSTORE_BASE_URL') },
        apiKey: { source: keySource, from: from(keySource, 'PETSTORE_API_KEY') },
      }),
    ).toBe(expected);
  });
});

describe.concurrent.each([['production'], ['staging'], ['staging-eu']])('%s on a terminal', (env) => {
  it.each(reads)(
    '%s: the first line of stderr names it and its host, and nothing else is added',
    async (_, args, rest) => {
      const srv = await start(petStore());
      const r = await runAt(env, srv.baseUrl, [...args], { tty: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`env: ${targetAt(env, srv.baseUrl)}\n${rest}`);
    },
  );

  it.each(declaredReads)(
    '%s: the banner, then exactly what it prints off a terminal (the read of a declared operation)',
    async (_, args) => {
      const srv = await start(operationStore());
      const piped = await runAt(env, srv.baseUrl, [...args]);
      expect(piped.code, piped.stderr).toBe(0);
      const r = await runAt(env, srv.baseUrl, [...args], { tty: true });
      expect(r.code, r.stderr).toBe(0);
      const banner = `env: ${targetAt(env, srv.baseUrl)}\n`;
      expect(r.stderr.startsWith(banner), r.stderr).toBe(true);
      // The same words, wrapped for the terminal.
      expect(unwrapped(r.stderr.slice(banner.length))).toBe(unwrapped(piped.stderr));
    },
  );

  it.each(writes)('%s: the banner, then a summary line naming the target', async (_, args, summary, store) => {
    const srv = await start(store());
    const r = await runAt(env, srv.baseUrl, args(), { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const target = targetAt(env, srv.baseUrl);
    const lines = messageLines(r.stderr);
    expect(lines[0]).toBe(`env: ${target}`);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.endsWith(` in ${target}`), r.stderr).toBe(true);
    expect(lines[1]?.slice(0, -` in ${target}`.length)).toMatch(summary);
  });

  it.each(writes)(
    '%s with --quiet: the banner and the summary line are still shown',
    async (_, args, summary, store) => {
      const srv = await start(store());
      const r = await runAt(env, srv.baseUrl, ['--quiet', ...args()], { tty: true });
      expect(r.code, r.stderr).toBe(0);
      const target = targetAt(env, srv.baseUrl);
      const lines = messageLines(r.stderr);
      expect(lines).toEqual([`env: ${target}`, expect.stringMatching(/ in /) as unknown]);
      expect(lines[1]?.slice(0, -` in ${target}`.length)).toMatch(summary);
    },
  );

  it('the banner comes before anything is sent, and once per run', async () => {
    const srv = await start(petStore());
    const seen: string[] = [];
    const r = await runAt(env, srv.baseUrl, ['pets', 'list', '--all'], {
      tty: true,
      onOutput: (stream, text) => {
        if (stream === 'stderr') seen.push(`${srv.requests.length}:${text}`);
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(seen[0]).toBe(`0:env: ${targetAt(env, srv.baseUrl)}\n`);
    expect(r.stderr.match(/env: /g)).toHaveLength(1);
  });
});

describe.concurrent('off a terminal nothing extra is printed', () => {
  const commands: [string, () => string[], () => Handler][] = [
    ...reads.map(([name, args]): [string, () => string[], () => Handler] => [name, () => [...args], petStore]),
    ...CLI_READS.filter((op) => !op.deprecated).map((op): [string, () => string[], () => Handler] => [
      op.name,
      () => op.argv,
      () => operationStore(),
    ]),
    ...writes.map(([name, args, , store]): [string, () => string[], () => Handler] => [name, args, store]),
  ];
  it.each(commands)('%s: stderr is empty, piped or with only stdout a terminal', async (_, args, store) => {
    const srv = await start(store());
    for (const tty of [false, { stdout: true, stdin: true }]) {
      for (const env of ['production', 'staging']) {
        const r = await runAt(env, srv.baseUrl, [...args()], { tty });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe('');
      }
    }
  });

  it('a stopped bulk create: the account is exactly as it was (JSON off a terminal), the text account names the target on one', async () => {
    const srv = await start((req) =>
      req.method === 'POST'
        ? { status: 400, body: { code: 'invalid_request', message: 'no', status: 400 } }
        : undefined,
    );
    const file = bulkInput();
    const piped = await runAt('production', srv.baseUrl, ['pets', 'create', '--from-file', file]);
    expect(piped.code).toBe(6);
    expect(piped.stderr).not.toContain('production');
    expect(piped.stderr).not.toContain(new URL(srv.baseUrl).host);
    const again = await runAt('production', srv.baseUrl, ['pets', 'create', '--from-file', bulkInput()], {
      tty: true,
    });
    expect(again.code).toBe(6);
    const target = targetAt('production', srv.baseUrl);
    expect(messageLines(again.stderr)[0]).toBe(`env: ${target}`);
    expect(messageLines(again.stderr)).toContain(`created in ${target}: none`);
  });
});

describe.concurrent('the sandbox', () => {
  const sandbox = (args: string[], opts: MainOptions = {}) =>
    runMain(['--env', 'sandbox', ...args], {
      ...opts,
      env: { PETSTORE_CONFIG_DIR: tempDir(), NO_COLOR: '1' },
    });

  it('prints no banner on a terminal', async () => {
    const r = await sandbox(['pets', 'list', '-L', '100'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('a write names `sandbox`, without its port, in its summary line on a terminal', async () => {
    const one = await sandbox(['pets', 'create', '--name', 'Rex', '--category-id', '1'], { tty: true });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/^created pet \d+ "Rex" in sandbox\n$/);
    const bulk = await sandbox(['pets', 'create', '--from-file', bulkInput()], { tty: true });
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(shown(bulk.stderr)).toMatch(/^created 2 pets in \d+\.\d s in sandbox\n$/);
    const api = await sandbox(['api', '-X', 'POST', 'pets', '-f', 'name=Rex', '-F', 'categoryId=1'], { tty: true });
    expect(api.code, api.stderr).toBe(0);
    expect(api.stderr).toBe('POST /v1/pets: 201 Created in sandbox\n');
  });

  it('off a terminal, a write prints nothing on stderr', async () => {
    const r = await sandbox(['pets', 'create', '--name', 'Rex', '--category-id', '1']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});

describe.concurrent('colour and form', () => {
  it('the banner and the summary are magenta (SGR 35), neither dim (2) nor red (31, 91)', async () => {
    const srv = await start(petStore());
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1'], {
      env: remoteEnv(srv.baseUrl, KEY),
      tty: true,
    });
    expect(r.code, r.stderr).toBe(0);
    const target = targetAt('production', srv.baseUrl);
    // A line the summary wraps onto (indented 2) is coloured too.
    // eslint-disable-next-line no-control-regex -- the colour's escape codes around the line break
    expect(r.stderr.replace(/\x1b\[39m\n\x1b\[35m {2}(?=\S)/g, ' ')).toBe(
      `\x1b[35menv: ${target}\x1b[39m\n\x1b[35mcreated pet 21118 "Rex" in ${target}\x1b[39m\n`,
    );
    // eslint-disable-next-line no-control-regex -- dim and red are what must not be there
    expect(r.stderr).not.toMatch(/\x1b\[(2|31|91)m/);
  });

  it.each([
    ['--no-color', ['--no-color'], {}],
    ['NO_COLOR', [], { NO_COLOR: '1' }],
  ])('%s: no escape codes', async (_, flags, extra) => {
    const srv = await start(petStore());
    const r = await runMain([...flags, 'pets', 'create', '--name', 'Rex', '--category-id', '1'], {
      env: remoteEnv(srv.baseUrl, KEY, extra),
      tty: true,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(SGR);
    expect(r.stderr).toContain(`env: ${targetAt('production', srv.baseUrl)}\n`);
  });

  it('with --json on a terminal the banner stays text; PETSTORE_MESSAGES=json makes it a JSON object', async () => {
    const srv = await start(petStore());
    const text = await runAt('staging', srv.baseUrl, ['pets', 'list', '--json'], { tty: { stderr: true } });
    expect(text.stderr).toBe(`env: ${targetAt('staging', srv.baseUrl)}\nNo pets found.\n`);
    const json = await runAt('staging', srv.baseUrl, ['pets', 'create', '--name', 'Rex', '--category-id', '1'], {
      tty: true,
      env: { PETSTORE_MESSAGES: 'json' },
    });
    expect(
      json.stderr
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { level: 'target', target: targetAt('staging', srv.baseUrl) },
      { level: 'summary', message: 'created pet 21118 "Rex"', target: targetAt('staging', srv.baseUrl) },
    ]);
  });

  it('a long pet name wraps the summary at 80 columns, one colour, no line starting as if its own', async () => {
    const srv = await start(petStore());
    const name = `Rex ${'very '.repeat(20)}long\nerror: forged`;
    const r = await runAt('production', srv.baseUrl, ['pets', 'create', '--name', name, '--category-id', '1'], {
      tty: true,
      columns: 80,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    for (const l of lines.slice(2)) expect(l).toMatch(/^ {2}\S/);
    expect(r.stderr).not.toMatch(/^error:/m);
  });
});

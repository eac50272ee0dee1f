/**
 * `help --json` is exact and whole (docs/commands.md "help"): every claim it makes about a
 * flag, an argument, `--output` or a required-together group is tried against the parser
 * (in-process runs against a real sandbox server on loopback, so a request that follows a
 * claim is answered); every variable of the registry is listed; every error code the
 * sources can report, petstore's and the sandbox's, is listed with its exit code.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeForStatus } from '../../src/base/errors.js';
import { ENV_VARS } from '../../src/config/env-vars.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { checkClaims, claimsOf, type Claim, type ClaimDoc, type Outcome } from '../helpers/help-claims.js';
import { lastError } from '../helpers/harness.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The document, as the claims and the sections read it. */
interface Doc extends ClaimDoc {
  commands: ClaimDoc['commands'];
  environment: { name: string; commands: string[]; lowercase: string | null }[];
  errors: { note: string; codes: { code: string; source: string; status: number | null; exit: number[] }[] };
  errorCodes: string[];
}

let doc: Doc;
let sandbox: RunningSandbox;
/** The run under way, stopped once it shows it got past its flags (output, or a request). */
let current: AbortController | undefined;
/** A file of one NewPet, for `--from-file`. */
let petFile: string;

beforeAll(async () => {
  const r = await runMain(['help', '--json']);
  expect(r.code).toBe(0);
  doc = JSON.parse(r.stdout) as Doc;
  sandbox = await startSandbox({
    store: new SandboxStore(join(tempDir(), 'sandbox.json')),
    onRequest: () => current?.abort(),
  });
  petFile = join(tempDir(), 'pets.ndjson');
  writeFileSync(petFile, '{"name":"Rex","categoryId":1}\n');
});
afterAll(async () => {
  await sandbox.close();
  removeTempDirs();
});

/** How long a run may take before it is called undecided: far above any run, for a loaded machine. */
const UNDECIDED_MS = 60_000;

/**
 * Runs a claim's command line in fresh config and state folders against the sandbox; one
 * that prints or sends a request has got past its flags and is stopped there (`pets
 * watch`, `sandbox serve` and `mcp` would serve on).
 */
async function run(claim: Claim): Promise<Outcome> {
  const controller = new AbortController();
  current = controller;
  let undecided = false;
  const timer = setTimeout(() => {
    undecided = true;
    controller.abort();
  }, UNDECIDED_MS);
  const dir = tempDir();
  try {
    const r = await runMain(claim.argv, {
      env: {
        PETSTORE_CONFIG_DIR: dir,
        PETSTORE_STATE_DIR: join(dir, 'state'),
        PETSTORE_BASE_URL: sandbox.baseUrl,
        PETSTORE_API_KEY: sandbox.apiKey,
        PETSTORE_MESSAGES: 'json',
      },
      tty: claim.tty === true ? { stdout: true } : false,
      signal: controller.signal,
      onOutput: (stream) => {
        if (stream === 'stdout') controller.abort();
      },
    });
    const code = lastError(r)?.code;
    // A run in-process always ends with a code (no signal kills it).
    return { code: r.code ?? -1, errorCode: typeof code === 'string' ? code : undefined, undecided };
  } finally {
    clearTimeout(timer);
    current = undefined;
  }
}

const samples = (): Record<string, string> => ({ '--from-file': petFile });

describe('help --json: every claim is true of the parser', () => {
  it('derives claims of every kind from the document', () => {
    const claims = claimsOf(doc, samples());
    const whats = claims.map((c) => c.what);
    expect(whats).toContain('pets list --limit 100 accepted');
    expect(whats).toContain('pets list --limit 101 refused');
    expect(whats).toContain('pets create --dry-run=curl accepted');
    expect(whats).toContain('pets list --json id,name accepted');
    expect(whats).toContain('api --output table refused');
    expect(whats).toContain('mcp --max-result-bytes 67108865 refused');
    expect(whats).toContain('pets create without --category-id (required with --name, --category-id) refused');
    expect(whats).toContain('pets get ID=9223372036854775808 refused');
  });

  it('every command and global flag', async () => {
    // One after another: a run is stopped by the sandbox's first request, whoever sent it.
    expect(await checkClaims(claimsOf(doc, samples()), run)).toEqual([]);
  });

  it('a wrong claim fails the check: a range one too wide, a format refused, a form written apart', async () => {
    const doctored = structuredClone(doc);
    const list = doctored.commands.find((c) => c.path.join(' ') === 'pets list')!;
    list.flags.find((f) => f.long === '--limit')!.range = { min: 1, max: 101 };
    const api = doctored.commands.find((c) => c.path.join(' ') === 'api')!;
    api.output = ['table', 'json'];
    const create = doctored.commands.find((c) => c.path.join(' ') === 'pets create')!;
    create.flags.find((f) => f.long === '--dry-run')!.value!.forms.push('--dry-run curl');
    const wrong = claimsOf(doctored, samples()).filter((c) =>
      ['pets list --limit 101 accepted', 'api --output table accepted', 'pets create --dry-run curl accepted'].includes(
        c.what,
      ),
    );
    expect(wrong).toHaveLength(3);
    const failures = await checkClaims(wrong, run);
    expect(failures).toHaveLength(3);
    expect(failures[0]).toContain('exit 2 (usage)');
  });

  it('a claim of formats on a command where --output does not act fails without a run', async () => {
    const doctored = structuredClone(doc);
    doctored.commands.find((c) => c.path.join(' ') === 'mcp')!.output = ['json'];
    const failures = await checkClaims(
      claimsOf(doctored, samples()).filter((c) => c.what.startsWith('mcp:')),
      run,
    );
    expect(failures).toEqual(['mcp: --output listed where it does not act']);
  });
});

describe('help --json: the topics', () => {
  it('each topic a command names is one it prints (`help flags`, `help environment`), exit 0, and no command', async () => {
    const commands = doc.commands as unknown as { path: string[]; topics: string[] }[];
    const claimed = commands.flatMap((c) => c.topics.map((topic) => [...c.path, topic]));
    expect(claimed.map((words) => words.join(' '))).toEqual(['help flags', 'help environment']);
    for (const words of claimed) {
      const r = await runMain(words);
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.length).toBeGreaterThan(100);
      expect(commands.some((c) => c.path.join(' ') === words.join(' '))).toBe(false);
    }
  });
});

describe('help --json: the environment section', () => {
  it('lists every variable of src/config/env-vars.ts, in order, each read by some command', () => {
    expect(doc.environment.map((v) => v.name)).toEqual(Object.keys(ENV_VARS));
    expect(doc.environment.filter((v) => v.commands.length === 0).map((v) => v.name)).toEqual([]);
    expect(doc.environment.find((v) => v.name === 'HTTPS_PROXY')?.lowercase).toBe('https_proxy');
  });

  it("the registry's readWith names flags and commands of the tree (a renamed one fails here)", () => {
    const paths = new Set(doc.commands.map((c) => c.path.join(' ')));
    const flags = new Set([...doc.globalFlags, ...doc.commands.flatMap((c) => c.flags)].map((f) => f.long));
    const named = Object.values(ENV_VARS).flatMap((spec) => ('readWith' in spec ? [...spec.readWith] : []));
    expect(named.filter((item) => !(item.startsWith('-') ? flags.has(item) : paths.has(item)))).toEqual([]);
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('help --json: the errors section', () => {
  const own = (): { code: string; exit: number[] }[] => doc.errors.codes.filter((c) => c.source === 'petstore');

  it("lists every code petstore's sources set (`code: '…'`, and the error classes' `hintedError`)", () => {
    const found = new Set<string>();
    for (const file of sources(join(root, 'src'))) {
      if (file.includes(`${join('src', 'sandbox')}/`)) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bcode: '([a-z_]+)'/g)) found.add(m[1]!);
      for (const m of text.matchAll(/hintedError\('\w+', ExitCode\.\w+, '([a-z_]+)'\)/g)) found.add(m[1]!);
    }
    expect(found).toContain('not_confirmed');
    expect(found).toContain('usage');
    const listed = own().map((c) => c.code);
    expect([...found].filter((code) => !listed.includes(code))).toEqual([]);
    // Each of ERROR_CODES, which the classes use, is listed too, with an exit code.
    expect(doc.errorCodes.filter((code) => !listed.includes(code))).toEqual([]);
    expect(own().filter((c) => c.exit.length === 0 && doc.errorCodes.includes(c.code))).toEqual([]);
  });

  it('lists every code the sandbox sends, with its status and the exit code petstore gives it', () => {
    const text = readFileSync(join(root, 'src', 'sandbox', 'server.ts'), 'utf8');
    const sent = [...text.matchAll(/new HttpProblem\(\s*(\d{3}),\s*'([a-z_]+)'/g)].map((m) => ({
      code: m[2]!,
      status: Number(m[1]),
    }));
    expect(sent.map((s) => s.code)).toEqual(expect.arrayContaining(['unauthorized', 'not_found', 'invalid_request']));
    const server = doc.errors.codes.filter((c) => c.source === 'server');
    const key = (c: { code: string; status: number | null }): string => `${c.code} ${c.status}`;
    expect([...new Set(sent.map(key))].sort()).toEqual(server.map(key).sort());
    for (const c of server) expect(c.exit).toEqual([exitCodeForStatus(c.status!)]);
    expect(doc.errors.note).toContain('not shown');
  });

  it("gives petstore's codes the exit codes docs/errors.md's table gives them", () => {
    const text = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
    const section = text.split('### Error codes')[1]?.split('\n## ')[0] ?? '';
    const documented = new Map(
      [...section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/\d+/g)].map((n) => Number(n[0])).filter((n) => n < 400),
      ]),
    );
    const differ = own()
      .filter((c) => documented.has(c.code))
      .filter((c) => [...c.exit].sort().join() !== [...documented.get(c.code)!].sort().join());
    expect(differ).toEqual([]);
  });
});

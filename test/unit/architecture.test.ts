/**
 * The layering of docs/architecture.md, checked on the source: no import cycles (madge),
 * dependencies that point one way, commands that do not import each other, declarations
 * that keep the start-up path free of heavy libraries, short functions, and process-level
 * side effects (exit, environment) in the one module that owns them.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.split('\\').join('/'));
const text = (file: string): string => readFileSync(join(src, file), 'utf8');
const parse = (file: string): ts.SourceFile =>
  ts.createSourceFile(file, text(file), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/**
 * Where a file under `commands/` sits: its noun (`pets`; `api` for a command without verbs),
 * its folder (`commands/pets/list`), and whether it is its folder's declaration (the file
 * named after the folder: `list/list.ts`, `pets/pets.ts`) or in a `shared/` folder.
 */
function placeOf(path: string): { noun: string; folder: string; declaration: boolean; shared: boolean } {
  const folder = posix.dirname(path);
  const parts = folder.split('/').slice(1);
  return {
    noun: parts[0] ?? '',
    folder,
    declaration: posix.basename(path) === `${posix.basename(folder)}.ts`,
    shared: parts[1] === 'shared',
  };
}

/**
 * Whether a file under `commands/` may import `dep` (docs/architecture.md "Layers"): lower
 * layers and the runner always; the files of its own folder (a command's declaration, its
 * run and its parts live together: gh's `pkg/cmd/<noun>/<verb>/`); its noun's `shared/`
 * folder; and, for a noun's own file (`pets/pets.ts`), the declarations of its verbs. So no
 * verb reaches into another, and `shared/` imports nothing above it in the noun.
 */
function commandImportAllowed(file: string, dep: string): boolean {
  if (!dep.startsWith('commands/') || posix.dirname(dep) === 'commands') return true;
  const from = placeOf(file);
  const to = placeOf(dep);
  if (from.noun !== to.noun) return false;
  if (to.shared || from.folder === to.folder) return true;
  const nounFile = from.declaration && from.folder === `commands/${from.noun}`;
  return nounFile && to.declaration && posix.dirname(to.folder) === from.folder;
}

/** Every import of `file` (static, type-only and dynamic), as src-relative paths or package names. */
let graph: Record<string, string[]>;
beforeAll(async () => {
  const result = await madge(src, { fileExtensions: ['ts'], tsConfig: join(root, 'tsconfig.json') });
  graph = result.obj();
  // Compute-bound: room for a loaded machine, several times what one took; only a hang reaches it.
}, 120_000);

describe('imports', () => {
  it('are read as src-relative paths (so the rules below bite)', () => {
    expect(graph['render/output.ts']).toContain('render/pets.ts');
    expect(graph['commands/pets/list/list.ts']).toContain('commands/pets/list/run.ts');
  });

  it('form no cycle', async () => {
    const result = await madge(src, { fileExtensions: ['ts'], tsConfig: join(root, 'tsconfig.json') });
    expect(result.circular()).toEqual([]);
    // The same graph again: a loaded machine took 25 s.
  }, 120_000);

  /**
   * Layer → the src-relative prefixes it may import (besides its own folder). Every layer
   * may use `text/count.ts`, the one number format of messages (a pure leaf).
   */
  const allowed: Record<string, string[]> = {
    // The leaves every layer uses; flag values take their bounds from the spec's constants.
    'base/': ['text/', 'client/constants.ts'],
    // http/reason.ts: HTTP's reason phrases (a leaf), for the status line of `api -i`.
    'render/': ['client/schemas.ts', 'client/constants.ts', 'io/io.ts', 'base/', 'text/', 'http/reason.ts'],
    'io/': ['text/', 'base/', 'config/env.ts'],
    'text/': [],
    'client/': ['base/', 'http/transport.ts', 'text/count.ts'],
    'http/': ['base/', 'text/count.ts'],
    // The file system's rules (locks, ssh's ownership rule, the state folder, what the user names).
    'fs/': ['base/', 'text/count.ts'],
    'config/': ['base/', 'fs/file-lock.ts', 'fs/trust.ts', 'text/count.ts'],
    'sandbox/': [
      'client/schemas.ts',
      'client/constants.ts',
      'base/',
      'fs/file-lock.ts',
      'fs/trust.ts',
      'text/count.ts',
    ],
  };
  /** Whether `dep` is one of `may`: a file by its path, a folder (ending in `/`) by its prefix. */
  const mayImport = (may: string[], dep: string): boolean =>
    may.some((m) => (m.endsWith('/') ? dep.startsWith(m) : dep === m));
  it.each(Object.entries(allowed))('%s imports only its own folder and %j', (layer, may) => {
    const bad: string[] = [];
    for (const [file, deps] of Object.entries(graph)) {
      if (!file.startsWith(layer)) continue;
      for (const dep of deps) {
        if (dep.startsWith(layer) || mayImport(may, dep)) continue;
        bad.push(`${file} → ${dep}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("commands import no other verb: only their own files, their noun's shared/ folder, the runner and lower layers", () => {
    const bad: string[] = [];
    for (const [file, deps] of Object.entries(graph)) {
      if (!file.startsWith('commands/')) continue;
      for (const dep of deps) if (!commandImportAllowed(file, dep)) bad.push(`${file} → ${dep}`);
    }
    expect(bad).toEqual([]);
  });

  it.each([
    ['commands/pets/list/list.ts', 'commands/pets/list/run.ts', true],
    ['commands/pets/pets.ts', 'commands/pets/create/create.ts', true],
    ['commands/config/set/set.ts', 'commands/config/shared/key-argument.ts', true],
    ['commands/pets/create/run.ts', 'commands/pets/shared/watch-deprecation.ts', true],
    ['commands/pets/create/from-file.ts', 'commands/pets/create/sender.ts', true],
    ['commands/pets/create/sender.ts', 'commands/pets/shared/watch-deprecation.ts', true],
    ['commands/pets/shared/a.ts', 'commands/pets/shared/b.ts', true],
    ['commands/pets/create/create.ts', 'commands/runner.ts', true],
    ['commands/api/api.ts', 'commands/api/run.ts', true],
    ['commands/pets/create/run.ts', 'commands/pets/list/run.ts', false],
    ['commands/pets/list/run.ts', 'commands/pets/create/sender.ts', false],
    ['commands/pets/create/create.ts', 'commands/pets/get/get.ts', false],
    ['commands/pets/shared/a.ts', 'commands/pets/create/run.ts', false],
    ['commands/pets/shared/a.ts', 'commands/pets/pets.ts', false],
    ['commands/pets/pets.ts', 'commands/pets/create/run.ts', false],
    ['commands/auth/login/run.ts', 'commands/pets/shared/watch-deprecation.ts', false],
    ['commands/completion/completion.ts', 'commands/completion/run.ts', true],
    ['commands/completion/completion.ts', 'commands/pets/shared/a.ts', false],
    ['commands/api/run.ts', 'commands/pets/shared/written.ts', false],
  ])('the rule itself: %s → %s allowed: %s', (file, dep, ok) => {
    expect(commandImportAllowed(file, dep)).toBe(ok);
  });

  it('nothing below commands imports the command layer, the factory or the program', () => {
    const top = ['cli.ts', 'cli-entry.ts', 'program.ts', 'factory.ts'];
    // The files at the top of commands/ (the runner, the traits, the tree's walks, the flags of inputs) serve every command.
    const shared = (dep: string): boolean => posix.dirname(dep) === 'commands';
    const bad: string[] = [];
    for (const [file, deps] of Object.entries(graph)) {
      if (file.startsWith('commands/') || top.includes(file) || file === 'global-options.ts') continue;
      for (const dep of deps)
        if ((dep.startsWith('commands/') && !shared(dep)) || top.includes(dep)) bad.push(`${file} → ${dep}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('start-up path', () => {
  /** Modules reached from `file` through static value imports (what `--help` loads). */
  function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const queue = [entry];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const stmt of parse(file).statements) {
        if (!ts.isImportDeclaration(stmt) || stmt.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
        const bindings = stmt.importClause?.namedBindings;
        if (
          stmt.importClause?.name === undefined &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.every((e) => e.isTypeOnly)
        )
          continue;
        const spec = (stmt.moduleSpecifier as ts.StringLiteral).text;
        if (spec.startsWith('.'))
          queue.push(posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
        else packages.add(spec);
      }
    }
    return { files: seen, packages };
  }

  /** A command's run modules (`<verb>/run.ts`): loaded only when the command runs, with what they import. */
  const runModules = (loaded: Set<string>): string[] =>
    [...loaded].filter((f) => f.startsWith('commands/') && posix.basename(f) === 'run.ts');

  it('the program and every declaration load no run module and no heavy library', () => {
    const { files: loaded, packages } = staticClosure('cli.ts');
    expect(runModules(loaded)).toEqual([]);
    const heavy = [
      'zod',
      'undici',
      'cli-table3',
      'conf',
      'lossless-json',
      'proper-lockfile',
      'chalk',
      'jq-wasm',
      '@modelcontextprotocol',
    ];
    expect([...packages].filter((p) => heavy.some((h) => p === h || p.startsWith(`${h}/`)))).toEqual([]);
    expect([...packages].filter((p) => p.startsWith('@inquirer/') || p.startsWith('write-file-atomic'))).toEqual([]);
    // program.ts is reached only dynamically from cli.ts; check its own closure too.
    const program = staticClosure('program.ts');
    expect(runModules(program.files)).toEqual([]);
    // The rule sees what it is for: the declarations are reached, and their runs exist.
    expect(program.files).toContain('commands/pets/list/list.ts');
    expect(files).toContain('commands/pets/list/run.ts');
    expect([...program.packages].filter((p) => heavy.some((h) => p === h || p.startsWith(`${h}/`)))).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  // The layout is the "Layers" section; later sections name folders of examples yet to be made.
  const doc =
    readFileSync(join(root, 'docs/architecture.md'), 'utf8').split('\n## Layers\n')[1]?.split('\n## ')[0] ?? '';
  /** The folders the layout names (`src/http/`, `src/commands/<noun>/<verb>/`), `<name>` standing for any one folder. */
  const named = [...new Set([...doc.matchAll(/\bsrc\/[\w<>/-]*\//g)].map((m) => m[0]))];
  const patternOf = (path: string): RegExp => new RegExp(`^${path.replace(/<[^>]+>/g, '[^/]+').replace(/\/$/, '')}$`);
  const srcFolders = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => posix.join('src', posix.relative(src, join(e.parentPath, e.name)).split('\\').join('/')));

  it('names only folders that exist', () => {
    expect(named.length).toBeGreaterThan(5);
    const missing = named.filter((path) => !srcFolders.some((folder) => patternOf(path).test(folder)));
    expect(missing).toEqual([]);
  });

  it('names every folder of src/', () => {
    expect(srcFolders).toContain('src/commands/pets/list');
    const unnamed = srcFolders.filter((folder) => !named.some((path) => patternOf(path).test(folder)));
    expect(unnamed).toEqual([]);
  });
});

describe('code shape', () => {
  it('every folder under commands/ is a command (with its declaration, named after it) or a shared/ folder', () => {
    const folders = new Set(files.filter((f) => f.startsWith('commands/')).map((f) => posix.dirname(f)));
    folders.delete('commands');
    const bad = [...folders].filter(
      (folder) => posix.basename(folder) !== 'shared' && !files.includes(`${folder}/${posix.basename(folder)}.ts`),
    );
    expect(bad).toEqual([]);
    // Only what every command uses sits at the top of commands/: every command has a folder of its own.
    expect(files.filter((f) => posix.dirname(f) === 'commands').sort()).toEqual([
      'commands/options.ts',
      'commands/path.ts',
      'commands/runner.ts',
      'commands/traits.ts',
    ]);
  });

  it('no function in src/ is longer than 80 lines', () => {
    const long: string[] = [];
    for (const file of files) {
      const sf = parse(file);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
          const start = sf.getLineAndCharacterOfPosition(node.getStart()).line;
          const end = sf.getLineAndCharacterOfPosition(node.end).line;
          if (end - start + 1 > 80) long.push(`${file}:${start + 1} (${end - start + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(long).toEqual([]);
  });

  it('commands take typed options, not an untyped bag', () => {
    const bags = files.filter((f) => f.startsWith('commands/') && /\w+\??: Record<string, unknown>[,)]/.test(text(f)));
    expect(bags).toEqual([]);
  });

  it('only cli-entry.ts exits the process or installs process-wide handlers', () => {
    const offenders = files.filter(
      (f) => f !== 'cli-entry.ts' && /process\.(exit|on|once)\(|process\.exitCode\s*=/.test(text(f)),
    );
    expect(offenders).toEqual([]);
  });

  it("nothing but Io's own module (io.ts, io/) writes to stdout or stderr", () => {
    // Records, messages, the progress line and the pager go through Io, which decides text
    // or JSON and keeps the progress line off every other line (docs/architecture.md).
    const writes = /\b(?:stdout|stderr)\??\.write\(/;
    const offenders = files.filter((f) => !f.startsWith('io/') && writes.test(text(f)));
    expect(offenders).toEqual([]);
    // The rule sees what it is for.
    expect(writes.test('ctx.io.stderr.write(`x`)')).toBe(true);
    expect(writes.test('process.stdout?.write(s)')).toBe(true);
    expect(writes.test('child.stdout.on("data", f)')).toBe(false);
  });

  it('only cli-entry.ts hands process.env to main; only config/ reads an environment', () => {
    const offenders = files.filter((f) => /process\.env\b/.test(text(f)));
    expect(offenders.filter((f) => !f.startsWith('config/') && f !== 'cli-entry.ts')).toEqual([]);
  });

  it('the root of src/ holds only the process glue, at most 8 files; the rest lives in folders named for what they are', () => {
    const top = files.filter((f) => !f.includes('/')).sort();
    expect(top).toEqual(['cli-entry.ts', 'cli.ts', 'context.ts', 'factory.ts', 'global-options.ts', 'program.ts']);
    expect(top.length).toBeLessThanOrEqual(8);
  });

  it('the build entry exists where the shim expects it', () => {
    expect(files).toContain('cli-entry.ts');
    expect(dirname(join(src, 'cli-entry.ts'))).toBe(src);
  });
});

/**
 * Where `file` reads an environment: `process.env` itself, or a value typed as one
 * (`NodeJS.ProcessEnv`, config's `RawEnv`) that is looked into (`env.X`, `env['X']`,
 * `const { X } = env`, `{ ...env }`, `Object.keys(env)`, `for (k in env)`). Handing such a
 * value on (`new EnvVars(env)`, `{ env: process.env }`) is not a read, except for
 * `process.env` outside cli-entry.ts.
 */
function environmentReads(program: ts.Program, sf: ts.SourceFile, mayTouchProcessEnv: boolean): string[] {
  const checker = program.getTypeChecker();
  const isEnvType = (node: ts.Node): boolean => {
    const type = checker.getTypeAtLocation(node);
    const name = type.aliasSymbol?.name ?? type.getSymbol()?.name;
    return name === 'ProcessEnv' || name === 'RawEnv';
  };
  const reads: string[] = [];
  const at = (node: ts.Node, what: string): void => {
    reads.push(
      `${sf.fileName.replace(/^.*\/src\//, '')}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`,
    );
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === 'env' &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'process' &&
      !mayTouchProcessEnv
    ) {
      at(node, 'process.env');
    }
    const { parent } = node;
    if ((ts.isIdentifier(node) || ts.isPropertyAccessExpression(node)) && isEnvType(node)) {
      const lookedInto =
        ((ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) &&
          parent.expression === node) ||
        ts.isSpreadAssignment(parent) ||
        ts.isSpreadElement(parent) ||
        (ts.isForInStatement(parent) && parent.expression === node) ||
        (ts.isVariableDeclaration(parent) && parent.initializer === node && !ts.isIdentifier(parent.name)) ||
        (ts.isCallExpression(parent) &&
          ts.isPropertyAccessExpression(parent.expression) &&
          parent.expression.expression.getText() === 'Object');
      if (lookedInto) at(node, node.getText());
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return reads;
}

function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  return ts.parseJsonConfigFileContent(read.config as object, ts.sys, root).options;
}

// A type-checked program per test: a loaded machine took 6 s for a snippet's; only a hang takes two minutes.
describe('environment variables', { timeout: 120_000 }, () => {
  it('no module outside config/ reads an environment: not process.env, not the env object it is handed', () => {
    const program = ts.createProgram(
      files.map((f) => join(src, f)),
      compilerOptions(),
    );
    const reads = files
      .filter((f) => !f.startsWith('config/'))
      .flatMap((f) => {
        const sf = program.getSourceFile(join(src, f));
        return sf === undefined ? [`${f}: not compiled`] : environmentReads(program, sf, f === 'cli-entry.ts');
      });
    expect(reads).toEqual([]);
    // A type-checked program of all of src/: a loaded machine took 62 s; only a hang takes five minutes.
  }, 300_000);

  it.each([
    ['env.HOME', 'export const f = (env: NodeJS.ProcessEnv) => env.HOME;', 1],
    ["env['HOME']", "export const f = (env: NodeJS.ProcessEnv) => env['HOME'];", 1],
    ['deps.env.HOME', 'export const f = (deps: { env: NodeJS.ProcessEnv }) => deps.env.HOME;', 1],
    ['destructuring', 'export const f = (env: NodeJS.ProcessEnv) => { const { HOME } = env; return HOME; };', 1],
    ['a spread', 'export const f = (env: NodeJS.ProcessEnv) => ({ ...env });', 1],
    ['Object.keys', 'export const f = (env: NodeJS.ProcessEnv) => Object.keys(env);', 1],
    ['process.env.HOME', 'export const f = () => process.env.HOME;', 2],
    ['handing it on', 'declare function g(e: NodeJS.ProcessEnv): void; export const f = () => g(process.env);', 1],
    ['passing it in an object', 'export const f = (env: NodeJS.ProcessEnv) => ({ env });', 0],
  ])('the rule itself: %s → %i reads', (_name, code, count) => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-arch-'));
    try {
      const file = join(dir, 'snippet.ts');
      writeFileSync(file, code);
      const program = ts.createProgram([file], {
        ...compilerOptions(),
        typeRoots: [join(root, 'node_modules/@types')],
      });
      const sf = program.getSourceFile(file);
      expect(sf).toBeDefined();
      if (sf !== undefined) expect(environmentReads(program, sf, false)).toHaveLength(count);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

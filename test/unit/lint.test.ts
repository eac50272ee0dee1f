/**
 * `npm run lint` runs knip (knip.jsonc) after ESLint, so dead code fails it. Checked here
 * on a copy of the project with dead code of every kind added: knip must name each piece,
 * and nothing else (the project itself has none), while an export that only a test imports
 * counts as used.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KNIP = join(root, 'node_modules', 'knip', 'bin', 'knip.js');
/** What is not the project's source: not copied (node_modules is linked). */
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'dist-exe', 'coverage', '.petstore-bench']);
/** A limit for a hang, not for speed: knip takes ~7 s here alone, far more on two busy cores. */
const KNIP_TIMEOUT_MS = 150_000;

afterAll(() => removeTempDirs());

/** A copy of the project's source in a temporary folder, sharing its node_modules. */
function projectCopy(): string {
  const copy = tempDir('petstore-knip-');
  cpSync(root, copy, {
    recursive: true,
    filter: (from) => !NOT_COPIED.has(basename(from)) && !basename(from).startsWith('dist.'),
  });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

interface KnipIssue {
  file: string;
  [kind: string]: unknown;
}

/** Runs knip with the project's configuration in `dir`: its exit code and JSON report. */
function runKnip(dir: string): Promise<{ code: number; issues: KnipIssue[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [KNIP, '--reporter', 'json', '--no-progress'],
      { cwd: dir, encoding: 'utf8', timeout: KNIP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        if (code !== 0 && code !== 1) {
          reject(new Error(`knip failed (${err?.message ?? ''}): ${stderr}`));
          return;
        }
        resolve({ code, issues: (JSON.parse(stdout) as { issues: KnipIssue[] }).issues, stderr });
      },
    );
  });
}

/** Every finding as `kind file name`, sorted. */
function findings(issues: KnipIssue[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    for (const [kind, items] of Object.entries(issue)) {
      if (!Array.isArray(items)) continue;
      for (const item of items as { name: string }[]) out.push(`${kind} ${issue.file} ${item.name}`);
    }
  }
  return out.sort();
}

describe('npm run lint', () => {
  it('runs knip after ESLint', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toMatch(/^eslint .* && knip$/);
  });

  it(
    'fails on an unused export, exported type, file and dependency, and on nothing else',
    async () => {
      const copy = projectCopy();
      appendFileSync(
        join(copy, 'src', 'base', 'json.ts'),
        '\nexport const deadValue = 1;\nexport type DeadType = string;\n',
      );
      writeFileSync(join(copy, 'src', 'dead-file.ts'), 'export const nobodyImportsThis = 1;\n');
      // Used by a test only: tests are entries, so this is not dead.
      writeFileSync(join(copy, 'src', 'tested.ts'), 'export const usedByATest = 1;\n');
      writeFileSync(
        join(copy, 'test', 'unit', 'tested.test.ts'),
        "import { expect, it } from 'vitest';\nimport { usedByATest } from '../../src/tested.js';\n\nit('is 1', () => expect(usedByATest).toBe(1));\n",
      );
      const pkgFile = join(copy, 'package.json');
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { devDependencies: Record<string, string> };
      pkg.devDependencies['left-pad'] = '1.3.0';
      writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));

      const r = await runKnip(copy);
      expect(findings(r.issues), r.stderr).toEqual([
        'devDependencies package.json left-pad',
        'exports src/base/json.ts deadValue',
        'files src/dead-file.ts src/dead-file.ts',
        'types src/base/json.ts DeadType',
      ]);
      expect(r.code).toBe(1);
    },
    KNIP_TIMEOUT_MS + 30_000,
  );
});

/**
 * The notices of the C code inside jq.wasm are listed by hand (scripts/build/notices.mjs),
 * from licence texts kept for one jq version and one jq-wasm build (its Emscripten): the
 * build must stop when jq-wasm brings another jq or another build, rather than ship new
 * code under the old one's notices. Run as the build runs
 * it, in a Node process, against a project folder whose jq-wasm is a real package.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectJqNotices } from '../helpers/notices.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const NOTICES = fileURLToPath(new URL('../../scripts/build/notices.mjs', import.meta.url));

afterAll(() => removeTempDirs());

/** A project folder holding jq-wasm at `version`. */
function projectWith(version: string): string {
  const root = tempDir('petstore-notices-');
  writeFileSync(join(root, 'package.json'), '{"name":"p","version":"1.0.0"}');
  mkdirSync(join(root, 'node_modules', 'jq-wasm'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'jq-wasm', 'package.json'), JSON.stringify({ name: 'jq-wasm', version }));
  return root;
}

/** Runs `jqNotices(root)` in a Node process: its entries' texts joined, or its error. */
function jqNotices(root: string): { status: number | null; stdout: string; stderr: string } {
  const script =
    'import(process.argv[1]).then((m) => process.stdout.write(m.jqNotices(process.argv[2]).map((e) => `  ${e.name} ${e.version} (${e.license})\\n${e.text}`).join("\\n")))' +
    '.catch((e) => { process.stderr.write(e.message); process.exitCode = 1; })';
  const r = spawnSync(process.execPath, ['-e', script, NOTICES, root], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the notices of jq.wasm', () => {
  it('are jq 1.8.2’s COPYING, Oniguruma 6.9.10’s, Emscripten 6.0.0’s and its musl’s, for jq-wasm 3.0.0-jq-1.8.2', () => {
    const r = jqNotices(projectWith('3.0.0-jq-1.8.2'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expectJqNotices(r.stdout);
  });

  it.each(['3.1.0-jq-1.8.3', '3.0.0'])('stop the build for jq-wasm %s', (version) => {
    const r = jqNotices(projectWith(version));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`jq-wasm ${version} carries jq`);
    expect(r.stdout).toBe('');
  });

  // The Emscripten notices are for one jq-wasm build: a release with the same jq may have
  // been built with another Emscripten (and so another musl).
  it.each(['3.0.1-jq-1.8.2', '2.0.0-jq-1.8.2'])('stop the build for jq-wasm %s, the same jq built again', (version) => {
    const r = jqNotices(projectWith(version));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`jq-wasm ${version} may be built with another Emscripten`);
    expect(r.stdout).toBe('');
  });
});

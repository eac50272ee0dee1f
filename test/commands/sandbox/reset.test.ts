/**
 * `sandbox reset`: the seed restored (and ids starting again after it), and what it repairs:
 * a corrupt sandbox.json or a damaged journal line, which `--env sandbox` reads and creates
 * refuse with exit 2, naming the file and `petstore sandbox reset`, leaving it byte for
 * byte. In-process (`runMain`) on real temp directories.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inSandbox, sandboxCreated, sandboxListed, SEED_TSV } from '../../helpers/harness.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/** `petstore sandbox reset` on the sandbox data in `dir`. */
const resetIn = (dir: string) => runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } });

describe.concurrent('sandbox reset', () => {
  it('sandbox reset restores the seed', async () => {
    const dir = tempDir();
    expect((await inSandbox(dir, ['pets', 'create', '--name', 'Temp', '--category-id', '1'])).code).toBe(0);
    expect((await inSandbox(dir, ['pets', 'list'])).stdout.split('\n')).toHaveLength(12);
    const reset = await resetIn(dir);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe('');
    expect(reset.stderr).toContain('10 seed pets');
    expect(reset.stderr).toContain(join(dir, 'sandbox.json'));
    const after = await inSandbox(dir, ['pets', 'list']);
    expect(after.stdout).toBe(SEED_TSV.join('\n') + '\n');
    // Ids start again after the seed.
    const again = await inSandbox(dir, ['pets', 'create', '--name', 'Again', '--category-id', '2']);
    expect(again.stdout).toBe('10\tAgain\t2\tavailable\n');
  });

  it('a corrupt sandbox.json → exit 2 with its path and a hint; bytes unchanged; reset repairs it', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.json');
    const corrupt = '{"nextId": 12, "pets": [ {"id": 1, "name": "Rex"';
    writeFileSync(file, corrupt);
    const [list, create] = await Promise.all([
      inSandbox(dir, ['pets', 'list']),
      inSandbox(dir, ['pets', 'create', '--name', 'X', '--category-id', '1']),
    ]);
    for (const r of [list, create]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(file);
      expect(r.stderr).toContain('petstore sandbox reset');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(file, 'utf8')).toBe(corrupt);

    // Valid JSON that is not sandbox data is refused the same way.
    writeFileSync(file, '{"pets": "none"}');
    const wrong = await inSandbox(dir, ['pets', 'list', '--json']);
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stderr.trim())).toMatchObject({ code: 'config', status: 0 });
    expect(readFileSync(file, 'utf8')).toBe('{"pets": "none"}');

    expect((await resetIn(dir)).code).toBe(0);
    expect((await inSandbox(dir, ['pets', 'list'])).stdout).toBe(SEED_TSV.join('\n') + '\n');
  });

  it('→ exit 2 naming the journal and the line, for reads and creates; reset repairs it', async () => {
    const dir = tempDir();
    const journal = join(dir, 'sandbox.json.journal');
    await sandboxCreated(dir, 'Kept');
    appendFileSync(journal, 'not a pet\n');
    const damaged = readFileSync(journal, 'utf8');
    for (const args of [
      ['pets', 'list'],
      ['pets', 'create', '--name', 'X', '--category-id', '1'],
    ]) {
      const r = await inSandbox(dir, args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${journal}: line 3`);
      expect(r.stderr).toContain('petstore sandbox reset');
      expect(r.stderr).not.toMatch(/looks like a bug|HTTP 500/);
    }
    // Reported, not rewritten.
    expect(readFileSync(journal, 'utf8')).toBe(damaged);
    const reset = await resetIn(dir);
    expect(reset.code).toBe(0);
    expect(await sandboxListed(dir)).toHaveLength(10);
  });
});

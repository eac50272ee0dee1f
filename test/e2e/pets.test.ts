/**
 * Processes racing on one sandbox data file: 20 `pets create` runs of the built CLI at once
 * (`runCli`), each starting its own embedded sandbox, get 20 distinct ids and all are kept.
 * What `pets list|get|create` do in one run is test/commands/pets/.
 */
import { parse as losslessParse } from 'lossless-json';
import { afterAll, describe, expect, it } from 'vitest';
import { inSandbox } from '../helpers/harness.js';
import { runCli } from '../helpers/run-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

/** `petstore --env sandbox ...args` as a process of its own (the built CLI), its data in `dir`. */
function sandboxProcess(dir: string, args: string[]) {
  return runCli(['--env', 'sandbox', ...args], { env: { PETSTORE_CONFIG_DIR: dir } });
}

afterAll(() => removeTempDirs());

describe('creating pets in parallel processes', () => {
  it('20 creates in parallel processes get 20 distinct ids, all kept', async () => {
    const dir = tempDir();
    expect((await inSandbox(dir, ['pets', 'list', '--limit', '1'])).code).toBe(0);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sandboxProcess(dir, ['pets', 'create', '--name', `Par${i}`, '--category-id', String(100 + i), '-o', 'ndjson']),
      ),
    );
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const created = results.map((r) => losslessParse(r.stdout) as { id: unknown; name: string });
    const ids = created.map((p) => String(p.id));
    expect(new Set(ids).size).toBe(20);
    expect(ids.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));

    const listed = await inSandbox(dir, ['pets', 'list', '--limit', '100']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(30);
    const names = new Set(lines.map((l) => l.split('\t')[1]));
    for (let i = 0; i < 20; i++) expect(names.has(`Par${i}`), `Par${i} kept`).toBe(true);
  });
});

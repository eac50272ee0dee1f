/**
 * The built bundle prints the same help as the sources: one spawned run (`runCli`) of
 * `petstore help pets create` against the in-process run. Help itself (examples, `help
 * COMMAND`, suggestions) is test/commands/help.test.ts; `--help` alone on the fast path is
 * test/e2e/fast-path.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';

describe('help of the built CLI', () => {
  it('the built CLI prints the same help as the sources', async () => {
    const args = ['help', 'pets', 'create'];
    const [built, inProcess] = await Promise.all([runCli(args), runMain(args)]);
    expect(built.code).toBe(0);
    expect(built.stderr).toBe('');
    expect(built.stdout).toContain('Usage: petstore pets create');
    expect(built.stdout).toBe(inProcess.stdout);
  });
});

/**
 * What petstore starts gets none of its secrets (cli-contract.md "Environments": a key is
 * never shown; env-vars.ts: `secret` variables stay out of child processes): the pager, an
 * environment's `apiKeyCommand`, and jq (a worker thread, whose `$ENV` and `env` a filter
 * could print) never see PETSTORE_API_KEY, while what they need (PATH, LESS, the rest of
 * the environment) passes.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { remoteEnv } from '../helpers/harness.js';
import { pagingServerPool } from '../helpers/paging-server.js';
import { runCli } from '../helpers/run-cli.js';
import { runMain } from '../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

const KEY = 'pk_test_children_0123456789';
const paging = pagingServerPool();

afterAll(async () => {
  await paging.closeAll();
  removeTempDirs();
});

/** The environment a child saw, as `env` printed it: NAME=value per line. */
function seenEnv(file: string): Map<string, string> {
  return new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('children petstore starts get no secret of its own', () => {
  it('the pager: no PETSTORE_API_KEY, but LESS and the rest of the environment', async () => {
    const server = await paging.start({ pages: 2, perPage: 20 });
    const dir = tempDir();
    const seen = join(dir, 'pager-env');
    const r = await runMain(['pets', 'list', '--all'], {
      env: remoteEnv(server.baseUrl, KEY, {
        PETSTORE_CONFIG_DIR: dir,
        PETSTORE_PAGER: `env > '${seen}'; cat > /dev/null`,
        KEEP_ME: 'kept',
      }),
      tty: true,
      rows: 10,
    });
    expect(r.code, r.stderr).toBe(0);
    const env = seenEnv(seen);
    expect(env.has('PETSTORE_API_KEY')).toBe(false);
    expect([...env.values()].join('\n')).not.toContain(KEY);
    expect(env.get('LESS')).toBe('FRX');
    expect(env.get('KEEP_ME')).toBe('kept');
  });

  it("an apiKeyCommand run by the built CLI, whose own environment holds the key: not in the command's", async () => {
    const dir = tempDir();
    const seen = join(dir, 'command-env');
    const command = join(dir, 'print-key');
    writeFileSync(command, `#!/bin/sh\nenv > '${seen}'\necho pk_from_command_0123456789\n`);
    chmodSync(command, 0o700);
    const env = { PETSTORE_CONFIG_DIR: dir, KEEP_ME: 'kept' };
    expect((await runCli(['config', 'set', 'staging.apiKeyCommand', command], { env })).code).toBe(0);
    expect((await runCli(['config', 'set', 'staging.baseUrl', 'https://staging.example.com/v1'], { env })).code).toBe(
      0,
    );
    // PETSTORE_API_KEY supplies the selected environment's key; the other's command still
    // runs for `auth status`.
    const r = await runCli(['auth', 'status'], {
      env: { ...env, PETSTORE_API_KEY: KEY },
      secrets: ['pk_from_command_0123456789'],
    });
    expect(r.code, r.stderr).toBe(0);
    const seenByCommand = seenEnv(seen);
    expect(seenByCommand.has('PETSTORE_API_KEY')).toBe(false);
    expect(seenByCommand.get('KEEP_ME')).toBe('kept');
  });

  it('jq: neither $ENV nor env shows the key, nor any variable of petstore', async () => {
    const dir = tempDir();
    const r = await runCli(['--env', 'sandbox', 'pets', 'list', '--limit', '1', '--jq', '[$ENV, env] | map(keys)'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_API_KEY: KEY, PETSTORE_DEBUG: '0', KEEP_ME: 'kept' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('PETSTORE');
    expect(r.stdout).not.toContain(KEY);
  });
});

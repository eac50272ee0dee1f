/**
 * `config get KEY`: a stored value, the default for environment, exit 1 for a base URL not set,
 * and the warning about a config file other users can read. In-process (`runMain`).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freshConfig } from '../../helpers/harness.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs } from '../../helpers/temp-config.js';

afterAll(removeTempDirs);

describe.concurrent('config get', () => {
  it('prints the default for environment, exits 1 for an unset base URL', async () => {
    const { env } = freshConfig();
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'production\n' });
    const json = await runMain(['config', 'get', 'environment', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({ key: 'environment', value: 'production', source: 'default' });
    const unset = await runMain(['config', 'get', 'staging.baseUrl'], { env });
    expect(unset).toMatchObject({ code: 1, stdout: '' });
    expect(unwrapped(unset.stderr)).toContain('staging.baseUrl is not set');
  });

  it('warns about a config file other users can read, naming the chmod that fixes it', async () => {
    const { dir, file, env } = freshConfig();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, JSON.stringify({ environment: 'staging' }));
    chmodSync(file, 0o644);
    const r = await runMain(['config', 'get', 'environment'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('staging\n');
    expect(unwrapped(r.stderr)).toContain(`warning: the config file ${file} can be read by other users (mode 0644)`);
    expect(unwrapped(r.stderr)).toContain(`chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const quiet = await runMain(['config', 'get', 'environment'], { env });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});

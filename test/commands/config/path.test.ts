/**
 * `config path` and where the config file lives without PETSTORE_CONFIG_DIR:
 * $XDG_CONFIG_HOME/petstore/config.json, else ~/.config/petstore/config.json (cli-contract.md
 * "The config file"). In-process (`runMain`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';

afterAll(removeTempDirs);

const mode = (path: string): number => statSync(path).mode & 0o777;

describe.concurrent('where the config file lives', () => {
  it('uses $XDG_CONFIG_HOME/petstore/config.json without PETSTORE_CONFIG_DIR (no -nodejs suffix)', async () => {
    const xdg = tempDir();
    const home = tempDir();
    const env = { XDG_CONFIG_HOME: xdg, HOME: home };
    const path = await runMain(['config', 'path'], { env });
    expect(path).toMatchObject({ code: 0, stdout: `${join(xdg, 'petstore', 'config.json')}\n`, stderr: '' });
    const set = await runMain(['config', 'set', 'environment', 'staging'], { env });
    expect(set.code).toBe(0);
    const file = join(xdg, 'petstore', 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ environment: 'staging' });
    expect(mode(join(xdg, 'petstore'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(existsSync(join(xdg, 'petstore-nodejs'))).toBe(false);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });

  it('falls back to ~/.config/petstore/config.json without XDG_CONFIG_HOME', async () => {
    const home = tempDir();
    const r = await runMain(['config', 'path'], { env: { HOME: home } });
    expect(r).toMatchObject({ code: 0, stdout: `${join(home, '.config', 'petstore', 'config.json')}\n`, stderr: '' });
  });
});

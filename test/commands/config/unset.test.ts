/**
 * `config unset KEY`: removes the key, idempotent, the defaults showing through again.
 * In-process (`runMain`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freshConfig } from '../../helpers/harness.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs } from '../../helpers/temp-config.js';

afterAll(removeTempDirs);

describe.concurrent('config unset', () => {
  it('is idempotent, and leaves the defaults showing through', async () => {
    const { file, env } = freshConfig();
    await runMain(['config', 'set', 'environment', 'sandbox'], { env });
    await runMain(['config', 'set', 'staging.baseUrl', 'http://127.0.0.1:9/v1'], { env });
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'sandbox\n' });
    expect((await runMain(['config', 'unset', 'environment'], { env })).code).toBe(0);
    expect((await runMain(['config', 'unset', 'environment'], { env })).code).toBe(0);
    expect((await runMain(['config', 'unset', 'staging.baseUrl'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
    expect(await runMain(['config', 'get', 'environment'], { env })).toMatchObject({ code: 0, stdout: 'production\n' });
    expect((await runMain(['config', 'get', 'production.apiKey'], { env })).code).toBe(2);
  });
});

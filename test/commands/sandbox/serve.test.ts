/**
 * `sandbox serve`: the embedded sandbox as a server of its own, its base URL and key on
 * stdout; with `--without-get-pet` it plays the API after getPet's removal (410 Gone), and
 * it stops at its signal as Ctrl-C stops it (exit 130). In-process (`runMain`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';

afterAll(() => removeTempDirs());

describe('sandbox serve --without-get-pet', () => {
  it('serves getPet as 410 Gone and says so when it starts', async () => {
    const controller = new AbortController();
    let out = '';
    let err = '';
    let ready: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const run = runMain(['sandbox', 'serve', '--without-get-pet'], {
      env: { PETSTORE_CONFIG_DIR: tempDir() },
      signal: controller.signal,
      onOutput: (stream, text) => {
        if (stream === 'stdout') out += text;
        else err += text;
        if (out.includes('PETSTORE_API_KEY=') && err.includes('Ctrl-C stops it')) ready();
      },
    });
    await started;
    expect(err).toContain('getPet removed: it answers 410 Gone');
    const baseUrl = /^PETSTORE_BASE_URL=(.*)$/m.exec(out)?.[1] ?? '';
    const apiKey = /^PETSTORE_API_KEY=(.*)$/m.exec(out)?.[1] ?? '';
    const auth = { authorization: `Bearer ${apiKey}` };
    const gone = await fetch(`${baseUrl}/pets/1`, { headers: auth });
    const list = await fetch(`${baseUrl}/pets?limit=1`, { headers: auth });
    controller.abort();
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { code: string }).code).toBe('gone');
    expect(list.status).toBe(200);
    // Stopped by its signal, as Ctrl-C stops it: 130.
    expect((await run).code).toBe(130);
  });
});

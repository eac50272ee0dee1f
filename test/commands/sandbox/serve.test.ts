/**
 * `sandbox serve`: the embedded sandbox as a server of its own, its base URL and key on
 * stdout; with `--without-get-pet` it plays the API after getPet's removal (410 Gone), and
 * it stops at its signal as Ctrl-C stops it (exit 130). Its key: kept per data file across
 * restarts and resets, set by `PETSTORE_SANDBOX_KEY`, shown only where printed on purpose.
 * In-process (`runMain`) on real temp directories.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** A `sandbox serve` started on the data in `dir`, once it printed its base URL and key. */
async function serveIn(dir: string, env: Record<string, string> = {}) {
  const controller = new AbortController();
  let out = '';
  let err = '';
  let ready: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (ready = resolve));
  const run = runMain(['sandbox', 'serve'], {
    env: { PETSTORE_CONFIG_DIR: dir, ...env },
    signal: controller.signal,
    onOutput: (stream, text) => {
      if (stream === 'stdout') out += text;
      else err += text;
      if (out.includes('PETSTORE_API_KEY=') && err.includes('Ctrl-C stops it')) ready();
    },
  });
  await Promise.race([started, run]);
  const baseUrl = /^PETSTORE_BASE_URL=(.*)$/m.exec(out)?.[1] ?? '';
  const apiKey = /^PETSTORE_API_KEY=(.*)$/m.exec(out)?.[1] ?? '';
  const status = async (key: string) =>
    (await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status;
  const stop = async () => {
    controller.abort();
    return { ...(await run), stderr: err };
  };
  return { apiKey, status, stop };
}

describe.concurrent("the sandbox's key", () => {
  it('is kept per data file across a restart and a reset, in sandbox.json.key (0600), and is the embedded one', async () => {
    const dir = tempDir();
    const first = await serveIn(dir);
    expect(first.apiKey).toMatch(/^sbx_[0-9a-f]{32}$/);
    expect(await first.status(first.apiKey)).toBe(200);
    // The key is printed on stdout, on purpose, and nowhere else.
    expect((await first.stop()).stderr).not.toContain(first.apiKey);
    const file = join(dir, 'sandbox.json.key');
    expect(readFileSync(file, 'utf8')).toBe(`${first.apiKey}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const restarted = await serveIn(dir);
    expect(restarted.apiKey).toBe(first.apiKey);
    expect(await restarted.status(first.apiKey)).toBe(200);
    await restarted.stop();

    const reset = await runMain(['sandbox', 'reset'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(reset.code).toBe(0);
    expect(reset.stdout + reset.stderr).not.toContain(first.apiKey);
    // The embedded sandbox uses the same key, and never shows it.
    const listed = await runMain(['--env', 'sandbox', 'pets', 'list', '--verbose'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout + listed.stderr).not.toContain(first.apiKey);
    expect(readFileSync(file, 'utf8')).toBe(`${first.apiKey}\n`);

    const afterReset = await serveIn(dir);
    expect(afterReset.apiKey).toBe(first.apiKey);
    await afterReset.stop();

    // Another data file has a key of its own.
    const other = await serveIn(tempDir());
    expect(other.apiKey).not.toBe(first.apiKey);
    await other.stop();
  });

  it('its help says the key is kept and how to set it', async () => {
    const r = await runMain(['sandbox', 'serve', '--help'], { env: { PETSTORE_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(0);
    const said = r.stdout.replace(/\s+/g, ' ');
    expect(said).toContain('the same after a restart or a sandbox reset; PETSTORE_SANDBOX_KEY sets another');
  });

  it('runs that start together on a fresh data file agree on one key; no temporary file is left', async () => {
    const dir = tempDir();
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        runMain(['--env', 'sandbox', 'pets', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } }),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const kept = readFileSync(join(dir, 'sandbox.json.key'), 'utf8');
    expect(kept).toMatch(/^sbx_[0-9a-f]{32}\n$/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const served = await serveIn(dir);
    expect(`${served.apiKey}\n`).toBe(kept);
    await served.stop();
  });

  it('PETSTORE_SANDBOX_KEY sets it: served and accepted, the kept key refused, never written', async () => {
    const dir = tempDir();
    const kept = await serveIn(dir);
    await kept.stop();
    const mine = 'sbx_chosen_by_the_user';
    const served = await serveIn(dir, { PETSTORE_SANDBOX_KEY: mine });
    expect(served.apiKey).toBe(mine);
    expect(await served.status(mine)).toBe(200);
    expect(await served.status(kept.apiKey)).toBe(401);
    await served.stop();
    expect(readFileSync(join(dir, 'sandbox.json.key'), 'utf8')).toBe(`${kept.apiKey}\n`);
    const embedded = await runMain(['--env', 'sandbox', 'pets', 'list'], {
      env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_SANDBOX_KEY: mine },
    });
    expect(embedded.code).toBe(0);
  });

  it('a PETSTORE_SANDBOX_KEY a header cannot carry is exit 2, its value not shown', async () => {
    const bad = 'sbx secret with spaces';
    for (const argv of [
      ['sandbox', 'serve'],
      ['--env', 'sandbox', 'pets', 'list'],
    ]) {
      const r = await runMain(argv, { env: { PETSTORE_CONFIG_DIR: tempDir(), PETSTORE_SANDBOX_KEY: bad } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('PETSTORE_SANDBOX_KEY contains characters an HTTP header cannot carry');
      expect(r.stdout + r.stderr).not.toContain('secret');
    }
  });

  it('a key file that holds no key is exit 2 naming it, its content not shown; a link there is refused', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.json.key');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, 'two words\n', { mode: 0o600 });
    const r = await runMain(['--env', 'sandbox', 'pets', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    // Messages wrap at 80 columns.
    const said = r.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(`the sandbox's key file ${file} does not hold a key`);
    expect(said).not.toContain('two words');
    expect(readFileSync(file, 'utf8')).toBe('two words\n');

    const linked = tempDir();
    mkdirSync(linked, { recursive: true, mode: 0o700 });
    symlinkSync(file, join(linked, 'sandbox.json.key'));
    const viaLink = await runMain(['sandbox', 'serve'], { env: { PETSTORE_CONFIG_DIR: linked } });
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr.replace(/\s+/g, ' ')).toContain('is a symbolic link');
  });
});

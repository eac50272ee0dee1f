/**
 * src/http/undici.ts imports undici's internal `lib/` modules by path (the package has no
 * `exports` map; loading only these keeps fetch, WebSocket and the cache off the start-up
 * path). Internal paths can move in any release, so undici is pinned exactly and this test
 * loads every path the source names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const source = readFileSync(new URL('../../src/http/undici.ts', import.meta.url), 'utf8');
const paths = [...source.matchAll(/(?:from |import\()'(undici\/lib\/[^']+)'/g)].map((m) => m[1]!);
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

describe('undici internal paths', () => {
  it('the source imports some, statically and lazily', () => {
    expect(paths.length).toBeGreaterThanOrEqual(5);
  });

  it('undici is pinned to one exact version', () => {
    const range = pkg.dependencies?.undici ?? pkg.devDependencies?.undici;
    expect(range).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each(paths)('%s loads and exports a class or function', async (path) => {
    const mod = (await import(path)) as { default: unknown };
    expect(typeof mod.default).toBe('function');
  });

  it('the wrapper hands out a working Agent and request', async () => {
    const { Agent, request } = await import('../../src/http/undici.js');
    const agent = new Agent();
    expect(typeof agent.dispatch).toBe('function');
    expect(typeof request).toBe('function');
    await agent.close();
  });

  it('the lazily loaded proxy agent can tunnel (Dispatcher#connect installed)', async () => {
    const { loadProxyClasses } = await import('../../src/http/undici.js');
    const { ProxyAgent, Pool } = await loadProxyClasses();
    const agent = new ProxyAgent({ uri: 'http://127.0.0.1:9' });
    const pool = new Pool('http://127.0.0.1:9');
    expect(typeof (pool as unknown as { connect: unknown }).connect).toBe('function');
    await pool.close();
    expect(typeof (agent as unknown as { connect: unknown }).connect).toBe('function');
    await agent.close();
  });
});

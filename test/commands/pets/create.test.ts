/**
 * `pets create --name NAME --category-id ID` under the one retry policy (cli-contract.md
 * "Network behaviour"), in process against pet servers: a 429 is a refusal, so the POST is
 * sent again once its `Retry-After` has passed (the server checks the wait on its own
 * clock); a POST whose outcome is unknown is never sent twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startPetServer, type PetAnswer, type PetServer } from '../../helpers/pet-server.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { errorReply } from '../../helpers/test-server.js';

const KEY = 'pst_create_one_4Jk8Wn2Qx5';
const servers: PetServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  removeTempDirs();
});

async function petServer(decide: Parameters<typeof startPetServer>[0]): Promise<PetServer> {
  const s = await startPetServer(decide);
  servers.push(s);
  return s;
}

function create(s: PetServer, ...flags: string[]) {
  return runMain(['pets', 'create', '--name', 'Rex', '--category-id', '7', '-o', 'ndjson', ...flags], {
    env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: tempDir() },
  });
}

describe('pets create and the retry policy', () => {
  it('a 429 with Retry-After: 1 is a refusal: sent again no sooner, the pet created once', async () => {
    let refusedAt = 0;
    let waited = 0;
    const srv = await petServer(({ attempt }): PetAnswer => {
      if (attempt === 1) {
        refusedAt = performance.now();
        return { ...errorReply(429, 'rate_limited', 'slow down'), headers: { 'retry-after': '1' } };
      }
      waited = performance.now() - refusedAt;
      return 'create';
    });
    const r = await create(srv);
    expect(r.code, r.stderr).toBe(0);
    expect(srv.received()).toEqual(['Rex', 'Rex']);
    expect(srv.created()).toEqual(['Rex']);
    // The server's own clock: the second POST came at least a second after the refusal.
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(JSON.parse(r.stdout) as unknown).toMatchObject({ id: 1000, name: 'Rex', categoryId: 7 });
  });

  it('a POST whose outcome is unknown (the connection reset after it was sent) is never sent again', async () => {
    const srv = await petServer(() => 'destroy');
    const r = await create(srv, '--retries', '5');
    expect(r.code).toBe(3);
    expect(srv.received()).toEqual(['Rex']);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!) as unknown).toMatchObject({ code: 'network', status: 0 });
    expect(r.stderr).toContain('the pet may have been created');
  });
});

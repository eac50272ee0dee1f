/**
 * A real npm registry for install tests: Verdaccio on 127.0.0.1 with its storage in a temp
 * directory, no uplink (nothing it is asked for reaches the network), and one user created
 * through the registry's own API, whose token an `.npmrc` of the test's hands to npm.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running registry. */
export interface NpmRegistry {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** An npm user config (`npm_config_userconfig`) with the registry and the user's token. */
  npmrc: string;
  stop(): void;
}

const SERVER = fileURLToPath(new URL('./npm-registry-server.cjs', import.meta.url));

/**
 * Starts a registry whose files live under `dir` (an empty temp directory).
 * @throws Error when it does not start within 60 s or refuses to create the user.
 */
export async function startNpmRegistry(dir: string): Promise<NpmRegistry> {
  const config = join(dir, 'verdaccio.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [SERVER, config], { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`verdaccio did not start in 60 s: ${out}${log}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`verdaccio exited (${code}): ${out}${log}`));
    });
  });
  const url = `http://127.0.0.1:${port}/`;
  const res = await fetch(`${url}-/user/org.couchdb.user:publisher`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'publisher', password: 'a-test-password-1' }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 201 || body.token === undefined) throw new Error(`verdaccio refused the user: ${res.status}`);
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`, { mode: 0o600 });
  return {
    url,
    npmrc,
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

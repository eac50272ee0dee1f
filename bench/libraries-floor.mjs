// The libraries' floor: what undici and zod cost on their own, loaded as petstore loads
// them. One GET with undici's Agent and request (imported by path, as src/http/undici.ts
// does), the body validated with zod as an array of the spec's Pet, printed as JSON.
// bench/prepare.mjs bundles it with petstore's own build options (scripts/build/bundle.mjs)
// and bench/cached-script.cjs runs it with a code cache, as bin/petstore.js runs the CLI:
// the least a `pets list --json` on these libraries can cost. Usage (bundled): node
// bench/cached-script.cjs libraries-floor.cjs URL (an Authorization header from
// PETSTORE_API_KEY).
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import { Pets } from './floor-schema.mjs';

async function main() {
  const agent = new Agent();
  const url = new URL(process.argv[2]);
  const { statusCode, body } = await apiRequest.call(agent, {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: { authorization: `Bearer ${process.env.PETSTORE_API_KEY ?? ''}`, accept: 'application/json' },
  });
  const pets = Pets.parse(await body.json());
  if (statusCode !== 200) process.exitCode = 1;
  process.stdout.write(`${JSON.stringify(pets)}\n`);
  await agent.close();
}
main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});

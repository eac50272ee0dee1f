// The card floor: the least any CLI built on petstore's libraries can do for `pets list
// --json`: one GET with undici's `request`, the body validated with zod as an array of the
// spec's Pet, printed as JSON. bench/run.mjs bundles this file with esbuild (`--bundle
// --platform=node --format=cjs --minify-whitespace --minify-syntax`) and runs it with
// V8's `--liftoff-only` set before it loads (undici's WebAssembly parser then skips its
// optimising compile, as petstore's shim arranges). Usage: node card-floor.cjs URL (an
// Authorization header from PETSTORE_API_KEY).
import { request } from 'undici';
import { Pets } from './floor-schema.mjs';

// A function, not top-level await: the bundle is CommonJS.
async function main() {
  const { statusCode, body } = await request(process.argv[2], {
    headers: { authorization: `Bearer ${process.env.PETSTORE_API_KEY ?? ''}`, accept: 'application/json' },
  });
  const pets = Pets.parse(await body.json());
  if (statusCode !== 200) process.exitCode = 1;
  process.stdout.write(`${JSON.stringify(pets)}\n`);
}
main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});

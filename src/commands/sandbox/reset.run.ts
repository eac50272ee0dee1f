/** `petstore sandbox reset`: restores the sandbox data file to its seed pets. */
import type { Context } from '../../context.js';
import { sandboxDataFile } from '../../config/paths.js';
import { SandboxStore } from '../../sandbox/store.js';

/** Resets the data (under the store's lock) and says so on stderr. */
export async function runReset(ctx: Context): Promise<number> {
  const store = new SandboxStore(sandboxDataFile(ctx.env));
  const data = await store.reset();
  ctx.io.stderr.write(`sandbox reset: ${data.pets.length} seed pets in ${store.file}\n`);
  return 0;
}

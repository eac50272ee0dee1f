/** `petstore sandbox reset`: restores the sandbox data file to its seed pets. */
import type { Context } from '../../../context.js';
import { sandboxDataFile } from '../../../config/paths.js';
import { SandboxStore, asCliError } from '../../../sandbox/store.js';
import { countOf } from '../../../text/count.js';

/**
 * Resets the data (under the store's lock, waiting for it up to `--timeout`) and says so
 * on stderr.
 * @throws ConfigError (exit 2) naming the path when the files cannot be written;
 * TimeoutError (exit 3) when the lock stayed held.
 */
export async function runReset(ctx: Context): Promise<number> {
  const store = new SandboxStore(sandboxDataFile(ctx.env), {
    onWait: (message) => ctx.note(message),
    signal: ctx.signal,
  });
  let data;
  try {
    data = await store.reset({ waitMs: ctx.globals.timeoutMs });
  } catch (err) {
    throw asCliError(err);
  } finally {
    await store.close();
  }
  ctx.note(`sandbox reset: ${countOf(data.pets.length, 'seed pet')} in ${store.file}`, { always: true });
  return 0;
}

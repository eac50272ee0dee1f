/** The run of `__complete-envs` (see `envs.ts`). */
import { BUILTIN_REMOTES } from '../../config/environments.js';
import { knownEnvironments } from '../../config/settings.js';
import { loadConfigStore } from '../../config/store.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../base/errors.js';

/**
 * Prints the environment names a command may select, one a line; the built-in ones alone
 * when the config file cannot be read. Reads the file without a warning (a shared file's
 * warning is for the commands that use it, not for a Tab).
 * @returns exit code 0, always.
 */
export async function runCompleteEnvs(ctx: Context): Promise<number> {
  let remotes: readonly string[] = BUILTIN_REMOTES;
  try {
    remotes = loadConfigStore(ctx.env, () => undefined).remoteNames();
  } catch {
    // A broken or refused file: the names every install knows.
  }
  await ctx.io.out(
    knownEnvironments(remotes)
      .map((n) => `${n}\n`)
      .join(''),
  );
  return ExitCode.ok;
}

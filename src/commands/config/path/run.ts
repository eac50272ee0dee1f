/**
 * `config path`: prints the config file's path. It never reads the file, so it
 * works when the file is missing or corrupt (that is when people need it).
 */
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { configFile } from '../../../config/paths.js';

/** Prints the path (`{"path": …}` with `--output json`). */
export async function runPath(ctx: Context): Promise<number> {
  const path = configFile(ctx.env);
  const mode = ctx.output;
  await ctx.io.out(mode === 'json' || mode === 'ndjson' ? `${JSON.stringify({ path })}\n` : `${path}\n`);
  return ExitCode.ok;
}

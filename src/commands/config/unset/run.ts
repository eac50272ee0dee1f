/**
 * `config unset KEY`: removes KEY from the config file, so the next source in the
 * precedence applies (for `environment`, the default `production`). Idempotent: unsetting
 * what is not set succeeds and writes nothing.
 */
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { findSetting } from '../../../config/keys.js';
import { withConfigWriter } from '../../../config/store.js';

/**
 * Removes one setting; says so on stderr when it is a terminal.
 * @throws UsageError for an unknown key, ConfigError for a broken config file (left untouched).
 */
export async function runUnset(ctx: Context, key: string): Promise<number> {
  const def = findSetting(key, 'unset');
  const store = await ctx.loadConfig();
  if (store.getSetting(def.key) === undefined) {
    ctx.note(`${def.key} is not set; nothing to remove.`);
    return ExitCode.ok;
  }
  // Checked again under the lock: another command may have removed it meanwhile.
  const path = await withConfigWriter(
    ctx.env,
    () => undefined,
    (writer) => (writer.delete(def.key) ? writer.path : undefined),
    { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
  );
  ctx.note(path === undefined ? `${def.key} is not set; nothing to remove.` : `Removed ${def.key} from ${path}`);
  return ExitCode.ok;
}

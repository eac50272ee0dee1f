/**
 * `auth logout`: removes the stored key of the selected environment
 * (cli-contract.md "Commands"). Idempotent: with no key stored it says so and succeeds,
 * and it does not create a config file just to remove nothing.
 */
import type { Context } from '../../../context.js';
import { ExitCode, UsageError } from '../../../base/errors.js';
import { maskKey } from '../../../base/mask.js';
import { requireEnvironment } from '../../../config/settings.js';
import { withConfigWriter } from '../../../config/store.js';

/**
 * Logs out of the selected environment; reports on stderr what was removed.
 * @throws UsageError for the sandbox (it has no stored key), ConfigError for a broken config file.
 */
export async function runLogout(ctx: Context): Promise<number> {
  const { value: name } = requireEnvironment(await ctx.settings('selected', { keys: false }));
  if (name === 'sandbox') {
    throw new UsageError('the sandbox has no stored key to remove: it needs no login');
  }
  const store = await ctx.loadConfig();
  const stored = store.getKey(name);
  if (stored === undefined) {
    ctx.note(`No ${name} key stored in ${store.path}; nothing to remove.`, { always: true });
  } else {
    // Checked again under the lock: another command may have changed it meanwhile.
    const removed = await withConfigWriter(
      ctx.env,
      () => undefined,
      (writer) => {
        const current = writer.store.getKey(name);
        return current !== undefined && writer.deleteKey(name) ? { key: current.key, path: writer.path } : undefined;
      },
      { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
    );
    ctx.note(
      removed === undefined
        ? `No ${name} key stored in ${store.path}; nothing to remove.`
        : `Logged out of ${name}: removed key ${maskKey(removed.key)} from ${removed.path}`,
      { always: true },
    );
  }
  if (ctx.env.isSet('PETSTORE_API_KEY')) {
    ctx.warn('PETSTORE_API_KEY is still set and supplies a key to every command until you unset it');
  }
  const command = store.getSetting(`${name}.apiKeyCommand`);
  if (command !== undefined) {
    ctx.warn(
      `${name}.apiKeyCommand is still set (\`${command}\`) and supplies the ${name} key until you remove it with \`petstore config unset ${name}.apiKeyCommand\``,
    );
  }
  return ExitCode.ok;
}

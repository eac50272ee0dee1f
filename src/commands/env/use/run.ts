/**
 * `env use NAME`: sets the config file's `environment`, the default of every command
 * without `--env` or `PETSTORE_ENV` (cli-contract.md "Environments"). Checked and written
 * under the config lock, as `config set environment` is: a name that is neither built in nor
 * configured is exit 2 naming the closest, and nothing is written.
 */
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { checkEnvName, isBuiltinEnvironment } from '../../../config/environments.js';
import { knownEnvironments, unknownEnvironment } from '../../../config/settings.js';
import { withConfigWriter } from '../../../config/store.js';

/**
 * Makes `raw` the default environment; says so on stderr when it is a terminal, and warns
 * when `PETSTORE_ENV` overrides it in this shell.
 * @throws UsageError for a name of the wrong shape or unknown (nothing written), ConfigError
 * for a broken config file (left untouched).
 */
export async function runUse(ctx: Context, raw: string): Promise<number> {
  const name = checkEnvName(raw, 'environment name');
  const { path, before } = await withConfigWriter(
    ctx.env,
    (m) => ctx.warn(m),
    (writer) => {
      // Checked under the lock: another petstore may be adding or removing one.
      const remotes = writer.store.remoteNames();
      if (!isBuiltinEnvironment(name) && !remotes.includes(name)) {
        throw unknownEnvironment(name, knownEnvironments(remotes), 'env use');
      }
      const before = writer.store.getSetting('environment');
      if (before !== name) writer.set('environment', name);
      return { path: writer.path, before };
    },
    { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
  );
  ctx.note(
    before === name
      ? `${name} was already the default environment (environment in ${path})`
      : `${name} is the default environment now (environment in ${path})`,
  );
  const fromShell = ctx.env.get('PETSTORE_ENV');
  if (fromShell !== undefined && fromShell !== name) {
    ctx.warn(`PETSTORE_ENV=${fromShell} is set and still wins over the default here; unset it to use ${name}`);
  }
  return ExitCode.ok;
}

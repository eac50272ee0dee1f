/**
 * `config set KEY VALUE`: checks VALUE and stores it in the config file
 * (atomically, mode 0600). `environment` takes production, staging, sandbox or a configured
 * name; `NAME.baseUrl` of a new name adds that environment. A base URL
 * must parse and be https (or http on a loopback host); one without the `/v1` version
 * segment is stored with a warning. API keys are refused here: `auth login` stores them.
 */
import type { Context } from '../../../context.js';
import { ExitCode } from '../../../base/errors.js';
import { findSetting } from '../../../config/keys.js';
import { isBuiltinEnvironment } from '../../../config/environments.js';
import { knownEnvironments, loginCommand, unknownEnvironment } from '../../../config/settings.js';
import { withConfigWriter } from '../../../config/store.js';

/**
 * Sets one setting; says so on stderr when it is a terminal.
 * @throws UsageError for an unknown key or a bad value (nothing written), ConfigError for a
 * broken config file (left untouched).
 */
export async function runSet(ctx: Context, key: string, raw: string): Promise<number> {
  const def = findSetting(key, 'set');
  const value = def.parse(raw, (m) => ctx.warn(m));
  const env = /^([^.]+)\.baseUrl$/.exec(def.key)?.[1];
  const { path, stored } = await withConfigWriter(
    ctx.env,
    (m) => ctx.warn(m),
    (writer) => {
      // The default must be an environment a command can select (checked under the lock:
      // another petstore may be adding or removing one).
      const remotes = writer.store.remoteNames();
      if (def.key === 'environment' && !isBuiltinEnvironment(value) && !remotes.includes(value)) {
        throw unknownEnvironment(value, knownEnvironments(remotes), 'config set environment');
      }
      writer.set(def.key, def.type === 'boolean' ? value === 'true' : value);
      return { path: writer.path, stored: env === undefined ? undefined : writer.store.getKey(env) };
    },
    { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
  );
  // A stored key stays bound to the URL it was stored for; say so before it surprises anyone.
  if (env !== undefined && stored?.baseUrl !== undefined && stored.baseUrl !== value) {
    ctx.warn(
      `the stored ${env} key was stored for ${stored.baseUrl} and will not be sent to ${value}; log in again with \`${loginCommand(env)}\``,
    );
  }
  ctx.note(`Set ${def.key} to ${value} in ${path}`);
  return ExitCode.ok;
}

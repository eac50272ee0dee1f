/**
 * `env remove NAME [--yes]`: removes an environment's settings and stored key from the
 * config file (cli-contract.md "Environments", "Commands"). production and staging keep
 * their names (they are cleared, and still exist); a configured name is gone. Removing the
 * default makes production the default again. The sandbox has no settings and is refused.
 *
 * It asks first on a terminal (default No); the global `--yes` answers in advance, and off a
 * terminal it is needed. Declined, refused or
 * interrupted (Ctrl-C, exit 130), nothing is removed.
 */
import type { Context } from '../../../context.js';
import { askYesNo, canAskOnTerminal } from '../../../operations/confirm-writes.js';
import { ExitCode, UsageError } from '../../../base/errors.js';
import { maskKey } from '../../../base/mask.js';
import { BUILTIN_REMOTES, checkEnvName, SANDBOX } from '../../../config/environments.js';
import { knownEnvironments, unknownEnvironment } from '../../../config/settings.js';
import { withConfigWriter } from '../../../config/store.js';

/**
 * Removes the environment `raw` after confirmation; reports on stderr what was removed.
 * @throws UsageError (exit 2) for a bad or unknown name, the sandbox, a declined question,
 * or no `--yes` off a terminal (nothing removed); InterruptedError on Ctrl-C at the
 * question; ConfigError for a broken config file (left untouched).
 */
export async function runRemove(ctx: Context, raw: string): Promise<number> {
  const name = checkEnvName(raw, 'environment name');
  if (name === SANDBOX) {
    throw new UsageError(
      'the sandbox has no settings to remove: it runs inside petstore, with its own URL and key',
      'To restore its data to the seed pets, run `petstore sandbox reset`.',
    );
  }
  const store = await ctx.loadConfig();
  const remotes = store.remoteNames();
  if (!remotes.includes(name)) throw unknownEnvironment(name, knownEnvironments(remotes), 'env remove');
  const builtin = (BUILTIN_REMOTES as readonly string[]).includes(name);
  const found = {
    baseUrl: store.getSetting(`${name}.baseUrl`),
    command: store.getSetting(`${name}.apiKeyCommand`),
    key: store.getKey(name)?.key,
    confirmWrites: store.getSetting(`${name}.confirmWrites`),
  };
  const what = describe(found);
  // production and staging are known without any setting; there may be nothing to clear.
  const nothing = Object.values(found).every((v) => v === undefined) && store.getSetting('environment') !== name;
  if (builtin && nothing) {
    ctx.note(`${name} has no settings or stored key in ${store.path}; nothing to remove.`, { always: true });
    return ExitCode.ok;
  }
  const question = builtin
    ? `Clear the settings of ${name} (${what})? It stays, with no base URL.`
    : `Remove the environment ${name} (${what})?`;
  if (!ctx.globals.yes) await confirmOrRefuse(ctx, name, question);

  const done = await withConfigWriter(
    ctx.env,
    (m) => ctx.warn(m),
    (writer) => {
      // Read again under the lock: another petstore may have changed the file meanwhile.
      const wasDefault = writer.store.getSetting('environment') === name;
      return { removed: writer.removeEnvironment(name), wasDefault, path: writer.path };
    },
    { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
  );
  if (!done.removed) {
    ctx.note(`${name} has no settings or stored key in ${done.path}; nothing to remove.`, { always: true });
  } else {
    ctx.note(
      builtin
        ? `Cleared ${name} in ${done.path} (${what}); ${name} remains, with no base URL.`
        : `Removed the environment ${name} from ${done.path} (${what}).`,
      { always: true },
    );
  }
  if (done.wasDefault) {
    ctx.note(`${name} was the default environment; production is the default again.`, { always: true });
  }
  if (ctx.env.get('PETSTORE_ENV') === name && !builtin) {
    ctx.warn(`PETSTORE_ENV=${name} is set: commands here fail until you unset it`);
  }
  return ExitCode.ok;
}

/** What removing takes away, for the question and the report: `base URL https://…, stored key ****wxyz`. */
function describe(found: {
  baseUrl: string | undefined;
  command: string | undefined;
  key: string | undefined;
  confirmWrites: string | undefined;
}): string {
  return [
    found.baseUrl === undefined ? 'no base URL' : `base URL ${found.baseUrl}`,
    ...(found.command === undefined ? [] : [`apiKeyCommand \`${found.command}\``]),
    ...(found.confirmWrites === undefined ? [] : [`confirmWrites ${found.confirmWrites}`]),
    found.key === undefined ? 'no stored key' : `stored key ${maskKey(found.key)}`,
  ].join(', ');
}

/**
 * Asks on a terminal (default No); off one, refuses. Returns when confirmed.
 * @throws UsageError when declined or off a terminal, InterruptedError on Ctrl-C.
 */
async function confirmOrRefuse(ctx: Context, name: string, question: string): Promise<void> {
  if (!canAskOnTerminal(ctx)) {
    throw new UsageError(
      `env remove asks before removing ${name}, and cannot ask off a terminal; nothing was removed`,
      `Add --yes to remove it without asking: \`petstore env remove ${name} --yes\`.`,
    );
  }
  if (!(await askYesNo(ctx, question))) throw new UsageError(`not confirmed: ${name} was not removed`);
}

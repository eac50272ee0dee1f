/**
 * `auth token`: prints the selected environment's API key on stdout, for other tools
 * (gh's `auth token`; cli-contract.md "Commands"). It is the one command whose job is to
 * print a secret: the key goes to stdout and only there, never to stderr or a log.
 */
import { requireEnvironment } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { ExitCode, UsageError } from '../../../base/errors.js';

/**
 * Prints the key a command would send: `PETSTORE_API_KEY`, else the output of the
 * environment's `apiKeyCommand`, else the stored key (for the base URL it was stored for).
 * @throws UsageError (exit 2) for the sandbox; AuthError (exit 4) when there is no key or
 * the stored one is bound to another base URL; CliError `key_command` (exit 4) when the
 * command fails; ConfigError (exit 2) for a broken config file, an unsendable key, or a
 * command whose environment has no configured base URL.
 */
export async function runToken(ctx: Context): Promise<number> {
  const settings = await ctx.settings('selected');
  const { value: name } = requireEnvironment(settings);
  if (name === 'sandbox') {
    throw new UsageError(
      'the sandbox has no key to print: the embedded server makes its own inside petstore',
      'Run `petstore sandbox serve` for a sandbox other tools can use: it prints its base URL and key.',
    );
  }
  const key = settings.remotes.find((r) => r.selected)?.key;
  if (key === undefined) throw new Error(`no key resolved for ${name}`);
  if (!key.ok) throw key.error;
  await ctx.io.out(`${key.value}\n`);
  return ExitCode.ok;
}

/**
 * `config get KEY`: prints the value the config file holds for KEY, or the
 * setting's default (as `gh config get` does). A key with neither prints nothing on stdout
 * and exits 1 with a note on stderr (`gh config get`'s "could not find key", `git config
 * --get`): scripts can test the exit code. The value flags and variables would put in its
 * place is `config list`'s job.
 */
import type { Context } from '../../../context.js';
import { CliError, ExitCode } from '../../../base/errors.js';
import { findSetting } from '../../../config/keys.js';

/**
 * Prints one setting (`{"key","value","source"}` with `--output json`).
 * @throws UsageError for an unknown or key-like name, ConfigError for a broken file,
 * CliError `not_set` (exit 1) when the key has no value.
 */
export async function runGet(ctx: Context, key: string): Promise<number> {
  const def = findSetting(key, 'get');
  const store = await ctx.loadConfig();
  const stored = store.getSetting(def.key);
  const value = stored ?? def.default;
  if (value === undefined) {
    throw new CliError(`${def.key} is not set in ${store.path}`, {
      exitCode: ExitCode.failure,
      code: 'not_set',
      hint: `Set it with \`petstore config set ${def.key} VALUE\`.`,
    });
  }
  const mode = ctx.output;
  if (mode === 'json' || mode === 'ndjson') {
    const doc = { key: def.key, value, source: stored === undefined ? 'default' : 'file' };
    await ctx.io.out(`${mode === 'json' ? JSON.stringify(doc, null, 2) : JSON.stringify(doc)}\n`);
  } else {
    await ctx.io.out(`${value}\n`);
  }
  return ExitCode.ok;
}

/**
 * The config directory and config.json under ssh's rule (src/fs/trust.ts; docs/configuration.md
 * "Who may own petstore's files"): what trust.ts refuses, as the ConfigError a command fails
 * with (exit 2, code `config`) naming the path, its owner or mode, and the fix. (The
 * sandbox's files, in the same directory, make their own errors: sandbox/ imports no config/.)
 */
import { ConfigError, describeFileError } from '../base/errors.js';
import { checkFolder, refusalText, UntrustedPathError } from '../fs/trust.js';

/**
 * The ConfigError of a folder or file trust.ts refused (`refusalText`'s words).
 * @param what the words naming it before its path: `the config directory`, `the config file`.
 */
export function refusal(what: string, err: UntrustedPathError): ConfigError {
  if (err.why === 'is not a folder') {
    return new ConfigError(`${what} ${err.path} is not a directory`, 'Point PETSTORE_CONFIG_DIR at a directory.');
  }
  const { message, hint } = refusalText(what, err);
  return new ConfigError(message, hint === '' ? undefined : hint);
}

/**
 * Checks the config directory (a link to a directory is followed, its target judged): owned by
 * the effective user or root, writable by neither its group nor others. Its parents are not
 * checked.
 * @returns `false` when it does not exist (yet), `true` when it passes.
 * @throws ConfigError (exit 2) when it fails the rule, is not a directory, or cannot be looked at.
 */
export function checkConfigDir(dir: string): boolean {
  try {
    return checkFolder(dir, true);
  } catch (err) {
    if (err instanceof UntrustedPathError) throw refusal('the config directory', err);
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new ConfigError(
        `the config directory ${dir} is not a directory: a part of its path is a file`,
        'Point PETSTORE_CONFIG_DIR at a directory.',
      );
    }
    throw new ConfigError(`cannot look at the config directory ${dir}: ${describeFileError(err)}`);
  }
}

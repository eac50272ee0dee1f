/**
 * The config directory and the files petstore reads from it (config.json, sandbox.json and
 * its journal) under ssh's rule (src/trust.ts; docs/configuration.md "Who may own
 * petstore's files"): what trust.ts refuses, as the ConfigError a command fails with (exit 2,
 * code `config`) naming the path, its owner or mode, and the fix.
 */
import { ConfigError, describeFileError } from '../errors.js';
import { checkFolder, UntrustedPathError } from '../trust.js';

/**
 * The ConfigError of a folder or file trust.ts refused.
 * @param what the words naming it before its path: `the config directory`, `the config file`.
 */
export function refusal(what: string, err: UntrustedPathError): ConfigError {
  const { path, why, fix } = err;
  if (why === 'is a symbolic link') {
    return new ConfigError(`${what} ${path} is a symbolic link: petstore neither reads nor writes through one`, fix);
  }
  if (why === 'is not a regular file') return new ConfigError(`${what} ${path} is not a regular file`, fix);
  if (why === 'is not a folder') {
    return new ConfigError(`${what} ${path} is not a directory`, 'Point PETSTORE_CONFIG_DIR at a directory.');
  }
  const hints = [fix];
  // `sudo -E` (or a HOME kept across sudo): root is handed the user's config directory.
  if (process.geteuid?.() === 0 && why.startsWith('is owned by')) {
    hints.push(
      "Running as root with another user's HOME (sudo -E)? Run sudo without -E, or point PETSTORE_CONFIG_DIR at a directory of root's.",
    );
  }
  return new ConfigError(
    `${what} ${path} ${why}: petstore uses it only when no other user can change it`,
    hints.filter((h) => h !== '').join('\n'),
  );
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

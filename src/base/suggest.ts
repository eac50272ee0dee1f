/**
 * Commands petstore suggests in hints, built so that they are right when pasted: they
 * carry the flags that decide where the command goes (`--env staging`, `--base-url URL`),
 * and every word a shell would split or expand is quoted. Light on purpose: the resolver,
 * declarations and `cli.ts` all use it.
 */

/** Quotes a word for a POSIX shell when it needs it (`'...'`, with `'` written as `'\''`). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where the command a hint suggests must go. */
export interface Reach {
  /** The environment the command ran against (resolved), when known. */
  env?: string | undefined;
  /** Whether `--env` was given on the command line (then it is repeated, even `production`). */
  envFlag?: boolean | undefined;
  /** `--base-url`, when it was given on the command line. */
  baseUrlFlag?: string | undefined;
}

/**
 * `petstore` + the flags of `reach` + `words`: `--env NAME` when the command ran against
 * an environment other than production or `--env` was given (so the hint works in any
 * shell, whatever PETSTORE_ENV says there), and `--base-url URL` when that flag was given.
 * `words` is written as given (it may hold a redirection such as `< key.txt`).
 */
export function suggestCommand(words: string, reach: Reach = {}): string {
  const parts = ['petstore'];
  if (reach.env !== undefined && (reach.envFlag === true || reach.env !== 'production')) {
    parts.push('--env', shellQuote(reach.env));
  }
  if (reach.baseUrlFlag !== undefined) parts.push('--base-url', shellQuote(reach.baseUrlFlag));
  parts.push(words);
  return parts.join(' ');
}

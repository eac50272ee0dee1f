/**
 * Commands petstore suggests in hints, built so that they are right when pasted: they
 * carry the flags that decide where the command goes (`--env staging`, `--base-url URL`),
 * and every word a shell would split or expand is quoted. Light on purpose: the resolver,
 * declarations and `cli.ts` all use it.
 */

import leven from 'leven';

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

/**
 * The known name closest to `name`, for "did you mean" (an environment, a help topic): the one `name` begins (`prod` →
 * `production`), else the nearest within a third of the longer name's length in edits
 * (Levenshtein, at least 1). Undefined when none is close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const prefixed = known.filter((k) => k.startsWith(name));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = leven(name, k);
    const limit = Math.max(1, Math.floor(Math.max(name.length, k.length) / 3));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: k, distance };
  }
  return best?.name;
}

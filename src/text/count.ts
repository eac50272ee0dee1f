/**
 * The one number format of messages (cli-contract.md "Errors and exit codes": messages for
 * people): a count is written with its thousands separated, `7,100 pets from 71 pages`,
 * wherever a message says one (progress lines, accounts, errors, warnings, notes). Ids,
 * line numbers, ports and HTTP statuses are names, not counts, and stay as they are; so
 * does data on stdout. Pure.
 */

/**
 * A count with its thousands separated by commas: `1,234`, `-5`, `9,007,199,254,740,993`;
 * a fraction is rounded half away from zero (`2.5` is `3`), as `toLocaleString('en-US')`
 * rounds. Written out rather than asked of `Intl.NumberFormat`, whose first use loads ICU's
 * number data: about 20 ms, at the first message of a run that says a count.
 */
export function formatCount(n: number | bigint): string {
  if (typeof n === 'number' && !Number.isFinite(n)) return String(n);
  const rounded = typeof n === 'bigint' ? n : Math.sign(n) * Math.round(Math.abs(n));
  // Below 1e21 a number's own digits (the shortest that read back as it); above, no exponent.
  const digits =
    typeof rounded === 'number' && Math.abs(rounded) >= 1e21 ? BigInt(rounded).toString() : String(rounded);
  const sign = digits.startsWith('-') ? '-' : '';
  return sign + digits.slice(sign.length).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A count and what it counts, the word plural unless the count is 1: `1 pet`, `7,100 pets`, `2 entries`. */
export function countOf(n: number | bigint, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 || n === 1n ? singular : plural}`;
}

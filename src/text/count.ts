/**
 * The one number format of messages (cli-contract.md "Errors and exit codes": messages for
 * people): a count is written with its thousands separated, `7,100 pets from 71 pages`,
 * wherever a message says one (progress lines, accounts, errors, warnings, notes). Ids,
 * line numbers, ports and HTTP statuses are names, not counts, and stay as they are; so
 * does data on stdout. Pure.
 */

/** A count with its thousands separated by commas: `1,234`, `-5`, `9,007,199,254,740,993`. */
export function formatCount(n: number | bigint): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 0 });
}

/** A count and what it counts, the word plural unless the count is 1: `1 pet`, `7,100 pets`, `2 entries`. */
export function countOf(n: number | bigint, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 || n === 1n ? singular : plural}`;
}

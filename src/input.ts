/**
 * Input rules checked before anything is sent (cli-contract.md "Input rules"). Each parser
 * takes the raw string commander saw and returns a typed value or throws `UsageError`
 * naming the flag, the value and what is allowed. No floating point is ever involved
 * for integers, so int64 values stay exact.
 */
import {
  INT64_MAX,
  INT64_MIN,
  LIMIT_MAX,
  LIMIT_MIN,
  MAX_PAGES_LIMIT,
  PET_STATUSES,
  type PetStatus,
} from './api/constants.js';
import { UsageError } from './errors.js';

const DIGITS = /^[0-9]+$/;
const SIGNED_DIGITS = /^-?[0-9]+$/;

/** Quotes a user value for a message, showing control characters and emptiness plainly. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * Parses `--limit`: decimal digits only (leading zeros allowed), 1..100 (spec §4.1, §8).
 * @throws UsageError for `0`, `101`, `1.5`, `abc`, `+5`, `1e2`, `-1`, empty; above 100 its
 * hint points at `--all`.
 */
export function parseLimit(raw: string, flag = '--limit'): number {
  if (!DIGITS.test(raw)) {
    throw new UsageError(`invalid ${flag} ${quote(raw)}: must be a whole number from ${LIMIT_MIN} to ${LIMIT_MAX}`);
  }
  const trimmed = raw.replace(/^0+(?=\d)/, '');
  const value = trimmed.length > 3 ? Infinity : Number(trimmed);
  if (value < LIMIT_MIN || value > LIMIT_MAX) {
    throw new UsageError(
      `invalid ${flag} ${quote(raw)}: must be a whole number from ${LIMIT_MIN} to ${LIMIT_MAX}`,
      // The API's pages hold at most 100; --all walks them (spec §4.1).
      value > LIMIT_MAX ? `To fetch more than ${LIMIT_MAX} pets, use --all.` : undefined,
    );
  }
  return value;
}

/**
 * Parses a PetStatus: exactly one of `available`, `pending`, `sold` (spec §2).
 * @throws UsageError for anything else, case included.
 */
export function parseStatus(raw: string, flag = '--status'): PetStatus {
  if ((PET_STATUSES as readonly string[]).includes(raw)) return raw as PetStatus;
  throw new UsageError(`invalid ${flag} ${quote(raw)}: must be one of ${PET_STATUSES.join(', ')}`);
}

/**
 * Parses an int64 (pet ID, `--category-id`): optional `-`, decimal digits, within
 * -9223372036854775808..9223372036854775807, exact (spec §2 "format int64").
 * @throws UsageError naming `what` for anything else.
 */
export function parseInt64(raw: string, what: string): bigint {
  // One message for every refusal, so it always says what is allowed.
  const refuse = (): UsageError =>
    new UsageError(`invalid ${what} ${quote(raw)}: must be an integer from ${INT64_MIN} to ${INT64_MAX} (int64)`);
  if (!SIGNED_DIGITS.test(raw)) throw refuse();
  const value = BigInt(raw);
  if (value < INT64_MIN || value > INT64_MAX) throw refuse();
  return value;
}

/**
 * Parses `--max-pages` (`pets list --all`, `pets get --via-list`): a whole number 1..10000.
 * @throws UsageError otherwise.
 */
export function parseMaxPages(raw: string): number {
  if (
    !DIGITS.test(raw) ||
    raw.replace(/^0+(?=\d)/, '').length > 5 ||
    Number(raw) < 1 ||
    Number(raw) > MAX_PAGES_LIMIT
  ) {
    throw new UsageError(`invalid --max-pages ${quote(raw)}: must be a whole number from 1 to ${MAX_PAGES_LIMIT}`);
  }
  return Number(raw);
}

/**
 * Parses `--timeout SECONDS`: a positive decimal number of seconds, at most one day.
 * Returns milliseconds.
 * @throws UsageError otherwise.
 */
export function parseTimeoutSeconds(raw: string): number {
  if (!/^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(raw) || Number(raw) <= 0 || Number(raw) > 86_400) {
    throw new UsageError(`invalid --timeout ${quote(raw)}: must be a number of seconds greater than 0 (at most 86400)`);
  }
  return Math.round(Number(raw) * 1000);
}

/**
 * Parses `--retries N`: a whole number 0..10 (0 turns retries off).
 * @throws UsageError otherwise.
 */
export function parseRetries(raw: string): number {
  if (!DIGITS.test(raw) || Number(raw) > 10) {
    throw new UsageError(`invalid --retries ${quote(raw)}: must be a whole number from 0 to 10`);
  }
  return Number(raw);
}

/**
 * Output formats of cli-contract.md "Output": `table` for people, `tsv` the tab-separated
 * machine form (what a pipe gets without `--output`), `json` and `ndjson`.
 */
export const OUTPUT_FORMATS = ['table', 'tsv', 'json', 'ndjson'] as const;
/** An output format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Parses `--output`: one of `table`, `tsv`, `json`, `ndjson`.
 * @throws UsageError otherwise.
 */
export function parseOutput(raw: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(raw)) return raw as OutputFormat;
  throw new UsageError(`invalid --output ${quote(raw)}: must be one of ${OUTPUT_FORMATS.join(', ')}`);
}

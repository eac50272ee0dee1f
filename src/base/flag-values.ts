/**
 * Input rules checked before anything is sent (cli-contract.md "Input rules"). Each parser
 * takes the raw string commander saw and returns a typed value or throws `UsageError`
 * naming the flag, the value and what is allowed. No floating point is ever involved
 * for integers, so int64 values stay exact.
 */
import {
  INT64_MAX,
  INT64_MIN,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  MAX_PAGES_DEFAULT,
  MAX_PAGES_LIMIT,
  PET_FIELDS,
  PET_STATUSES,
  type PetField,
  type PetStatus,
} from '../client/constants.js';
import { UsageError } from './errors.js';

const DIGITS = /^[0-9]+$/;
const SIGNED_DIGITS = /^-?[0-9]+$/;

/** The smallest and largest value a numeric flag takes, both allowed. */
export interface FlagRange {
  readonly min: number;
  readonly max: number;
}

/**
 * What a flag's value is, beyond what commander's declaration says (whether it takes one,
 * its choices): a number type, its range and its default. `help --json` reads it; the
 * parsers below take their bounds from it, so the two cannot disagree. Keyed by long name
 * (a flag means the same on every command that has it).
 */
export interface FlagValue {
  /**
   * `integer`: whole numbers; `number`: decimals too; `int64`: a signed 64-bit integer
   * (spec §2); `list`: comma-separated items of `values`; `enum`: one of `values`.
   */
  readonly type: 'integer' | 'number' | 'int64' | 'list' | 'enum';
  readonly range?: FlagRange;
  /** What applies when the flag is not given. */
  readonly default?: number;
  /** The values (`enum`) or items (`list`) allowed, for a flag whose declaration names no choices. */
  readonly values?: readonly string[];
  /**
   * For a flag whose value may be left out, every way of writing it that the parser takes,
   * a placeholder in capitals standing for `values` (`--json FIELDS`). Without it, such a
   * flag (commander's `[value]`) takes its value only after `=` (`prescan`), and its forms
   * are the bare flag and `--flag=VALUE` for each of `values`.
   */
  readonly forms?: readonly string[];
}

/** Most requests a bulk create keeps in flight (`--concurrency`). */
export const CONCURRENCY_MAX = 32;
/** Requests a bulk create keeps in flight unless told otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** The one value `--dry-run` takes, after `=` (docs/commands.md "Dry runs"). */
const DRY_RUN_VALUES = ['curl'] as const;

/**
 * The flags whose values are numbers, lists or optional (cli-contract.md "Input rules",
 * "Network behaviour", "Agents").
 */
export const FLAG_VALUES = {
  '--limit': { type: 'integer', range: { min: LIMIT_MIN, max: LIMIT_MAX }, default: LIMIT_DEFAULT },
  '--max-pages': { type: 'integer', range: { min: 1, max: MAX_PAGES_LIMIT }, default: MAX_PAGES_DEFAULT },
  '--concurrency': { type: 'integer', range: { min: 1, max: CONCURRENCY_MAX }, default: DEFAULT_CONCURRENCY },
  // One millisecond, the deadline's unit (less would round to no time at all), to one day.
  '--timeout': { type: 'number', range: { min: 0.001, max: 86_400 }, default: 30 },
  // 0 turns retries off.
  '--retries': { type: 'integer', range: { min: 0, max: 10 }, default: 2 },
  // `pets watch`: seconds between walks; a poll a second at most, at most one a day.
  '--interval': { type: 'number', range: { min: 1, max: 86_400 }, default: 5 },
  // `pets watch`: events before the watch ends (exit 0); no default: it runs until stopped.
  '--max-events': { type: 'integer', range: { min: 1, max: 1_000_000_000 } },
  // `pets watch`: seconds it runs, a unit allowed (`90s`, `10m`, `2h`); a second to a week.
  '--for': { type: 'number', range: { min: 1, max: 604_800 } },
  // `sandbox serve`: 0 asks the system for a free port.
  '--port': { type: 'integer', range: { min: 0, max: 65_535 }, default: 0 },
  '--category-id': { type: 'int64' },
  // Comma-separated items of the option's choices.
  '--fields': { type: 'list' },
  // `--json FIELDS` is gh's shorthand for `--output json --fields FIELDS`: the word after a
  // bare `--json` is its value only when every item is a field (`prescan`).
  '--json': { type: 'list', values: PET_FIELDS, forms: ['--json', '--json FIELDS', '--json=FIELDS'] },
  // Only after `=`: `api --dry-run pets` requests pets (`prescan`).
  '--dry-run': { type: 'enum', values: DRY_RUN_VALUES },
  // `mcp`: the most bytes of one tool result, 1 KiB to 64 MiB; 256 KiB unless told otherwise.
  '--max-result-bytes': { type: 'integer', range: { min: 1024, max: 64 * 1024 * 1024 }, default: 262_144 },
} as const satisfies Record<string, FlagValue>;

/** Quotes a user value for a message, showing control characters and emptiness plainly. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * `raw` as a whole number from `min` to `max`, or undefined: decimal digits only, leading
 * zeros allowed (no sign, point, exponent or space). Digits past a double's precision read
 * as a number far above any of these ranges (or Infinity), never inside one.
 */
function wholeNumberIn(raw: string, min: number, max: number): number | undefined {
  if (!DIGITS.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
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
export function parseMaxPages(raw: string, flag = '--max-pages'): number {
  const { min, max } = FLAG_VALUES['--max-pages'].range;
  const pages = wholeNumberIn(raw, min, max);
  if (pages === undefined) {
    throw new UsageError(`invalid ${flag} ${quote(raw)}: must be a whole number from ${min} to ${max}`);
  }
  return pages;
}

/**
 * Parses `--timeout SECONDS`: a decimal number of seconds from 0.001 (one millisecond, the
 * deadline's unit: less would round to no time at all) to 86400 (one day). Returns
 * milliseconds (cli-contract.md "Network behaviour").
 * @throws UsageError otherwise.
 */
export function parseTimeoutSeconds(raw: string): number {
  const { min, max } = FLAG_VALUES['--timeout'].range;
  if (!/^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(
      `invalid --timeout ${quote(raw)}: must be a number of seconds, at least ${min} and at most ${max}`,
    );
  }
  return Math.round(Number(raw) * 1000);
}

/**
 * Parses `--interval SECONDS` (`pets watch`): a decimal number of seconds from 1 to 86400
 * (cli-contract.md "Input rules"). Returns milliseconds.
 * @throws UsageError otherwise (`0.5`, `0`, `-1`, `1e3`, `abc`, empty).
 */
export function parseInterval(raw: string): number {
  const { min, max } = FLAG_VALUES['--interval'].range;
  if (!/^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(
      `invalid --interval ${quote(raw)}: must be a number of seconds, at least ${min} and at most ${max}`,
    );
  }
  return Math.round(Number(raw) * 1000);
}

/**
 * Parses `--max-events N` (`pets watch`): a whole number 1..1000000000 of events, after
 * which the watch ends with exit 0.
 * @throws UsageError otherwise (`0`, `1.5`, `-1`, `abc`, empty).
 */
export function parseMaxEvents(raw: string): number {
  const { min, max } = FLAG_VALUES['--max-events'].range;
  const events = wholeNumberIn(raw, min, max);
  if (events === undefined) {
    throw new UsageError(`invalid --max-events ${quote(raw)}: must be a whole number from ${min} to ${max}`);
  }
  return events;
}

/** Seconds in each unit `--for` takes; none means seconds. */
const DURATION_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600 };

/**
 * Parses `--for DURATION` (`pets watch`): a decimal number with an optional unit, `s`
 * (the default), `m` or `h` (`90`, `90s`, `1.5m`, `10m`, `2h`), from 1 second to 604800
 * (a week). Returns milliseconds.
 * @throws UsageError otherwise (`0`, `0.5s`, `8d`, `1e3`, `-1`, `10 m`, `abc`, empty).
 */
export function parseDuration(raw: string, flag = '--for'): number {
  const { min, max } = FLAG_VALUES['--for'].range;
  const m = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([smh]?)$/.exec(raw);
  const seconds = m === null ? NaN : Number(m[1]) * (DURATION_UNITS[m[2] ?? ''] ?? NaN);
  if (!(seconds >= min && seconds <= max)) {
    throw new UsageError(
      `invalid ${flag} ${quote(raw)}: must be a duration from ${min} s to ${max} s (a week): seconds, or a number with s, m or h, such as 90s, 10m, 2h`,
    );
  }
  return Math.round(seconds * 1000);
}

/**
 * Parses `--retries N`: a whole number 0..10 (0 turns retries off).
 * @throws UsageError otherwise.
 */
export function parseRetries(raw: string): number {
  const { min, max } = FLAG_VALUES['--retries'].range;
  const retries = wholeNumberIn(raw, min, max);
  if (retries === undefined) {
    throw new UsageError(`invalid --retries ${quote(raw)}: must be a whole number from ${min} to ${max}`);
  }
  return retries;
}

/**
 * Parses `--concurrency N` (`pets create --from-file`): a whole number 1..32 of requests in
 * flight at once (cli-contract.md "Bulk create").
 * @throws UsageError otherwise (`0`, `33`, `1.5`, `-1`, `abc`, empty).
 */
export function parseConcurrency(raw: string): number {
  const { min, max } = FLAG_VALUES['--concurrency'].range;
  const concurrency = wholeNumberIn(raw, min, max);
  if (concurrency === undefined) {
    throw new UsageError(
      `invalid --concurrency ${quote(raw)}: must be a whole number from ${min} to ${max} (requests in flight at once)`,
    );
  }
  return concurrency;
}

/**
 * Output formats of cli-contract.md "Output": `table` for people, `tsv` the tab-separated
 * machine form (what a pipe gets without `--output`), `csv` for spreadsheets (RFC 4180),
 * `json` and `ndjson`.
 */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
/** An output format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Parses `--output`: one of `table`, `tsv`, `csv`, `json`, `ndjson`.
 * @throws UsageError otherwise.
 */
export function parseOutput(raw: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(raw)) return raw as OutputFormat;
  throw new UsageError(`invalid --output ${quote(raw)}: must be one of ${OUTPUT_FORMATS.join(', ')}`);
}

/** True when `name` is a Pet field (`id`, `name`, `categoryId`, `status`); case counts. */
function isPetField(name: string): name is PetField {
  return (PET_FIELDS as readonly string[]).includes(name);
}

/**
 * True when every comma-separated item of `raw` is a Pet field: the rule that makes the
 * word after `--json` a field list (`--json id,name`) rather than the next argument
 * (`--json pets list`, `pets get --json 5`).
 */
export function isFieldList(raw: string): boolean {
  return raw.split(',').every((item) => isPetField(item.trim()));
}

/**
 * Parses a field list (`--fields id,name`, `--json id,name`): comma-separated Pet fields,
 * spaces around them allowed, order kept (cli-contract.md "Output").
 * @throws UsageError naming the unknown or repeated field and listing the valid ones.
 */
export function parseFields(raw: string, flag = '--fields'): PetField[] {
  const items = raw.split(',').map((item) => item.trim());
  const valid = `fields are ${PET_FIELDS.join(', ')}`;
  const unknown = items.filter((item) => !isPetField(item));
  if (unknown.length > 0) {
    const named = unknown.map((u) => (u === '' ? 'an empty name' : quote(u))).join(', ');
    throw new UsageError(`invalid ${flag} ${quote(raw)}: unknown field ${named}; the ${valid}`);
  }
  const fields = items as PetField[];
  const twice = fields.find((f, i) => fields.indexOf(f) !== i);
  if (twice !== undefined) throw new UsageError(`invalid ${flag} ${quote(raw)}: ${twice} is named twice`);
  return fields;
}

/** `--sort [-]FIELD`: the field and its direction. */
export interface PetSort {
  field: PetField;
  descending: boolean;
}

/**
 * Parses `--sort [-]FIELD` (`pets list`): a Pet field, `-` first for descending.
 * @throws UsageError for anything else, listing the fields.
 */
export function parseSort(raw: string): PetSort {
  const descending = raw.startsWith('-');
  const field = descending ? raw.slice(1) : raw;
  if (!isPetField(field)) {
    throw new UsageError(
      `invalid --sort ${quote(raw)}: must be a field (${PET_FIELDS.join(', ')}), with - first for descending order`,
    );
  }
  return { field, descending };
}

/**
 * Checks `--jq EXPR` as far as it can be without jq: not empty (an unset shell variable,
 * most likely). jq itself compiles it before a write sends anything.
 * @throws UsageError for an empty expression.
 */
export function parseJqExpression(raw: string): string {
  if (raw.trim() === '') {
    throw new UsageError('invalid --jq "": give a jq expression, such as \'.[].name\'');
  }
  return raw;
}

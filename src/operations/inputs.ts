/**
 * An operation's inputs, declared once for both front doors (wrangler's `defineCommand`
 * args, gh's `cmdutil` flag helpers): the CLI flag (`-L, --limit <n>`) and the MCP
 * argument (`limit`) are two names of one input, read by one parser (`base/flag-values.ts`),
 * so the two fronts accept the same values and refuse the rest in the same words, each
 * naming what its user typed (cli-contract.md "Input rules", "Agents").
 *
 * Loaded at start-up with the declarations: plain data and the parsers, no zod, no SDK.
 */
import { UsageError } from '../base/errors.js';
import { parseInt64, quote, type FlagRange } from '../base/flag-values.js';

/** What an input's value is: `int64` is exact past 2^53 (spec §2), `enum` one of `choices`. */
type InputType = 'integer' | 'int64' | 'enum' | 'boolean' | 'string';

/** One input of an operation. */
export interface Input {
  /**
   * The CLI flag as commander declares it (`-L, --limit <n>`); undefined where the CLI takes
   * it as the verb's argument; null where the CLI does not take it at all (a declared choice:
   * `list_pets`'s `cursor`, which only the tool's results hand out).
   */
  readonly flag?: string | null;
  /** How the CLI names it in a refusal when it is the verb's argument, not a flag (`pet ID`). */
  readonly label?: string;
  /** The MCP argument (`max_pages`); undefined where the tool does not take it (a declared choice). */
  readonly argument?: string;
  readonly type: InputType;
  /** The smallest and largest value of an `integer`. */
  readonly range?: FlagRange;
  /** The values of an `enum`. */
  readonly choices?: readonly string[];
  /** Whether the operation cannot be sent without it (asked for on a terminal by the CLI). */
  readonly required?: boolean;
  /**
   * Whether a tool refuses an empty or blank string (a `string`); the CLI sends its flag as
   * given, for the server to judge (cli-contract.md: `--name` is passed as given).
   */
  readonly nonEmpty?: boolean;
  /**
   * A value the operation accepts, as the CLI takes it (`Rex`, `7`): what docs and the
   * every-operation tests send; required inputs declare one.
   */
  readonly example?: string;
  /** Its description, in the words of each front that takes it: the CLI's help, the tool's JSON Schema. */
  readonly help: { readonly cli?: string; readonly mcp?: string };
  /**
   * The one parser of its value, as the CLI reads it (a string); `name` is what the user
   * typed (`--limit`, `limit`), named in the refusal.
   * @throws UsageError naming `name`, the value and what is allowed.
   */
  readonly parse?: (raw: string, name: string) => unknown;
  /**
   * Why the CLI refuses it given twice with different values (`--status`: the API filters
   * by one status, cli-contract.md "Input rules"); other repeated flags keep the last value.
   */
  readonly once?: string;
  /**
   * Another input it needs (`max_pages` needs `all`), and why, in the words of each front:
   * refused without it, since it would be ignored silently.
   */
  readonly needs?: { readonly input: string; readonly why: { readonly cli: string; readonly mcp?: string } };
}

/** A JSON object, as an MCP client sends arguments. */
type JsonArgs = Record<string, unknown>;

/** The arguments object, refusing anything else and any key not in `allowed`. */
function argumentsOf(raw: unknown, allowed: readonly string[]): JsonArgs {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError('the arguments must be a JSON object');
  const args = raw as JsonArgs;
  const unknown = Object.keys(args).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown argument ${unknown.map(quote).join(', ')}: this tool takes ${allowed.map(quote).join(', ')}`,
    );
  }
  return args;
}

/** What an input allows, in a refusal's words (`a whole number from 1 to 100`). */
function allowedOf(input: Input): string {
  switch (input.type) {
    case 'integer':
      return `a whole number from ${input.range?.min ?? 0} to ${input.range?.max ?? Number.MAX_SAFE_INTEGER}`;
    case 'enum':
      return `one of ${(input.choices ?? []).join(', ')}`;
    case 'boolean':
      return 'true or false';
    default:
      return 'a string';
  }
}

/**
 * An int64 argument: a string of digits (exact), or an integer up to 2^53 - 1. JSON-RPC
 * frames are parsed with `JSON.parse`, so a larger integer was rounded before it arrived:
 * it is refused, asking for the string form.
 * @throws UsageError naming the argument.
 */
function int64Of(value: unknown, name: string): bigint {
  if (typeof value === 'string') return parseInt64(value, name);
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new UsageError(
      `invalid ${name} ${String(value)}: an integer beyond 2^53 - 1 is rounded by JSON parsers before it arrives, so it cannot be exact`,
      `Pass ${name} as a string of digits, e.g. "9007199254740993".`,
    );
  }
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw new UsageError(
    `invalid ${name} ${JSON.stringify(value)}: must be an int64, as a string of digits or an integer up to 2^53 - 1`,
  );
}

/**
 * One argument's value, read by its input's own parser: a whole number given as a JSON
 * integer or a string of digits, a string or an enum as a string, a boolean as itself.
 * @throws UsageError naming the argument, the value and what is allowed.
 */
function valueOf(input: Input, value: unknown, name: string): unknown {
  const allowed = allowedOf(input);
  switch (input.type) {
    case 'int64':
      return int64Of(value, name);
    case 'boolean':
      if (typeof value !== 'boolean')
        throw new UsageError(`invalid ${name} ${JSON.stringify(value)}: must be ${allowed}`);
      return value;
    case 'integer': {
      const digits =
        typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
          ? String(value)
          : typeof value === 'string'
            ? value
            : undefined;
      if (digits === undefined)
        throw new UsageError(`invalid ${name} ${quote(JSON.stringify(value))}: must be ${allowed}`);
      return input.parse === undefined ? Number(digits) : input.parse(digits, name);
    }
    default: {
      if (typeof value !== 'string')
        throw new UsageError(`invalid ${name} ${JSON.stringify(value)}: must be ${allowed}`);
      if (input.nonEmpty === true && value.trim() === '') {
        throw new UsageError(`invalid ${name} ${quote(value)}: the ${name} cannot be empty`);
      }
      return input.parse === undefined ? value : input.parse(value, name);
    }
  }
}

/**
 * Checks a tool call's arguments against the inputs (by key) that have an MCP argument,
 * before anything is sent: unknown arguments, what is missing (all at once: `missing name
 * and categoryId: create_pet needs name and categoryId`), each value by its input's
 * parser, and each `needs`. Returns the values by input key; a boolean left out is false.
 * @throws UsageError naming the argument and what is allowed.
 */
export function checkArguments(
  tool: string,
  inputs: Readonly<Record<string, Input>>,
  raw: unknown,
): Record<string, unknown> {
  const taken = Object.entries(inputs).flatMap(([key, input]) =>
    input.argument === undefined ? [] : [{ key, input, name: input.argument }],
  );
  const args = argumentsOf(
    raw,
    taken.map((t) => t.name),
  );
  const required = taken.filter((t) => t.input.required === true).map((t) => t.name);
  const missing = required.filter((name) => args[name] === undefined);
  if (missing.length > 0)
    throw new UsageError(`missing ${missing.join(' and ')}: ${tool} needs ${required.join(' and ')}`);
  const out: Record<string, unknown> = {};
  for (const { key, input, name } of taken) {
    if (args[name] !== undefined) out[key] = valueOf(input, args[name], name);
    else if (input.type === 'boolean') out[key] = false;
  }
  for (const { key, input, name } of taken) {
    const { needs } = input;
    const needed = needs === undefined ? undefined : taken.find((t) => t.key === needs.input);
    if (needs === undefined || needed === undefined || out[key] === undefined) continue;
    if (out[needed.key] !== undefined && out[needed.key] !== false) continue;
    const given = needed.input.type === 'boolean' ? `${needed.name}: true` : needed.name;
    throw new UsageError(`${name} needs ${given}: ${needs.why.mcp ?? needs.why.cli}`);
  }
  return out;
}

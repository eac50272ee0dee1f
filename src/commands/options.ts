/**
 * A CLI flag made from an operation's input (`operations/inputs.ts`): its flag words, its
 * help in the CLI's words, its choices, and its parser naming the flag, so a verb's flags
 * are the declaration's and cannot drift from the MCP tool's arguments.
 */
import { Option } from '@commander-js/extra-typings';
import { UsageError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';
import type { Input } from '../operations/inputs.js';

/** What an input's parser gives (commander's CoerceT): its return, or undefined for none. */
type ParsedOf<I> = I extends { parse: (raw: string, name: string) => infer T } ? T : undefined;

/**
 * The commander Option of `input`, typed by its flag words and parser; an input taken
 * `once` refuses a second, different value. `nonEmpty` is the tools' rule alone: the CLI
 * sends `--name` as given and the server judges it (cli-contract.md "Input rules"). `argParser` replaces the input's parser where
 * the CLI reads the flag with more context (`--limit` over 100 refused once `--all` is known).
 * @throws UsageError (from the parser, at parse time) naming the flag.
 */
export function optionOf<const I extends Input & { flag: string }, T = ParsedOf<I>>(
  input: I,
  argParser?: (raw: string, previous: T) => T,
): Option<I['flag'], undefined, undefined, T> {
  const option = new Option(input.flag, input.help.cli);
  if (input.choices !== undefined) option.choices(input.choices);
  const long = /--[\w-]+/.exec(input.flag)?.[0] ?? input.flag;
  const { parse, once } = input;
  if (argParser !== undefined) option.argParser(argParser);
  else if (parse !== undefined && once !== undefined) {
    // Declared with a rest parameter: a parser of two parameters reads as one that collects
    // repeated values (help --json's `repeatable`), and a second value is refused here.
    option.argParser((...[raw, previous]: [raw: string, previous: T]): T => {
      const value = parse(raw, long) as T;
      if (previous !== undefined && previous !== value) {
        throw new UsageError(
          `${long} given twice with different values, ${quote(String(previous))} and ${quote(String(value))}: ${once}`,
          `Give ${long} once.`,
        );
      }
      return value;
    });
  } else if (parse !== undefined) option.argParser((raw: string): T => parse(raw, long) as T);
  return option;
}

/** The long flags of the inputs `operation` cannot be sent without (`--name`, `--category-id`): given together. */
export function requiredFlags(operation: { inputs: Readonly<Record<string, Input>> }): string[] {
  return Object.values(operation.inputs).flatMap((input) =>
    input.required === true && typeof input.flag === 'string' ? [/--[\w-]+/.exec(input.flag)?.[0] ?? input.flag] : [],
  );
}

/**
 * A pet verb drawn from its operation's declaration alone (`operations/pets.ts`, an
 * operation with a `request`): its name from the declared verb, its help from the summary
 * and the operation label, its argument and flags from the inputs, its traits from whether
 * it writes. The run (`operation-run.ts`) is loaded only when it runs. Operations whose CLI
 * does more (paging, the lookup after getPet's Sunset, bulk create) have verbs of their own.
 */
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { operationLabel } from '../../../client/constants.js';
import { UsageError } from '../../../base/errors.js';
import type { OperationDeclaration } from '../../../operations/pets.js';
import { optionOf, requiredFlags } from '../../options.js';
import type { Runner } from '../../runner.js';
import { RECORD_FLAGS, withTraits } from '../../traits.js';

/**
 * The verb of `op` (which declares `verb` and `request`).
 * @throws Error (a bug) for an operation without them.
 */
export function newOperationCommand(op: OperationDeclaration, f: Runner): CommandUnknownOpts {
  const words = op.verb?.split(' ') ?? [];
  const name = words[1];
  if (op.request === undefined || words.length !== 2 || name === undefined) {
    throw new Error(`${op.id} is not a declared simple verb`);
  }
  const together = requiredFlags(op);
  const cmd: CommandUnknownOpts = withTraits(new Command(name), {
    recordFlags: RECORD_FLAGS,
    writes: op.writes,
    operations: [op.id],
    environment: 'request',
    ...(together.length > 1 ? { together: [together] } : {}),
  }).description(`${op.summary ?? op.id} (${operationLabel(op.id)})`);
  const positional: string[] = [];
  for (const [key, input] of Object.entries(op.inputs)) {
    // An input of the tool alone (flag null) is no part of the verb.
    if (input.flag === null) continue;
    if (input.flag !== undefined) {
      cmd.addOption(optionOf({ ...input, flag: input.flag }));
      continue;
    }
    const { parse } = input;
    const label = input.label ?? key;
    positional.push(key);
    cmd.addArgument(
      new Argument(`<${input.argument ?? key}>`, input.help.cli).argParser((v) => (parse ? parse(v, label) : v)),
    );
  }
  const example = `${words.join(' ')} ${exampleArgs(op, false)}`;
  cmd.addHelpText(
    'after',
    `\nExamples:\n  $ petstore ${example}\n  $ petstore ${words.join(' ')} ${exampleArgs(op, true)} --json`,
  );
  return cmd.action(async (...args: unknown[]) => {
    const command = args.at(-1) as CommandUnknownOpts;
    const values: Record<string, unknown> = { ...command.opts() };
    positional.forEach((key, i) => (values[key] = command.processedArgs[i]));
    await f.run(async (ctx) => {
      const missing = together.filter((flag) => values[camel(flag)] === undefined);
      if (missing.length > 0) {
        throw new UsageError(
          `missing ${missing.join(' and ')}: ${words.join(' ')} needs ${together.join(' and ')}`,
          `Example: \`${ctx.suggest(example)}\``,
        );
      }
      const { runOperation } = await import('./operation-run.js');
      return runOperation(ctx, op, values);
    });
  });
}

/** The key commander gives a long flag's value (`--category-id` → `categoryId`). */
function camel(flag: string): string {
  return flag.replace(/^--/, '').replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The arguments and required flags of `op` with their declared examples, as a user types
 * them; with `all`, also each optional flag that has an example or choices (its first).
 */
function exampleArgs(op: OperationDeclaration, all: boolean): string {
  return Object.values(op.inputs)
    .flatMap((input) => {
      if (input.flag === null) return [];
      const value = input.example ?? input.choices?.[0];
      const long = input.flag === undefined ? undefined : /--[\w-]+/.exec(input.flag)?.[0];
      if (long === undefined) return [value ?? 'VALUE'];
      if (input.required === true) return [`${long} ${value ?? 'VALUE'}`];
      return all && value !== undefined && input.type !== 'boolean' ? [`${long} ${value}`] : [];
    })
    .join(' ');
}

/**
 * What a command declares about itself besides its flags and help (gh's
 * `cmdutil.AddJSONFlags`, wrangler's `defineCommand` metadata): the global record flags it
 * accepts, whether it writes, the API operations it calls. The program reads them to accept
 * or refuse `--fields`, `--json FIELDS`, `--jq` and `--output csv` (cli-contract.md
 * "Output"); tests read them to cover every command without a list of names.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { OperationId } from './client/constants.js';

/** The global flags that shape pet records, as a user writes them (cli-contract.md "Output"). */
export const RECORD_FLAGS = ['--fields', '--json FIELDS', '--jq', '--output csv'] as const;

/** One of RECORD_FLAGS. */
export type RecordFlag = (typeof RECORD_FLAGS)[number];

/** A command's traits. */
export interface CommandTraits {
  /** The record flags it accepts: all of RECORD_FLAGS for a command that prints pets. */
  readonly recordFlags: readonly RecordFlag[];
  /**
   * Whether it changes the store: `by-method` for `api`, which writes with any method but
   * GET and HEAD (RFC 9110 §9.2.1, safe methods).
   */
  readonly writes: boolean | 'by-method';
  /** The operations (spec §4) it calls, its own first; empty for none, or any (`api`). */
  readonly operations: readonly OperationId[];
  /**
   * What its first argument names, when completion offers more than fixed choices:
   * `environment`, the environments the config file knows, asked of petstore at Tab time
   * (cli-contract.md "Environments": completion offers the configured names).
   */
  readonly argument?: 'environment';
}

/** The traits of a command that declares none: a group, `version`, `config get`. */
const NO_TRAITS: CommandTraits = { recordFlags: [], writes: false, operations: [] };

const declared = new WeakMap<object, CommandTraits>();

/** Declares `cmd`'s traits (those left out are NO_TRAITS's); returns `cmd`, for chaining. */
export function withTraits<C extends CommandUnknownOpts>(cmd: C, traits: Partial<CommandTraits>): C {
  declared.set(cmd, { ...NO_TRAITS, ...traits });
  return cmd;
}

/** The traits `cmd` declared, or NO_TRAITS. */
export function traitsOf(cmd: CommandUnknownOpts): CommandTraits {
  return declared.get(cmd) ?? NO_TRAITS;
}

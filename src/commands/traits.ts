/**
 * What a command declares about itself besides its flags and help (gh's
 * `cmdutil.AddJSONFlags`, wrangler's `defineCommand` metadata): the global record flags it
 * accepts, whether it writes, the API operations it calls, what it does with the selected
 * environment. The program reads them to accept or refuse `--fields`, `--json FIELDS`,
 * `--jq` and `--output csv` (cli-contract.md "Output") and to list, in a command's help,
 * only the global flags that act on it (`takesGlobalFlag`); tests read them to cover every
 * command without a list of names.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { operationOf, type OperationId } from '../client/constants.js';
import type { OutputFormat } from '../base/flag-values.js';

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
  /**
   * What it does with the selected environment (`--env`, `--base-url`): `request` sends
   * requests to its server (`--timeout`, `--retries` and `--verbose` act on them);
   * `settings` reads its settings or key without a request; `none` for neither.
   */
  readonly environment: 'request' | 'settings' | 'none';
  /**
   * Whether it prints data that `--output` and `--json` shape (settings, environments, the
   * help document) besides pet records, which every command with record flags prints.
   */
  readonly formats: boolean;
  /**
   * Whether it asks a question of its own that `--yes` answers in advance (`env remove`);
   * a write sent to a server asks through `confirmWrites` without this.
   */
  readonly asks: boolean;
  /**
   * The `--output` forms it prints, when fewer than every one (`pets watch`: `table` on a
   * terminal and `ndjson`, a stream of events); `help --json` lists them. Undefined: all.
   */
  readonly outputs?: readonly OutputFormat[];
  /**
   * Groups of its flags (long names) that go together: given one of a group, the others are
   * needed too (off a terminal a missing one is refused, exit 2; `pets create` asks for it
   * on a terminal). `help --json` lists them as `requiredTogether`.
   */
  readonly together?: readonly (readonly string[])[];
  /**
   * The words its argument takes besides command words, each with what it prints (gh's
   * help topics: `petstore help flags`, `petstore help environment`); completion offers
   * them and `help --json` lists them as `topics`.
   */
  readonly topics?: Readonly<Record<string, string>>;
  /**
   * Flags other tools give this command for work another command does here, each with that
   * command's words (`pets list --watch`: `pets watch`): the unknown-option error says
   * which command to run instead.
   */
  readonly elsewhere?: Readonly<Record<string, string>>;
}

/** The traits of a command that declares none: a group, `version`, `config set`. */
const NO_TRAITS: CommandTraits = {
  recordFlags: [],
  writes: false,
  operations: [],
  environment: 'none',
  formats: false,
  asks: false,
};

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

/**
 * Whether the global flag `long` (`--timeout`) acts on a command with `traits`: a command's
 * help lists only those under its own flags (cli-contract.md "Output"), and `help --json`
 * names them. The rule, written down in docs/architecture.md:
 * - `--env`, `--base-url`: a command that uses the selected environment (`environment` is
 *   not `none`);
 * - `--timeout`, `--retries`, `--verbose`: one that sends requests (`environment: request`);
 * - `--output`, `--json`: one that prints pets or other data in formats (`formats`);
 * - `--fields`, `--jq`: its record flags (`recordFlags`);
 * - `--fail-on-deprecated`: one that calls a deprecated operation (`operations`);
 * - `--yes`: one that asks: a write sent to a server (`confirmWrites`), or `asks`;
 * - `--no-pager`: one whose output may be paged, a table of pets it reads (`pets create`
 *   never starts a pager, nor `pets watch`, which declares `outputs` of its own);
 * - any other (`--no-color`, a flag added later): every command.
 * The others are still accepted, so that a flag of an alias (`petstore --env staging`)
 * does not break a command it does nothing for; record flags are refused (program.ts).
 */
export function takesGlobalFlag(traits: CommandTraits, long: string): boolean {
  const requests = traits.environment === 'request';
  switch (long) {
    case '--env':
    case '--base-url':
      return traits.environment !== 'none';
    case '--timeout':
    case '--retries':
    case '--verbose':
      return requests;
    case '--output':
    case '--json':
      return traits.formats || traits.recordFlags.length > 0;
    case '--fields':
    case '--jq':
      return traits.recordFlags.includes(long);
    case '--fail-on-deprecated':
      return traits.operations.some((id) => operationOf(id).removal !== undefined);
    case '--yes':
      return traits.asks || (requests && traits.writes !== false);
    case '--no-pager':
      // A command with output forms of its own (`outputs`: `pets watch`, a table redrawn in place) never pages.
      return traits.recordFlags.includes('--fields') && traits.writes === false && traits.outputs === undefined;
    default:
      return true;
  }
}

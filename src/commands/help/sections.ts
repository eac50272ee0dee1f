/**
 * The sections of `help --json` that are not the command tree: the environment variables
 * (from the registry, `config/env-vars.ts`), the error codes (petstore's own,
 * `ERROR_CODE_INFO`, and the sandbox's, `SANDBOX_ERROR_CODES`) and the value types the
 * document names. Loaded only when `help --json` runs; docs/commands.md "help" is the shape.
 */
import { ENV_VARS, type EnvVarName, type EnvVarSpec } from '../../config/env-vars.js';
import { ERROR_CODE_INFO, ERROR_CODES, RECORD_CODES, exitCodeForStatus } from '../../base/errors.js';
import { SANDBOX_ERROR_CODES } from '../../sandbox/error-codes.js';

/** What a command offers for the variables' `readWith`: its words, own flags and the global flags acting on it. */
export interface CommandReach {
  path: string[];
  flags: { long: string }[];
  globalFlags: string[];
  subcommands: string[];
}

/** One environment variable. */
export interface EnvironmentDoc {
  name: string;
  /** `string`, `boolean`, `path`, `absolute-path`, or `enum` (one of `values`). */
  type: string;
  values: string[] | null;
  /** What applies when it is unset, in words; `null` when nothing does. */
  default: string | null;
  meaning: string;
  /** The flag that does the same and wins over it. */
  flag: string | null;
  /** Its lower-case name, read too and winning when both are set (`https_proxy`). */
  lowercase: string | null;
  /** A secret: never printed. */
  secret: boolean;
  /** `petstore`; `node` (Node itself) or `shim` (the start-up shim, before the CLI). */
  readBy: 'petstore' | 'node' | 'shim';
  /** The commands that read it, by their words (`pets list`). */
  commands: string[];
}

/**
 * The commands (by words) `readWith` names, among the commands that run: a command's words
 * name it; a flag names those that have it or on which it acts (`globalFlags`).
 */
function readers(readWith: readonly string[] | undefined, commands: readonly CommandReach[]): string[] {
  const runs = commands.filter((c) => c.subcommands.length === 0);
  if (readWith === undefined) return runs.map((c) => c.path.join(' '));
  return runs
    .filter((c) =>
      readWith.some((item) =>
        item.startsWith('-')
          ? c.globalFlags.includes(item) || c.flags.some((f) => f.long === item)
          : c.path.join(' ') === item,
      ),
    )
    .map((c) => c.path.join(' '));
}

/** Every variable of the registry, in its order, with the commands (of `commands`, the whole tree) that read it. */
export function environmentDocs(commands: readonly CommandReach[]): EnvironmentDoc[] {
  return (Object.keys(ENV_VARS) as EnvVarName[]).map((name) => {
    const spec: EnvVarSpec = ENV_VARS[name];
    const type = spec.type;
    return {
      name,
      type: typeof type === 'string' ? type : 'enum',
      values: typeof type === 'string' ? null : [...type],
      default: spec.default ?? null,
      meaning: spec.meaning,
      flag: spec.flag ?? null,
      lowercase: spec.lowercase === true ? name.toLowerCase() : null,
      secret: spec.secret === true,
      readBy: spec.readBy ?? 'petstore',
      commands: readers(spec.readWith ?? (spec.flag === undefined ? undefined : [spec.flag]), commands),
    };
  });
}

/** One error code. */
interface ErrorDoc {
  code: string;
  /** `petstore`: one of its own; `server`: an API Error `code`, as the sandbox sends it. */
  source: 'petstore' | 'server';
  /** The HTTP status a server's code comes with; `null` for petstore's own. */
  status: number | null;
  /** The exit codes it comes with, the usual one first; `[]` for a record's code in an account. */
  exit: number[];
  meaning: string;
}

/** The errors section: a note on what the list covers, and the codes. */
export interface ErrorsDoc {
  note: string;
  codes: ErrorDoc[];
}

/** petstore's own codes, a bulk create's record codes, then the sandbox's by status. */
export function errorsDoc(): ErrorsDoc {
  const own: ErrorDoc[] = ERROR_CODES.map((code) => ({
    code,
    source: 'petstore',
    status: null,
    exit: [...ERROR_CODE_INFO[code].exit],
    meaning: ERROR_CODE_INFO[code].meaning,
  }));
  const records: ErrorDoc[] = Object.entries(RECORD_CODES).map(([code, meaning]) => ({
    code,
    source: 'petstore',
    status: null,
    exit: [],
    meaning,
  }));
  const server: ErrorDoc[] = SANDBOX_ERROR_CODES.map(({ code, status, meaning }) => ({
    code,
    source: 'server',
    status,
    exit: [exitCodeForStatus(status)],
    meaning,
  }));
  return {
    note: "A server's Error code passes through unchanged, its exit code following the HTTP status (400: 6, 401: 4, 404: 5, any other: 1). The spec leaves the API's codes open (§7, not shown): the server codes here are those the sandbox sends; another server may send others.",
    codes: [...own, ...records, ...server],
  };
}

/** What each value type the document names means (flags, arguments and variables). */
export const VALUE_TYPES: Readonly<Record<string, string>> = {
  boolean: 'a flag without a value; a variable: 0 and false (any case) are off, any other value on',
  string: 'text, as given',
  enum: 'exactly one of `values`',
  list: 'comma-separated items of `values`, spaces around them allowed, each at most once',
  integer: 'decimal digits only (leading zeros allowed, no sign, point or exponent), within `range`',
  number: 'decimal digits with an optional fraction (no sign or exponent), within `range`',
  int64: 'an optional -, then decimal digits, from -9223372036854775808 to 9223372036854775807, exact',
  path: 'a file or folder path',
  'absolute-path': 'an absolute path; a relative one counts as unset',
};

/**
 * The registry of environment variables: every variable petstore reads, declared once
 * with its type, what applies when it is unset, and its meaning (wrangler's
 * `environment-variables/factory.ts`, STYLE.md "One registry of environment variables").
 * Code reads them only through `EnvVars` (`config/env.ts`); docs/commands.md lists them
 * from here (test/unit/env-vars.test.ts keeps the two equal), and so can a man page.
 *
 * One rule for "set", for every variable: defined and not empty. An empty value is the
 * same as none (no-color.org, XDG Base Directory, curl's proxies). A `boolean` is off for
 * `0` and `false` (any case) and on for any other value.
 *
 * To add a variable: one entry below (keep `meaning` one short sentence; the list in
 * docs/commands.md is then regenerated from it), and read it with `ctx.env.get('NAME')`.
 */

/**
 * How a value is read: `string` as given; `boolean` (`0`/`false` off, anything else on);
 * `path` as given; `absolute-path`, where a relative value counts as unset; or a list of
 * the values allowed (anything else is a usage error, exit 2).
 */
export type EnvVarType = 'string' | 'boolean' | 'path' | 'absolute-path' | readonly string[];

/** One variable's declaration. */
export interface EnvVarSpec {
  type: EnvVarType;
  /** What applies when it is unset, in a few words; omitted when nothing does. */
  default?: string;
  /** What it does, in one short sentence (docs and the man page print it as it is). */
  meaning: string;
  /** Also read in lower case, which wins when both are set (curl's rule for proxies). */
  lowercase?: true;
  /** A secret: never printed, and left out of the environment of the processes petstore starts. */
  secret?: true;
  /**
   * Read by Node itself, or by the start-up shim (bin/petstore.js, before the CLI is
   * loaded), not through `EnvVars`: listed for users only.
   */
  readBy?: 'node' | 'shim';
  /** The flag (long name) that does the same and wins over it, for `help --json`'s flags. */
  flag?: string;
  /**
   * Which commands read it, for `help --json`: each item a command's words (`sandbox
   * serve`), or a flag standing for the commands it acts on (a global flag's as
   * `takesGlobalFlag` says: `--env` those that use an environment, `--timeout` those that
   * send requests, `--no-pager` those that page, `--yes` those that ask; another flag's,
   * the commands that have it). Omitted: `flag`'s commands, else every command.
   */
  readWith?: readonly string[];
}

/** The commands that read the config folder: those of an environment, and those of the config file itself. */
const CONFIG_READERS = [
  '--env',
  'config get',
  'config set',
  'config unset',
  'config path',
  'env use',
  'env remove',
  'sandbox serve',
  'sandbox reset',
] as const;
/** The commands that may start a pager: those that page a table, and `help` (any `--help` too). */
const PAGER_READERS = ['--no-pager', 'help'] as const;
/** The commands that send requests (`--timeout` acts on them). */
const REQUESTS = ['--timeout'] as const;

/** Every environment variable petstore reads (or, `readBy: 'node'`, that Node reads for it). */
export const ENV_VARS = {
  PETSTORE_ENV: {
    flag: '--env',
    type: 'string',
    default: "the config file's `environment`, else `production`",
    meaning: 'The environment (`production`, `staging`, `sandbox` or a configured name), when `--env` is not given.',
  },
  PETSTORE_BASE_URL: {
    flag: '--base-url',
    type: 'string',
    default: "the config file's `<env>.baseUrl`",
    meaning: 'The base URL, unless `--base-url` is given, or `--env` names an environment with its own `baseUrl`.',
  },
  PETSTORE_API_KEY: {
    readWith: ['--env'],
    type: 'string',
    default: "the environment's `apiKeyCommand`, else its stored key",
    meaning:
      'The API key, before `apiKeyCommand` and a stored key; not when `--env` names one with its own URL and key.',
    secret: true,
  },
  PETSTORE_CONFIG_DIR: {
    readWith: CONFIG_READERS,
    type: 'path',
    default: '`$XDG_CONFIG_HOME/petstore`',
    meaning: "The folder of the config file and the sandbox's data.",
  },
  PETSTORE_STATE_DIR: {
    readWith: ['--from-file'],
    type: 'path',
    default: '`$XDG_STATE_HOME/petstore`',
    meaning: 'The folder where petstore keeps the records of bulk creates, so that re-runs do not duplicate.',
  },
  PETSTORE_FAIL_ON_DEPRECATED: {
    flag: '--fail-on-deprecated',
    type: 'boolean',
    default: 'off',
    meaning: 'Never call deprecated operations, as `--fail-on-deprecated`.',
  },
  PETSTORE_DEBUG: {
    readWith: ['--verbose'],
    type: 'string',
    default: 'off',
    meaning:
      '`api`: `--verbose` and the bodies, credentials redacted; any other value but `0` or `false`: `--verbose`.',
  },
  PETSTORE_NO_PROMPT: {
    readWith: ['--yes'],
    type: 'boolean',
    default: 'off',
    meaning: 'Nothing is asked, even on a terminal: missing `pets create` values, `confirmWrites` questions.',
  },
  PETSTORE_BULK_CONNECTIONS: {
    readWith: ['--from-file'],
    type: ['fresh', 'keep-alive'],
    default: '`fresh`: a new connection per request',
    meaning:
      '`keep-alive`: a bulk create reuses connections (faster; a server closing one can leave a record unknown).',
  },
  PETSTORE_SANDBOX_KEY: {
    readWith: ['--env', 'sandbox serve'],
    type: 'string',
    default: 'the key kept beside the sandbox data file (`sandbox.json.key`), made on first use',
    meaning: 'The key the sandbox accepts, for `sandbox serve` and the embedded sandbox; never stored.',
    secret: true,
  },
  PETSTORE_SANDBOX_WITHOUT_GET_PET: {
    readWith: REQUESTS,
    type: 'boolean',
    default: 'off',
    meaning: "The embedded sandbox plays the API after getPet's removal (`410 Gone`).",
  },
  PETSTORE_PAGER: {
    readWith: PAGER_READERS,
    type: 'string',
    default: '`PAGER`',
    meaning: 'The pager for a table or help longer than the screen; `cat` turns paging off (as `--no-pager` does).',
  },
  PETSTORE_MESSAGES: {
    type: ['json', 'text'],
    default: 'text on a terminal; JSON when stderr is not a terminal and the output is `json` or `ndjson` (or `--jq`)',
    meaning: 'The form of every message on stderr: `json` (one object a line) or `text`.',
  },
  PAGER: {
    readWith: PAGER_READERS,
    type: 'string',
    default: '`less -FRX`, when `less` is on `PATH`',
    meaning: 'The pager when `PETSTORE_PAGER` is unset; `cat` turns paging off.',
  },
  LESS: {
    readWith: PAGER_READERS,
    type: 'string',
    default: '`FRX` for a pager named by `PETSTORE_PAGER` or `PAGER`',
    meaning: 'The options of `less`, passed on to the pager.',
  },
  PATH: {
    readWith: [...PAGER_READERS, '--env'],
    type: 'string',
    meaning: 'Where `less` and the program of an `apiKeyCommand` are looked for.',
  },
  NO_COLOR: {
    flag: '--no-color',
    type: 'string',
    meaning: 'Any value: no colour (no-color.org); wins over `FORCE_COLOR`.',
  },
  FORCE_COLOR: {
    type: 'boolean',
    meaning: 'Colour even when not writing to a terminal; `0` or `false`: no colour.',
  },
  CLICOLOR: {
    type: 'boolean',
    meaning: '`0` or `false`: no colour.',
  },
  CLICOLOR_FORCE: {
    type: 'boolean',
    meaning: 'Colour even when not writing to a terminal.',
  },
  TERM: {
    type: 'string',
    meaning: '`dumb`: no colour.',
  },
  HTTPS_PROXY: {
    readWith: REQUESTS,
    type: 'string',
    lowercase: true,
    meaning:
      'The proxy for `https://` base URLs (read as `http://` without a scheme); loopback hosts are never proxied.',
  },
  HTTP_PROXY: {
    readWith: REQUESTS,
    type: 'string',
    lowercase: true,
    meaning: 'The proxy for `http://` URLs only; the only plain-http base URLs allowed are loopback, never proxied.',
  },
  NO_PROXY: {
    readWith: REQUESTS,
    type: 'string',
    lowercase: true,
    meaning: 'Hosts reached without a proxy (comma-separated; `example.com` covers its hosts too; `*` for all).',
  },
  LC_ALL: {
    readWith: ['--sort'],
    type: 'string',
    meaning: 'The locale whose collation `pets list --sort name` orders names by (`C`, `POSIX`: code point order).',
  },
  LC_COLLATE: {
    readWith: ['--sort'],
    type: 'string',
    meaning: 'The collation of `pets list --sort name` when `LC_ALL` is unset.',
  },
  LANG: {
    readWith: ['--sort'],
    type: 'string',
    meaning: 'The collation of `pets list --sort name` when `LC_ALL` and `LC_COLLATE` are unset.',
  },
  TMPDIR: {
    readWith: ['--from-file'],
    type: 'absolute-path',
    default: "the system's temporary folder",
    meaning: 'Where input of `--from-file` that can be read only once (stdin, a pipe) is spooled.',
  },
  XDG_CONFIG_HOME: {
    readWith: CONFIG_READERS,
    type: 'absolute-path',
    default: '`$HOME/.config`',
    meaning: 'The base of the config folder when `PETSTORE_CONFIG_DIR` is unset.',
  },
  XDG_STATE_HOME: {
    readWith: ['--from-file'],
    type: 'absolute-path',
    default: '`$HOME/.local/state`',
    meaning: 'The base of the state folder when `PETSTORE_STATE_DIR` is unset.',
  },
  HOME: {
    readWith: CONFIG_READERS,
    type: 'path',
    default: "the account's home folder",
    meaning: 'The home folder, under which `~/.config` and `~/.local/state` lie.',
  },
  NODE_EXTRA_CA_CERTS: {
    readWith: REQUESTS,
    type: 'path',
    readBy: 'node',
    meaning: 'A PEM file of extra CA certificates, for an API behind a private CA.',
  },
  XDG_CACHE_HOME: {
    type: 'absolute-path',
    default: '`$HOME/.cache`',
    readBy: 'shim',
    meaning: "The base of the folder (`petstore/` in it) of the start-up's code cache.",
  },
  NODE_DISABLE_COMPILE_CACHE: {
    type: 'boolean',
    default: 'off',
    readBy: 'shim',
    meaning: "No code cache at start-up (Node's own switch, honoured by petstore too).",
  },
} as const satisfies Record<string, EnvVarSpec>;

/** The variable that does what the flag `long` (`--base-url`) does, if one does. */
export function envVarOfFlag(long: string): EnvVarName | undefined {
  return (Object.keys(ENV_VARS) as EnvVarName[]).find((name) => {
    const spec: EnvVarSpec = ENV_VARS[name];
    return spec.flag === long;
  });
}

/** The name of a declared variable. */
export type EnvVarName = keyof typeof ENV_VARS;

/** The names of the variables petstore reads itself (not those Node reads for it). */
export type ReadEnvVarName = {
  [N in EnvVarName]: (typeof ENV_VARS)[N] extends { readBy: 'node' | 'shim' } ? never : N;
}[EnvVarName];

type ValueOf<T> = T extends 'boolean' ? boolean : T extends readonly (infer V extends string)[] ? V : string;

/** What `EnvVars.get` gives for a variable of this name: a boolean, one of its values, or a string. */
export type EnvVarValue<N extends EnvVarName> = ValueOf<(typeof ENV_VARS)[N]['type']>;

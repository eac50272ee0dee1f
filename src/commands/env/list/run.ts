/**
 * `env list`: one row per environment (cli-contract.md "Environments", "Commands"):
 * production, staging, the configured names in alphabetical order, then the sandbox; each
 * with its base URL, where its key would come from (a stored or `PETSTORE_API_KEY` key
 * masked, never whole), and whether it is current: the environment every command run with
 * the same flags and variables would use (`--env` > `PETSTORE_ENV` > config `environment` >
 * production), with where that choice came from.
 *
 * Keys are not resolved (`keys: false`): listing never runs an `apiKeyCommand` (it may ask
 * a password manager to unlock); such an environment shows `apiKeyCommand` as its source.
 *
 * Output: on a terminal an aligned table under a header row (`NAME  BASE URL  KEY
 * CURRENT`), the current row marked `*` (kubectl's get-contexts), never wider than the
 * terminal: the key's masked part goes first, then the key is cut, then the URL; piped (or `-o tsv`)
 * `name<TAB>baseUrl<TAB>key<TAB>current`; `-o json` an array of `EnvRow`; `ndjson` one a line.
 */
import type { Context } from '../../../context.js';
import { ExitCode, UsageError } from '../../../base/errors.js';
import { maskKey } from '../../../base/mask.js';
import { requireEnvironment, type RemoteSettings } from '../../../config/settings.js';
import { SANDBOX } from '../../../config/environments.js';
import { escapeForTerminal, escapeTsvField } from '../../../text/escape.js';
import { renderColumns } from '../../../text/columns.js';

/** Where an environment's key would come from, in the order resolution tries them. */
type KeySource = 'PETSTORE_API_KEY' | 'apiKeyCommand' | 'stored' | 'none' | 'sandbox';

/** One environment as `env list --json` prints it. */
interface EnvRow {
  name: string;
  /** The base URL a command would use (null when none is set, and for the sandbox). */
  baseUrl: string | null;
  /** Where the base URL comes from: a flag, a variable or a config key; null when unset. */
  baseUrlFrom: string | null;
  keySource: KeySource;
  /** The key masked (`****wxyz`) for a stored or `PETSTORE_API_KEY` key, else null. */
  maskedKey: string | null;
  /** For a stored key bound to another URL than `baseUrl`: that URL (the key is not sent). */
  keyStoredFor?: string;
  current: boolean;
  /** For the current one: what chose it (`--env`, `PETSTORE_ENV`, `environment` of the config, `default`); else null. */
  currentFrom: string | null;
}

/** The row of a remote environment. */
function remoteRow(ctx: Context, r: RemoteSettings, currentFrom: string | null): EnvRow {
  // A bad variable for the selected environment is a usage error, as in every command.
  if (r.selected && !r.baseUrl.ok && r.baseUrl.error instanceof UsageError) throw r.baseUrl.error;
  const baseUrl = r.baseUrl.ok ? r.baseUrl.value : null;
  const row: EnvRow = {
    name: r.name,
    baseUrl,
    baseUrlFrom: r.baseUrl.ok ? r.baseUrl.from : null,
    keySource: 'none',
    maskedKey: null,
    current: r.selected,
    currentFrom,
  };
  const fromVariable = r.selected ? ctx.env.get('PETSTORE_API_KEY') : undefined;
  if (fromVariable !== undefined) return { ...row, keySource: 'PETSTORE_API_KEY', maskedKey: maskKey(fromVariable) };
  if (r.command !== undefined) return { ...row, keySource: 'apiKeyCommand' };
  if (r.stored !== undefined) {
    const other = r.stored.baseUrl !== baseUrl ? { keyStoredFor: r.stored.baseUrl } : {};
    return { ...row, keySource: 'stored', maskedKey: maskKey(r.stored.key), ...other };
  }
  return row;
}

/**
 * The environments, in the order of cli-contract.md "Environments".
 * @throws ConfigError for a broken config file; UsageError/ConfigError for an environment
 * that cannot be selected (an unknown `--env`), or a bad `PETSTORE_BASE_URL`.
 */
async function collectRows(ctx: Context): Promise<EnvRow[]> {
  // A broken config file is this command's error, not a detail of each row.
  await ctx.loadConfig();
  const settings = await ctx.settings('all', { keys: false });
  const environment = requireEnvironment(settings);
  const rows = settings.remotes.map((r) => remoteRow(ctx, r, r.selected ? environment.from : null));
  const sandbox = environment.value === SANDBOX;
  rows.push({
    name: SANDBOX,
    baseUrl: null,
    baseUrlFrom: null,
    keySource: 'sandbox',
    maskedKey: null,
    current: sandbox,
    currentFrom: sandbox ? environment.from : null,
  });
  return rows;
}

/** The key column as a person reads it: `stored ****wxyz`, `apiKeyCommand`, `none`. */
function describeKey(row: EnvRow): string {
  switch (row.keySource) {
    case 'stored':
      return `stored ${row.maskedKey ?? ''}${row.keyStoredFor === undefined ? '' : ` (for ${row.keyStoredFor}, not sent)`}`;
    case 'PETSTORE_API_KEY':
      return `PETSTORE_API_KEY ${row.maskedKey ?? ''}`;
    case 'sandbox':
      return 'embedded';
    default:
      return row.keySource;
  }
}

/** What chose the current environment, as a person reads it. */
function describeCurrent(row: EnvRow): string {
  if (!row.current) return '';
  switch (row.currentFrom) {
    case 'environment':
      return 'current (config environment)';
    case 'default':
      return 'current (default)';
    default:
      return `current (${row.currentFrom ?? ''})`;
  }
}

/** Prints the environments in the selected output format. */
export async function runList(ctx: Context): Promise<number> {
  const rows = await collectRows(ctx);
  const { io } = ctx;
  switch (ctx.output) {
    case 'json':
      await io.out(`${JSON.stringify(rows, null, 2)}\n`);
      break;
    case 'ndjson':
      await io.out(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
      break;
    case 'table': {
      const cells = [
        ['', 'NAME', 'BASE URL', 'KEY', 'CURRENT'],
        ...rows.map((r) => [
          r.current ? '*' : '',
          r.name,
          escapeForTerminal(r.name === SANDBOX ? '(embedded)' : (r.baseUrl ?? '(not set)')),
          escapeForTerminal(describeKey(r)),
          describeCurrent(r),
        ]),
      ];
      const dim = (t: string): string => io.colorOut.dim(t);
      await io.out(
        renderColumns(cells, {
          width: io.stdoutColumns,
          // What chose the current one goes first; then the key (its source without the
          // masked key, then cut), before the URL a person needs to tell environments apart.
          shrink: [
            { columns: [4], min: 7 },
            { column: 3, shorter: ['KEY', ...rows.map((r) => (r.keySource === 'sandbox' ? 'embedded' : r.keySource))] },
            { columns: [3], min: 6 },
            { columns: [2], min: 16 },
          ],
          style: (column, text) => (column === 4 ? dim(text) : text),
          header: (text) => io.colorOut.bold(text),
        }),
      );
      break;
    }
    default:
      // `tsv` (csv is refused before the run: this command prints no pets).
      await io.out(
        rows
          .map((r) =>
            [r.name, r.baseUrl ?? '', describeKey(r), describeCurrent(r)].map((c) => escapeTsvField(c)).join('\t'),
          )
          .map((line) => `${line}\n`)
          .join(''),
      );
  }
  return ExitCode.ok;
}

/**
 * `config list`: every effective setting, with where it comes from (flag, env
 * var, command, file, default), as a command run with the same flags and environment would
 * use it (cli-contract.md "Environments"). Keys are shown masked, with the URL they were
 * stored for; a key from an `apiKeyCommand` is got by running the command (once), as a
 * command that connects would.
 *
 * Output: on a terminal an aligned table, never wider than the terminal (the value and
 * source columns are shortened with `…`); piped, one setting per line as
 * `key<TAB>value<TAB>source` (an unset value is empty); `--output json` an array of
 * `{key, value, source, from}` (`value` null when unset); `ndjson` one such object a line.
 */
import type { Context, SettingsContext } from '../../../context.js';
import { ExitCode, UsageError } from '../../../base/errors.js';
import { maskKey } from '../../../base/mask.js';
import { isUsable, requireEnvironment, type RemoteSettings, type Source } from '../../../config/settings.js';
import { escapeForTerminal, escapeTsvField } from '../../../text/escape.js';
import { renderColumns } from '../../../text/columns.js';

/** One line of `config list`. */
interface SettingRow {
  key: string;
  value: string | null;
  /** `flag`, `env`, `command`, `file`, `default`, or `none` when unset. */
  source: Source | 'none';
  /** The flag, variable or file key that supplied it (null when unset). */
  from: string | null;
  /** For a stored key: the base URL it was stored for. */
  storedFor?: string;
  /** For a stored key: false when it would not be sent (bound to another base URL). */
  usable?: boolean;
  /** For a key: why there is none, when its source failed (a key command that exited 1). */
  error?: string;
}

/**
 * Collects the effective settings.
 * @throws UsageError for a bad `--env`/`--base-url`/variable, ConfigError for a broken file.
 */
async function collectSettings(ctx: Pick<SettingsContext, 'loadConfig' | 'settings'>): Promise<SettingRow[]> {
  // A broken config file is this command's error, not a detail of each row.
  const store = await ctx.loadConfig();
  const settings = await ctx.settings('all');
  const environment = requireEnvironment(settings);
  const rows: SettingRow[] = [
    { key: 'environment', value: environment.value, source: environment.source, from: environment.from },
  ];
  for (const r of settings.remotes) {
    // A bad variable for the selected environment is a usage error, as in every command.
    if (r.selected && !r.baseUrl.ok && r.baseUrl.error instanceof UsageError) throw r.baseUrl.error;
    rows.push(
      r.baseUrl.ok
        ? { key: `${r.name}.baseUrl`, value: r.baseUrl.value, source: r.baseUrl.source, from: r.baseUrl.from }
        : { key: `${r.name}.baseUrl`, value: null, source: 'none', from: null },
    );
  }
  for (const r of settings.remotes) {
    const key = `${r.name}.apiKeyCommand`;
    rows.push(
      r.command === undefined
        ? { key, value: null, source: 'none', from: null }
        : { key, value: r.command, source: 'file', from: key },
    );
  }
  for (const field of ['confirmWrites', 'idempotencyKeys'] as const) {
    for (const r of settings.remotes) {
      const key = `${r.name}.${field}`;
      const inFile = store.getSetting(key) !== undefined;
      rows.push({
        key,
        value: String(r[field]),
        source: inFile ? 'file' : 'default',
        from: inFile ? key : 'default',
      });
    }
  }
  for (const r of settings.remotes) rows.push(keyRow(r));
  return rows;
}

/** The row of an environment's key: masked, with its source, or why there is none. */
function keyRow(r: RemoteSettings): SettingRow {
  const name = `${r.name}.key`;
  const { key, stored } = r;
  if (key?.ok === true) {
    const row: SettingRow = { key: name, value: maskKey(key.value), source: key.source, from: key.from };
    if (key.source === 'file' && stored !== undefined) {
      row.storedFor = stored.baseUrl;
      row.usable = isUsable(r);
    }
    return row;
  }
  if (key === undefined || key.missing) return { key: name, value: null, source: 'none', from: null };
  const failed = { error: key.error.message, ...(key.source === undefined ? {} : { source: key.source }) };
  if (key.source === 'file' && stored !== undefined) {
    return {
      key: name,
      value: maskKey(stored.key),
      from: `auth.${r.name}`,
      source: 'file',
      storedFor: stored.baseUrl,
      usable: false,
      ...failed,
    };
  }
  return { key: name, value: null, source: 'none', from: key.from ?? null, ...failed };
}

function describeSource(row: SettingRow): string {
  switch (row.source) {
    case 'flag':
      return `flag ${row.from}`;
    case 'env':
      return `env ${row.from}`;
    case 'file':
      // A stored key's URL is worth a mention only when it is not the base URL above.
      return row.usable === false && row.storedFor !== undefined
        ? `file, not sent: stored for ${row.storedFor}`
        : 'file';
    case 'none':
      return row.error === undefined ? '' : `${row.from ?? 'key'} failed`;
    default:
      return row.source;
  }
}

/** Prints the effective settings in the selected output format. */
export async function runList(ctx: Context): Promise<number> {
  const rows = await collectSettings(ctx);
  const { io } = ctx;
  switch (ctx.output) {
    case 'json':
      await io.out(`${JSON.stringify(rows, null, 2)}\n`);
      break;
    case 'ndjson':
      await io.out(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
      break;
    case 'tsv':
      await io.out(
        rows.map((r) => `${r.key}\t${escapeTsvField(r.value ?? '')}\t${escapeTsvField(describeSource(r))}\n`).join(''),
      );
      break;
    case 'table':
      await io.out(renderTable(rows, io.stdoutColumns, (t) => io.colorOut.dim(t)));
      break;
  }
  return ExitCode.ok;
}

/**
 * The aligned table: key, value (`(not set)` when unset) and source. With `columns` (a
 * terminal's width) no line is wider: the source, then the value, are shortened with `…`;
 * the full values are in `-o tsv|json`.
 */
function renderTable(rows: SettingRow[], columns: number | undefined, dim: (t: string) => string): string {
  const cells = rows.map((r) => [
    r.key,
    escapeForTerminal(r.value ?? '(not set)'),
    escapeForTerminal(describeSource(r)),
  ]);
  return renderColumns(cells, {
    width: columns,
    // The source's details go first (to 15 columns: `flag --base-url` whole), then the value
    // and the source alike, down to 10 columns each.
    shrink: [
      { columns: [2], min: 15 },
      { columns: [1, 2], min: 10 },
    ],
    style: (column, text) => (column === 2 ? dim(text) : text),
  });
}

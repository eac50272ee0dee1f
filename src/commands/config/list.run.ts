/**
 * `config list`: every effective setting, with where it comes from (flag, env
 * var, file, default), as a command run with the same flags and environment would use it
 * (cli-contract.md "Environments"). Keys are shown masked, with the URL they were stored for.
 *
 * Output: on a terminal an aligned table; piped, one setting per line as
 * `key<TAB>value<TAB>source` (an unset value is empty); `--output json` an array of
 * `{key, value, source, from}` (`value` null when unset); `ndjson` one such object a line.
 */
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { maskKey } from '../../mask.js';
import { isUsable, requireEnvironment, type Source } from '../../config/settings.js';

/** One line of `config list`. */
export interface SettingRow {
  key: string;
  value: string | null;
  /** `flag`, `env`, `file`, `default`, or `none` when unset. */
  source: Source | 'none';
  /** The flag, variable or file key that supplied it (null when unset). */
  from: string | null;
  /** For a stored key: the base URL it was stored for. */
  storedFor?: string;
  /** For a stored key: false when it would not be sent (bound to another base URL). */
  usable?: boolean;
}

/**
 * Collects the effective settings.
 * @throws UsageError for a bad `--env`/`--base-url`/variable, ConfigError for a broken file.
 */
async function collectSettings(ctx: Context): Promise<SettingRow[]> {
  // A broken config file is this command's error, not a detail of each row.
  await ctx.loadConfig();
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
    const { key } = r;
    const row: SettingRow =
      key.value === undefined
        ? { key: `${r.name}.key`, value: null, source: 'none', from: null }
        : {
            key: `${r.name}.key`,
            value: maskKey(key.value),
            source: key.source === 'env' ? 'env' : 'file',
            from: key.source === 'env' ? 'PETSTORE_API_KEY' : `auth.${r.name}`,
          };
    if (key.source === 'file' && key.stored !== undefined) {
      row.storedFor = key.stored.baseUrl;
      row.usable = isUsable(r);
    }
    rows.push(row);
  }
  return rows;
}

function describeSource(row: SettingRow): string {
  switch (row.source) {
    case 'flag':
      return `flag ${row.from}`;
    case 'env':
      return `env ${row.from}`;
    case 'file':
      return row.storedFor === undefined
        ? 'file'
        : `file, stored for ${row.storedFor}${row.usable === false ? ' (not sent to the current base URL)' : ''}`;
    case 'none':
      return '';
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
      io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      break;
    case 'ndjson':
      for (const r of rows) io.stdout.write(`${JSON.stringify(r)}\n`);
      break;
    case 'tsv':
      for (const r of rows) io.stdout.write(`${r.key}\t${r.value ?? ''}\t${describeSource(r)}\n`);
      break;
    case 'table': {
      const keyWidth = Math.max(...rows.map((r) => r.key.length));
      const values = rows.map((r) => r.value ?? '(not set)');
      const valueWidth = Math.max(...values.map((v) => v.length));
      rows.forEach((r, i) => {
        const source = describeSource(r);
        const line = `${r.key.padEnd(keyWidth)}  ${(values[i] as string).padEnd(valueWidth)}  ${io.colorOut.dim(source)}`;
        io.stdout.write(`${line.trimEnd()}\n`);
      });
      break;
    }
  }
  return ExitCode.ok;
}

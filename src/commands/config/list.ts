/**
 * `petstore config list`: every effective setting, with where it comes from (flag, env
 * var, file, default), as a command run with the same flags and environment would use it
 * (cli-contract.md "Environments"). Keys are shown masked, with the URL they were stored for.
 *
 * Output: on a terminal an aligned table; piped, one setting per line as
 * `key<TAB>value<TAB>source` (an unset value is empty); `--output json` an array of
 * `{key, value, source, from}` (`value` null when unset); `ndjson` one such object a line.
 */
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { maskKey } from '../../mask.js';
import { describeRemote } from '../../config/effective.js';
import { resolveEnvironment, type Source } from '../../config/settings.js';

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
export async function collectSettings(ctx: Context): Promise<SettingRow[]> {
  const environment = await resolveEnvironment(ctx.globals.env, ctx.env, ctx.loadConfig);
  const store = await ctx.loadConfig();
  const rows: SettingRow[] = [
    { key: 'environment', value: environment.value, source: environment.source, from: environment.from },
  ];
  const remotes = (['production', 'staging'] as const).map((name) =>
    describeRemote(name, environment.value === name, ctx.globals.baseUrl, ctx.env, store),
  );
  for (const r of remotes) {
    rows.push(
      r.baseUrl === undefined
        ? { key: `${r.name}.baseUrl`, value: null, source: 'none', from: null }
        : { key: `${r.name}.baseUrl`, value: r.baseUrl.value, source: r.baseUrl.source, from: r.baseUrl.from },
    );
  }
  for (const r of remotes) {
    const row: SettingRow =
      r.key.value === undefined
        ? { key: `${r.name}.key`, value: null, source: 'none', from: null }
        : {
            key: `${r.name}.key`,
            value: maskKey(r.key.value),
            source: r.key.source === 'env' ? 'env' : 'file',
            from: r.key.source === 'env' ? 'PETSTORE_API_KEY' : `auth.${r.name}`,
          };
    if (r.key.source === 'file' && r.key.stored !== undefined) {
      row.storedFor = r.key.stored.baseUrl;
      row.usable = r.key.usable;
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
  switch (ctx.renderMode()) {
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

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context): Promise<number> {
  return runList(ctx);
}

/**
 * `petstore auth status [--check]`: for each environment, its base URL and where it comes
 * from, where the key comes from and the key masked; the selected environment is marked
 * (cli-contract.md "Commands"). With `--check`, one `GET /pets?limit=1` per usable key.
 *
 * Exit code: 0 without `--check`. With `--check`, the selected environment's result
 * decides: ok → 0, no key or a rejected key (401) → 4, unreachable → 3, no base URL → 2,
 * any other failed answer → its own code (1 for a 5xx). Other environments' results are
 * shown but do not change the exit code.
 */
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { maskKey } from '../../mask.js';
import { resolveEnvironment, type Resolved } from '../../config/settings.js';
import { describeRemote, type RemoteStatus } from '../../config/effective.js';
import { checkKey } from './check.js';

/** Typed options of `auth status`. */
export interface StatusOptions {
  check: boolean;
}

/** Turns commander's values into typed options. */
export function parseStatusOptions(opts: Record<string, unknown>): StatusOptions {
  return { check: opts.check === true };
}

/** Result of `--check` for one environment. */
type CheckResult = 'ok' | 'rejected' | 'unreachable' | 'failed' | 'no_key' | 'no_base_url';

interface Row {
  status: RemoteStatus;
  check?: { result: CheckResult; message?: string; exitCode: number };
}

/**
 * Prints the status of every environment on stdout (JSON with `--output json`).
 * @throws UsageError for a bad `--env`/`--base-url`, ConfigError for a broken config file.
 */
export async function runStatus(ctx: Context, options: StatusOptions): Promise<number> {
  const selected = await resolveEnvironment(ctx.globals.env, ctx.env, ctx.loadConfig);
  const store = await ctx.loadConfig();
  const rows: Row[] = (['production', 'staging'] as const).map((name) => ({
    status: describeRemote(name, selected.value === name, ctx.globals.baseUrl, ctx.env, store),
  }));
  if (options.check) await Promise.all(rows.map(async (row) => (row.check = await runCheck(ctx, row.status))));

  const selectedRow = rows.find((r) => r.status.name === selected.value);
  const code = options.check && selectedRow?.check !== undefined ? selectedRow.check.exitCode : ExitCode.ok;

  const mode = ctx.renderMode();
  if (mode === 'json' || mode === 'ndjson') {
    const environments = [
      ...rows.map((r) => ({
        ...toJson(r.status),
        ...(r.check === undefined
          ? {}
          : { check: r.check.result, ...(r.check.message === undefined ? {} : { checkMessage: r.check.message }) }),
      })),
      {
        name: 'sandbox',
        selected: selected.value === 'sandbox',
        baseUrl: { value: null, source: 'sandbox', from: 'sandbox' },
        key: { source: 'sandbox', masked: null, storedFor: null, usable: true },
      },
    ];
    const doc = { selected: selected.value, selectedFrom: selected.from, configFile: store.path, environments };
    ctx.io.stdout.write(mode === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : `${JSON.stringify(doc)}\n`);
    return code;
  }

  const { io } = ctx;
  const b = io.colorOut.bold;
  const lines: string[] = [];
  for (const row of rows) {
    const s = row.status;
    lines.push(b(s.name) + (s.selected ? ` (selected, ${describeFrom(selected)})` : ''));
    lines.push(
      `  base URL  ${s.baseUrl === undefined ? `none (set it with \`petstore config set ${s.name}.baseUrl URL\`)` : `${s.baseUrl.value} (${describeFrom(s.baseUrl)})`}`,
    );
    lines.push(`  key       ${describeKey(s)}`);
    if (row.check !== undefined) lines.push(`  check     ${describeCheck(row.check, io.colorOut)}`);
  }
  lines.push(b('sandbox') + (selected.value === 'sandbox' ? ` (selected, ${describeFrom(selected)})` : ''));
  lines.push('  base URL  automatic (embedded server on 127.0.0.1)');
  lines.push('  key       automatic (no login needed)');
  io.stdout.write(lines.join('\n') + '\n');
  return code;
}

async function runCheck(ctx: Context, s: RemoteStatus): Promise<NonNullable<Row['check']>> {
  if (s.baseUrl === undefined) return { result: 'no_base_url', exitCode: ExitCode.usage };
  if (s.key.source === 'none' || !s.key.usable) return { result: 'no_key', exitCode: ExitCode.auth };
  const r = await checkKey(ctx, s.baseUrl.value, s.key.value as string);
  switch (r.result) {
    case 'ok':
      return { result: 'ok', exitCode: ExitCode.ok };
    case 'rejected':
      return { result: 'rejected', message: r.error.message, exitCode: ExitCode.auth };
    default:
      return { result: r.result, message: r.error.message, exitCode: r.error.exitCode };
  }
}

function describeFrom(r: Resolved<unknown>): string {
  switch (r.source) {
    case 'flag':
      return r.from;
    case 'env':
      return `env ${r.from}`;
    case 'file':
      return `config file: ${r.from}`;
    default:
      return r.source;
  }
}

function describeKey(s: RemoteStatus): string {
  const { key } = s;
  const login = `petstore${s.name === 'production' ? '' : ` --env ${s.name}`} auth login`;
  if (key.source === 'env') {
    return `${maskKey(key.value as string)} (env PETSTORE_API_KEY)${key.stored === undefined ? '' : `; stored key ${maskKey(key.stored.key)} not used`}`;
  }
  if (key.source === 'none') return `none (log in with \`${login}\`)`;
  const stored = key.stored as { key: string; baseUrl: string };
  if (!key.usable) {
    return `${maskKey(stored.key)} (config file), stored for ${stored.baseUrl}: not sent to ${s.baseUrl?.value ?? 'another URL'} (log in again with \`${login}\`)`;
  }
  return `${maskKey(stored.key)} (config file)`;
}

function describeCheck(check: NonNullable<Row['check']>, c: Context['io']['colorOut']): string {
  switch (check.result) {
    case 'ok':
      return c.green('ok');
    case 'rejected':
      return `${c.red('rejected')} (401: ${check.message ?? ''})`;
    case 'unreachable':
      return `${c.yellow('unreachable')} (${check.message ?? ''})`;
    case 'failed':
      return `${c.red('failed')} (${check.message ?? ''})`;
    case 'no_key':
      return 'not checked: no usable key';
    case 'no_base_url':
      return 'not checked: no base URL';
  }
}

function toJson(s: RemoteStatus): Record<string, unknown> {
  return {
    name: s.name,
    selected: s.selected,
    baseUrl: s.baseUrl === undefined ? { value: null, source: 'none', from: null } : s.baseUrl,
    key: {
      source: s.key.source,
      masked: s.key.value === undefined ? null : maskKey(s.key.value),
      storedFor: s.key.stored?.baseUrl ?? null,
      usable: s.key.usable,
    },
  };
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, opts: Record<string, unknown>): Promise<number> {
  return runStatus(ctx, parseStatusOptions(opts));
}

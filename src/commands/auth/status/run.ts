/**
 * `auth status [--check]`: for each environment, its base URL and where it comes from,
 * where the key comes from and the key masked; the selected environment is marked
 * (cli-contract.md "Commands"). With `--check`, one `GET /pets?limit=1` per usable key.
 *
 * Exit code: without `--check`, 4 when the selected environment has no key a command would
 * send (none at all, one stored for another URL, a key command that failed), else 0; the
 * sandbox, which needs none, is always 0 (cli-contract.md "Commands", gh's `auth status`).
 * With `--check`, the selected environment's result decides: ok → 0, no key or a rejected
 * key (401) → 4, unreachable → 3, no base URL → 2, any other failed answer → its own code
 * (1 for a 5xx). Other environments' results are shown but do not change the exit code.
 */
import { checkKey } from '../../../client/check-key.js';
import { PetstoreClient } from '../../../client/client.js';
import {
  isUsable,
  loginCommand,
  requireEnvironment,
  type RemoteSettings,
  type Resolved,
  type Settings,
} from '../../../config/settings.js';
import type { ApiContext, Context } from '../../../context.js';
import { ExitCode, UsageError } from '../../../base/errors.js';
import type { Colors } from '../../../io/io.js';
import { maskKey } from '../../../base/mask.js';
import { escapeForTerminal } from '../../../text/escape.js';
import { renderJson, renderNdjson } from '../../../render/pets.js';
import { wrapWords } from '../../../text/wrap.js';

/** Typed options of `auth status`. */
export interface StatusOptions {
  check: boolean;
}

/** Result of `--check` for one environment. */
type CheckResult = 'ok' | 'rejected' | 'unreachable' | 'failed' | 'no_key' | 'no_base_url';

interface Check {
  result: CheckResult;
  message?: string;
  exitCode: number;
}

interface Row {
  remote: RemoteSettings;
  check?: Check;
}

/** `auth status --json`: the selected environment and one entry per environment. */
interface StatusDocument {
  selected: string;
  selectedFrom: string;
  configFile: string | undefined;
  environments: {
    name: string;
    selected: boolean;
    baseUrl: { value: string | null; source: string; from: string | null };
    key: {
      source: string;
      masked: string | null;
      storedFor: string | null;
      usable: boolean;
      /** The environment's apiKeyCommand, when it has one. */
      command: string | null;
      /** Why the key would not be sent, when it would not. */
      error: string | null;
    };
    check?: CheckResult;
    checkMessage?: string;
  }[];
}

/**
 * Prints the status of every environment on stdout (JSON with `--output json`).
 * @throws UsageError for a bad `PETSTORE_ENV`/`PETSTORE_BASE_URL`, ConfigError for a
 * broken config file.
 */
export async function runStatus(ctx: Context, options: StatusOptions): Promise<number> {
  // A broken config file is this command's error, not a detail of each row.
  await ctx.loadConfig();
  const settings = await ctx.settings('all');
  const selected = requireEnvironment(settings);
  const rows: Row[] = settings.remotes.map((remote) => {
    // A bad variable for the selected environment is a usage error, as in every command.
    if (remote.selected && !remote.baseUrl.ok && remote.baseUrl.error instanceof UsageError) throw remote.baseUrl.error;
    return { remote };
  });
  if (options.check) await Promise.all(rows.map(async (row) => (row.check = await runCheck(ctx, row.remote))));
  const selectedRow = rows.find((r) => r.remote.selected);
  const code = exitCodeOf(selectedRow, options);
  if (ctx.output === 'json' || ctx.output === 'ndjson') {
    const doc = toJson(settings, selected, rows);
    await ctx.io.out(ctx.output === 'json' ? renderJson(doc) : renderNdjson(doc));
  } else {
    await ctx.io.out(fitToTerminal(renderText(selected, rows, ctx.io.colorOut), ctx.io.stdoutColumns));
  }
  return code;
}

/**
 * The exit code of `auth status`: the selected environment's check with `--check`, else 4
 * when it has no key to send; 0 for the sandbox (no row: it needs no key).
 */
function exitCodeOf(selected: Row | undefined, options: StatusOptions): number {
  if (selected === undefined) return ExitCode.ok;
  if (options.check && selected.check !== undefined) return selected.check.exitCode;
  return selected.remote.key?.ok === true ? ExitCode.ok : ExitCode.auth;
}

async function runCheck(ctx: Pick<ApiContext, 'createTransport'>, remote: RemoteSettings): Promise<Check> {
  if (!remote.baseUrl.ok) return { result: 'no_base_url', exitCode: ExitCode.usage };
  if (!isUsable(remote) || remote.key?.ok !== true) return { result: 'no_key', exitCode: ExitCode.auth };
  const transport = await ctx.createTransport(remote.key.value);
  const r = await checkKey(new PetstoreClient(transport, remote.baseUrl.value));
  switch (r.result) {
    case 'ok':
      return { result: 'ok', exitCode: ExitCode.ok };
    case 'rejected':
      return { result: 'rejected', message: r.error.message, exitCode: ExitCode.auth };
    default:
      return { result: r.result, message: r.error.message, exitCode: r.error.exitCode };
  }
}

function renderText(selected: Resolved<string>, rows: Row[], c: Colors): string {
  const lines: string[] = [];
  const title = (name: string): string =>
    c.bold(name) + (selected.value === name ? ` (selected, ${describeFrom(selected)})` : '');
  for (const { remote, check } of rows) {
    const { baseUrl } = remote;
    lines.push(title(remote.name));
    lines.push(
      `  base URL  ${
        baseUrl.ok
          ? `${baseUrl.value} (${describeFrom(baseUrl)})`
          : baseUrl.missing
            ? `none (set it with \`petstore config set ${remote.name}.baseUrl URL\`)`
            : `invalid: ${baseUrl.error.message}`
      }`,
    );
    lines.push(`  key       ${describeKey(remote, selected)}`);
    if (check !== undefined) lines.push(`  check     ${describeCheck(check, c)}`);
  }
  lines.push(title('sandbox'));
  lines.push('  base URL  automatic (embedded server on 127.0.0.1)');
  lines.push('  key       automatic (no login needed)');
  return lines.join('\n') + '\n';
}

/** Width of the label column (`  base URL  `, `  key       `, `  check     `). */
const LABEL = 12;

/**
 * On a terminal `columns` wide, wraps each long `  label     value` line at spaces, its
 * continuation lines indented under the value (a long command, a failure's reason).
 */
function fitToTerminal(text: string, columns: number | undefined): string {
  if (columns === undefined) return text;
  return text
    .split('\n')
    .map((line) =>
      line.length > columns && line.startsWith('  ') && columns > LABEL + 10
        ? line.slice(0, LABEL) + wrapWords(line.slice(LABEL), columns - LABEL).replace(/\n/g, `\n${' '.repeat(LABEL)}`)
        : line,
    )
    .join('\n');
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

/**
 * The key's line: masked, with its source (`env PETSTORE_API_KEY`, `command: op read …`,
 * `config file`), what it shadows, or why there is none (a key command that failed says so).
 */
function describeKey(remote: RemoteSettings, selected: Resolved<string>): string {
  const { key, baseUrl, stored, command } = remote;
  // `--env` is spelled out where the shell's own selection could send the login elsewhere.
  const login = loginCommand(remote.name, {
    explicit: !remote.selected || selected.source === 'flag',
    baseUrlFlag: baseUrl.ok && baseUrl.source === 'flag' ? baseUrl.value : undefined,
  });
  const source = command === undefined ? undefined : `command: ${escapeForTerminal(command)}`;
  if (key === undefined) return 'not resolved';
  if (key.ok) {
    if (key.source === 'command') return `${maskKey(key.value)} (${source ?? 'command'})`;
    if (key.source === 'file') return `${maskKey(key.value)} (config file)`;
    const shadowed = [
      ...(source === undefined ? [] : [`${source} not run`]),
      ...(stored === undefined ? [] : [`stored key ${maskKey(stored.key)} not used`]),
    ];
    return `${maskKey(key.value)} (env PETSTORE_API_KEY)${shadowed.map((s) => `; ${s}`).join('')}`;
  }
  if (key.source === 'command') {
    // A command that ran and failed gives its reason; one not run (no base URL, another URL) says why.
    const reason = key.error.details?.reason;
    return key.error.code === 'key_command' && typeof reason === 'string'
      ? `failed (${source ?? 'command'}): ${reason}`
      : `not run (${source ?? 'command'}): ${escapeForTerminal(key.error.message)}`;
  }
  if (key.source === 'file' && stored !== undefined && baseUrl.ok && stored.baseUrl === `${baseUrl.value}/v1`) {
    // The URL is what to fix, not the login (cli-contract.md "Environments").
    return `${maskKey(stored.key)} (config file), stored for ${stored.baseUrl}: not sent to ${baseUrl.value}, which lacks the version segment /v1`;
  }
  if (key.source === 'file' && stored !== undefined && baseUrl.ok && stored.baseUrl !== baseUrl.value) {
    return `${maskKey(stored.key)} (config file), stored for ${stored.baseUrl}: not sent to ${baseUrl.value} (log in again with \`${login}\`)`;
  }
  if (key.missing) return `none (log in with \`${login}\`)`;
  return `invalid: ${escapeForTerminal(key.error.message)}`;
}

function describeCheck(check: Check, c: Colors): string {
  switch (check.result) {
    case 'ok':
      return c.green('ok');
    // The messages may quote the server: escaped, so they cannot drive the terminal.
    case 'rejected':
      return `${c.red('rejected')} (401: ${escapeForTerminal(check.message ?? '')})`;
    case 'unreachable':
      return `${c.yellow('unreachable')} (${escapeForTerminal(check.message ?? '')})`;
    case 'failed':
      return `${c.red('failed')} (${escapeForTerminal(check.message ?? '')})`;
    case 'no_key':
      return 'not checked: no usable key';
    case 'no_base_url':
      return 'not checked: no base URL';
  }
}

function toJson(settings: Settings, selected: Resolved<string>, rows: Row[]): StatusDocument {
  const environments = [
    ...rows.map(({ remote, check }) => ({
      name: remote.name,
      selected: remote.selected,
      baseUrl: remote.baseUrl.ok
        ? { value: remote.baseUrl.value, source: remote.baseUrl.source, from: remote.baseUrl.from }
        : { value: null, source: 'none', from: null },
      key: keyJson(remote),
      ...(check === undefined
        ? {}
        : { check: check.result, ...(check.message === undefined ? {} : { checkMessage: check.message }) }),
    })),
    {
      name: 'sandbox',
      selected: selected.value === 'sandbox',
      baseUrl: { value: null, source: 'sandbox', from: 'sandbox' },
      key: { source: 'sandbox', masked: null, storedFor: null, usable: true, command: null, error: null },
    },
  ];
  return { selected: selected.value, selectedFrom: selected.from, configFile: settings.configPath, environments };
}

/** The `key` of an environment in `auth status --json`. */
function keyJson(remote: RemoteSettings): StatusDocument['environments'][number]['key'] {
  const { key, stored } = remote;
  const masked = key?.ok === true ? maskKey(key.value) : stored === undefined ? null : maskKey(stored.key);
  return {
    source: key === undefined ? 'none' : key.ok ? key.source : (key.source ?? 'none'),
    masked,
    storedFor: stored?.baseUrl ?? null,
    usable: isUsable(remote),
    command: remote.command ?? null,
    error: key === undefined || key.ok ? null : key.error.message,
  };
}

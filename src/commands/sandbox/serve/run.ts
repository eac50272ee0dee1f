/**
 * `sandbox serve [--port N] [--host H] [--without-get-pet]`: runs the sandbox in the foreground until
 * Ctrl-C (or SIGTERM), for curl and scripts. stdout gets the base URL and key as `export`
 * lines on a terminal, `NAME=value` lines off one (or one JSON object with `--json`); the
 * request log goes to stderr.
 */
import type { Context } from '../../../context.js';
import { CliError, ExitCode, InterruptedError, UsageError } from '../../../base/errors.js';
import { isLoopbackHost } from '../../../base/loopback.js';
import { shellQuote } from '../../../base/suggest.js';
import { sandboxDataFile } from '../../../config/paths.js';
import { renderJson } from '../../../render/pets.js';
import { startSandbox } from '../../../sandbox/server.js';
import { sandboxKey } from '../../../sandbox/key-file.js';
import { SandboxStore, asCliError } from '../../../sandbox/store.js';

/** Typed options of `sandbox serve`. */
export interface ServeOptions {
  port: number;
  /** The address to listen on, without IPv6 brackets (`::1`). */
  host: string;
  /** `--allow-remote`: a host other than loopback is allowed. */
  allowRemote: boolean;
  /** `--without-get-pet`: getPet answers 410 Gone, as after its removal. */
  withoutGetPet: boolean;
}

/**
 * Serves until `ctx.signal` aborts; returns 130 (SIGINT) or 143 (SIGTERM) then. Before
 * listening it makes sure the data can be written (takes the lock, seeds or repairs the
 * files) and reads its key (the data file's own, made on first use, or
 * `PETSTORE_SANDBOX_KEY`), so a directory that cannot be used is reported at once. A host that is not
 * loopback is served only with `allowRemote`, and with a warning: the sandbox speaks plain
 * http, so its key and data cross the network in clear (cli-contract.md "Environments").
 * @throws UsageError (exit 2) for a host beyond this machine without `allowRemote`, or a
 * `PETSTORE_SANDBOX_KEY` a header cannot carry;
 * ConfigError (exit 2) naming the path when the data cannot be read or written; CliError
 * `listen` (exit 1) when the address cannot be bound, saying why in words.
 */
export async function runServe(ctx: Context, options: ServeOptions): Promise<number> {
  const { io } = ctx;
  const remote = !isLoopbackHost(options.host);
  if (remote && !options.allowRemote) {
    throw new UsageError(
      `--host ${options.host} serves beyond this machine, over plain http: the sandbox's key and data would cross the network in clear`,
      'Add --allow-remote to serve there anyway, or leave --host out to serve on 127.0.0.1.',
    );
  }
  const store = new SandboxStore(sandboxDataFile(ctx.env), {
    onWait: (message) => ctx.note(message, { always: true }),
    signal: ctx.signal,
  });
  let apiKey: string;
  try {
    await store.read();
    await store.prepareForWrites();
    // Kept beside the data, so a restart serves the key already exported (cli-contract.md).
    apiKey = sandboxKey(store.file, ctx.env.get('PETSTORE_SANDBOX_KEY'));
  } catch (err) {
    await store.close();
    throw asCliError(err);
  }
  let sandbox;
  try {
    sandbox = await startSandbox({
      store,
      apiKey,
      host: options.host,
      port: options.port,
      withoutGetPet: options.withoutGetPet,
      onRequest: (line) => io.message({ level: 'request', message: line }),
      onError: (err) =>
        io.message({ level: 'request', message: `error: ${err instanceof Error ? err.message : String(err)}` }),
    });
  } catch (err) {
    await store.close();
    throw listenError(err as NodeJS.ErrnoException, options);
  }
  if (remote) {
    ctx.warn(
      `the sandbox listens on ${options.host}, beyond this machine, over plain http: its key and data cross the network in clear`,
    );
  }
  const baseUrl = localBaseUrl(sandbox.baseUrl, options.host);
  if (ctx.output === 'json' || ctx.output === 'ndjson') {
    await io.out(renderJson({ baseUrl, apiKey: sandbox.apiKey }));
  } else {
    await io.out(assignments({ PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: sandbox.apiKey }, io.stdoutIsTTY));
  }
  const removed = options.withoutGetPet ? '; getPet removed: it answers 410 Gone' : '';
  ctx.note(`sandbox listening on ${sandbox.baseUrl} (data: ${store.file}${removed}); Ctrl-C stops it`, {
    always: true,
  });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  // Stopped by Ctrl-C or SIGTERM, its only way to end: the shell's code for that signal.
  return InterruptedError.from(ctx.signal).exitCode;
}

/**
 * The variables as lines (cli-contract.md "Commands", `sandbox serve`): on a terminal,
 * `export NAME=value` with the value shell-quoted, so that pasting them into a shell sets
 * them for the petstore it runs next; off one, `NAME=value` as it is (the env-file form of
 * docker's `--env-file`, systemd's `EnvironmentFile` and dotenv, which take no `export` and
 * no quotes).
 */
function assignments(vars: Record<string, string>, terminal: boolean): string {
  return Object.entries(vars)
    .map(([name, value]) => (terminal ? `export ${name}=${shellQuote(value)}\n` : `${name}=${value}\n`))
    .join('');
}

/**
 * The base URL to print: a server on every address (`0.0.0.0`, `::`) is reached from this
 * machine on loopback, the one plain-http URL petstore itself accepts.
 */
function localBaseUrl(baseUrl: string, host: string): string {
  const url = new URL(baseUrl);
  if (host === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (host === '::' || host === '::0') url.hostname = '[::1]';
  else return baseUrl;
  return url.href.replace(/\/$/, '');
}

/** Why the address could not be bound, in words (`EADDRINUSE` is no message for people). */
function listenError(err: NodeJS.ErrnoException, options: ServeOptions): CliError {
  const code = err.code ?? '';
  const at = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  const why: Record<string, [string, string | undefined]> = {
    EADDRINUSE: [`port ${options.port} is in use by another program`, 'Pick another --port, or 0 for any free one.'],
    EACCES: [
      'permission denied (ports below 1024 need privileges)',
      'Pick a --port from 1024 up, or 0 for any free one.',
    ],
    EADDRNOTAVAIL: ['this machine has no such address', 'Give --host an address of this machine, or leave it out.'],
    ENOTFOUND: ['no such host name', 'Give --host an address of this machine, or leave it out.'],
    EAI_AGAIN: ['the host name could not be resolved', 'Give --host an IP address, or leave it out.'],
  };
  const [reason, hint] = why[code] ?? [err.message, undefined];
  return new CliError(`cannot listen on ${at}: ${reason}`, { exitCode: ExitCode.failure, code: 'listen', hint });
}

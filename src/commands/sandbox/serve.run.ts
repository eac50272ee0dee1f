/**
 * `sandbox serve [--port N] [--host H] [--without-get-pet]`: runs the sandbox in the foreground until
 * Ctrl-C (or SIGTERM), for curl and scripts. stdout gets the base URL and key as shell
 * assignments (or one JSON object with `--json`); the request log goes to stderr.
 */
import type { Context } from '../../context.js';
import { CliError, ExitCode, InterruptedError } from '../../errors.js';
import { sandboxDataFile } from '../../config/paths.js';
import { renderJson } from '../../render/pets.js';
import { startSandbox } from '../../sandbox/server.js';
import { SandboxStore, asCliError } from '../../sandbox/store.js';

/** Typed options of `sandbox serve`. */
export interface ServeOptions {
  port: number;
  host: string;
  /** `--without-get-pet`: getPet answers 410 Gone, as after its removal. */
  withoutGetPet: boolean;
}

/**
 * Serves until `ctx.signal` aborts; returns 130 (SIGINT) or 143 (SIGTERM) then. Before
 * listening it makes sure the data can be written (takes the lock, seeds or repairs the
 * files), so a directory that cannot be used is reported at once.
 * @throws ConfigError (exit 2) naming the path when the data cannot be read or written;
 * CliError (exit 1) when the address cannot be bound.
 */
export async function runServe(ctx: Context, options: ServeOptions): Promise<number> {
  const { io } = ctx;
  const store = new SandboxStore(sandboxDataFile(ctx.env), {
    onWait: (message) => io.stderr.write(`${message}\n`),
    signal: ctx.signal,
  });
  try {
    await store.read();
    await store.prepareForWrites();
  } catch (err) {
    await store.close();
    throw asCliError(err);
  }
  let sandbox;
  try {
    sandbox = await startSandbox({
      store,
      host: options.host,
      port: options.port,
      withoutGetPet: options.withoutGetPet,
      onRequest: (line) => io.stderr.write(`${line}\n`),
      onError: (err) => io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`),
    });
  } catch (err) {
    await store.close();
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`cannot listen on ${options.host}:${options.port}: ${code || (err as Error).message}`, {
      exitCode: ExitCode.failure,
      code: 'listen',
      hint: code === 'EADDRINUSE' ? 'Pick another --port, or 0 for any free one.' : undefined,
    });
  }
  if (ctx.output === 'json' || ctx.output === 'ndjson') {
    io.stdout.write(renderJson({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey }));
  } else {
    io.stdout.write(`PETSTORE_BASE_URL=${sandbox.baseUrl}\nPETSTORE_API_KEY=${sandbox.apiKey}\n`);
  }
  const removed = options.withoutGetPet ? '; getPet removed: it answers 410 Gone' : '';
  io.stderr.write(`sandbox listening on ${sandbox.baseUrl} (data: ${store.file}${removed}); Ctrl-C stops it\n`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  // Stopped by Ctrl-C or SIGTERM, its only way to end: the shell's code for that signal.
  return InterruptedError.from(ctx.signal).exitCode;
}

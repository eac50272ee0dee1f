/**
 * `petstore sandbox serve [--port N] [--host H] [--without-get-pet]`: the declaration; the
 * run is in `run.ts`.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { withTraits } from '../../traits.js';
import { UsageError } from '../../../base/errors.js';
import { FLAG_VALUES, quote } from '../../../base/flag-values.js';
import type { Runner } from '../../runner.js';

/**
 * Parses `--port`: a whole number 0-65535 (0 = any free port).
 * @throws UsageError otherwise.
 */
function parsePort(raw: string): number {
  const { min, max } = FLAG_VALUES['--port'].range;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`invalid --port ${quote(raw)}: must be a whole number from ${min} to ${max}`);
  }
  return Number(raw);
}

/**
 * Parses `--host`: any non-empty address or host name; an IPv6 address may come in the
 * brackets of a URL (`[::1]`), which are taken off.
 * @throws UsageError for an empty one.
 */
function parseHost(raw: string): string {
  const host = /^\[.*\]$/.test(raw) ? raw.slice(1, -1) : raw;
  if (host === '') throw new UsageError(`invalid --host ${quote(raw)}: must be an address or host name`);
  return host;
}

/** Declares `sandbox serve`. */
export function newServeCommand(f: Runner) {
  return withTraits(new Command('serve'), { formats: true })
    .description('run the sandbox server in the foreground; prints its base URL and key')
    .addOption(new Option('--port <n>', 'TCP port, 0-65535 (default: 0, a free port)').argParser((v) => parsePort(v)))
    .addOption(
      new Option(
        '--host <host>',
        'address to listen on (default: 127.0.0.1); beyond loopback only with --allow-remote',
      ).argParser((v) => parseHost(v)),
    )
    .option(
      '--allow-remote',
      'serve on a --host beyond this machine, over plain http (the key crosses the network in clear)',
    )
    .option('--without-get-pet', 'play the API after getPet is removed: GET /pets/{petId} answers 410 Gone')
    .addHelpText(
      'after',
      `
The key is the sandbox data's own (sandbox.json.key beside it), the same after a restart or a sandbox reset; PETSTORE_SANDBOX_KEY sets another (no flag takes a key). Creates honour Idempotency-Key (kept 24 h).

Examples:
  $ petstore sandbox serve --port 8080
  $ curl -H "Authorization: Bearer $PETSTORE_API_KEY" http://127.0.0.1:8080/v1/pets`,
    )
    .action((flags) =>
      f.run(async (ctx) => {
        const { runServe } = await import('./run.js');
        return runServe(ctx, {
          port: flags.port ?? 0,
          host: flags.host ?? '127.0.0.1',
          allowRemote: flags.allowRemote === true,
          withoutGetPet: flags.withoutGetPet === true,
        });
      }),
    );
}

/**
 * `petstore pets get ID`: `getPet` (spec §4.3), deprecated and removed on 2030-12-05.
 * Its one deprecation warning merges the command's metadata (removal date, replacement)
 * with the response's `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers, adding the
 * days remaining; it is printed once the answer (or failure) is known.
 */
import { GET_PET_REMOVAL_DATE, GET_PET_REPLACEMENT } from '../../api/constants.js';
import type { Context } from '../../context.js';
import { DeprecationReporter, isoDay } from '../../deprecation.js';
import { ApiError, CliError, UsageError } from '../../errors.js';
import { parseInt64 } from '../../input.js';
import { printPet } from './create.js';

/** Typed options of `pets get`. */
export interface GetOptions {
  petId: bigint;
}

/**
 * Parses the ID argument.
 * @throws UsageError when it is missing or not an int64.
 */
export function parseGetOptions(args: string[]): GetOptions {
  const raw = args[0];
  if (raw === undefined) throw new UsageError('missing pet ID');
  return { petId: parseInt64(raw, 'pet ID') };
}

/**
 * Fetches one pet. A 404 or 410 whose `Sunset` header lies in the past means getPet itself
 * is gone: the error says it was removed and names the replacement.
 * @throws ApiError (404 → exit 5), CliError (removed: 404 → exit 5, 410 → exit 1),
 * NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runGet(ctx: Context, options: GetOptions, now: () => Date = () => new Date()): Promise<number> {
  const deprecation = new DeprecationReporter((m) => ctx.warn(m), now);
  deprecation.declare({
    subject: '`petstore pets get` (getPet)',
    removal: GET_PET_REMOVAL_DATE,
    replacement: GET_PET_REPLACEMENT,
  });
  let data;
  try {
    const { client } = await ctx.connect();
    const res = await client.getPet(options.petId);
    deprecation.observe(res.headers, 'getPet');
    data = res.data;
  } catch (err) {
    if (err instanceof ApiError) deprecation.observe(err.headers, 'getPet');
    const sunset = deprecation.sunset();
    if (
      err instanceof ApiError &&
      (err.status === 404 || err.status === 410) &&
      sunset !== undefined &&
      sunset.getTime() <= now().getTime()
    ) {
      throw new CliError(
        `getPet was removed from the API on ${isoDay(sunset)} (Sunset header); the server answered ${err.status}: ${err.message}`,
        {
          exitCode: err.exitCode,
          code: err.code,
          status: err.status,
          hint: `Use \`${GET_PET_REPLACEMENT}\` instead.`,
          cause: err,
        },
      );
    }
    deprecation.flush();
    throw err;
  }
  deprecation.flush();
  await printPet(ctx, data);
  return 0;
}

/** Command entry (see `CommandModule`). */
export async function run(ctx: Context, _opts: Record<string, unknown>, args: string[]): Promise<number> {
  return runGet(ctx, parseGetOptions(args));
}

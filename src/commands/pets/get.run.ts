/**
 * `pets get ID`: `getPet` (spec §4.3), deprecated and removed on 2030-12-05. Its one
 * deprecation warning merges what petstore knows (removal date, replacement) with the
 * response's `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers, adding the days
 * remaining; it is printed once the answer (or failure) is known.
 */
import { GET_PET_REMOVAL_DATE, GET_PET_REPLACEMENT } from '../../api/constants.js';
import type { Pet } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { DeprecationReporter, isoDay } from '../../deprecation.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { writePet } from '../../render/output.js';

/** Typed options of `pets get`. */
export interface GetOptions {
  petId: bigint;
}

/**
 * Fetches one pet and prints it. Refused before anything is sent under
 * `--fail-on-deprecated` (or its variable). A 404 or 410 whose `Sunset` header lies in the
 * past means getPet itself is gone: the error says it was removed and names the replacement.
 * @throws UsageError (fail-on-deprecated), ApiError (404 → exit 5), CliError (removed: 404 →
 * exit 5, 410 → exit 1), NetworkError, TimeoutError, InvalidResponseError.
 */
export async function runGet(ctx: Context, options: GetOptions, now: () => Date = () => new Date()): Promise<number> {
  if (ctx.globals.failOnDeprecated !== undefined) {
    throw new UsageError(
      `\`petstore pets get\` is deprecated (removed on ${GET_PET_REMOVAL_DATE}) and ${ctx.globals.failOnDeprecated} is set; nothing was sent`,
      `Use \`${GET_PET_REPLACEMENT}\` instead.`,
    );
  }
  const deprecation = new DeprecationReporter((m) => ctx.warn(m), now);
  deprecation.declare({
    subject: '`petstore pets get` (getPet)',
    removal: GET_PET_REMOVAL_DATE,
    replacement: GET_PET_REPLACEMENT,
  });
  let data: Pet;
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
  await writePet(ctx.io, ctx.output, data);
  return ExitCode.ok;
}

/**
 * `pets get ID`: `getPet` (spec §4.3), deprecated and removed on 2030-12-05. Its one
 * deprecation warning merges what petstore knows (removal date, replacement) with the
 * response's `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers, adding the days
 * remaining and the way to move now (`--via-list`); it is printed once the answer (or
 * failure) is known.
 *
 * Where getPet cannot or must not be used, `pets get` finds the pet through the
 * replacement the spec names, `listPets` (`via-list.ts`), and says so in one
 * warning: asked with `--via-list`; from the removal date on (getPet is not called at
 * all); under `--fail-on-deprecated` (likewise); and when getPet answers 410 Gone, or 404
 * with a `Sunset` date in the past.
 */
import { GET_PET_REMOVAL_DATE, type PetStatus } from '../../../client/constants.js';
import type { Pet } from '../../../client/schemas.js';
import type { ApiContext, Context, SettingsContext, TerminalContext } from '../../../context.js';
import { DeprecationReporter, isoDay, relativeDays, type DeprecationInfo } from '../../../http/deprecation.js';
import { ApiError, CliError, ExitCode } from '../../../errors.js';
import { writePet } from '../../../render/output.js';
import { runGetViaList } from './via-list.js';

/** Typed options of `pets get`. */
export interface GetOptions {
  petId: bigint;
  /** `--via-list`: find the pet through listPets, never calling getPet. */
  viaList: boolean;
  /** With the list path: search only pets of this status (`--status`). */
  status?: PetStatus;
  /** With the list path: the most pages fetched (`--max-pages`, 1..10000, default 1000). */
  maxPages: number;
}

/** The width the deprecation warning is wrapped to: two lines of at most 80 columns. */
export const WARNING_COLUMNS = 80;

/** The removal date of getPet the spec gives (§4.3, §9), as an instant (00:00 UTC). */
const REMOVAL = new Date(`${GET_PET_REMOVAL_DATE}T00:00:00Z`);

/**
 * Words the deprecation warning of `pets get` (without the `warning: ` prefix): the removal
 * date (the `Sunset` header's, else the spec's) with the days remaining, the replacement,
 * and `--via-list`. Short enough to wrap into two lines of 80 columns with the prefix
 * (cli-contract.md "Commands"); the `Deprecation` date is left out for that reason.
 */
export function describeGetDeprecation(info: DeprecationInfo, now: Date): string {
  const removal = info.sunset ?? REMOVAL;
  const when =
    removal.getTime() > now.getTime()
      ? `will be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`
      : `was to be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`;
  return `\`pets get\` is deprecated and ${when}; replaced by \`pets list --status STATUS\`: add --via-list to use it now`;
}

/**
 * Prints one pet: through getPet, or through listPets where getPet cannot or must not be
 * used (see the module comment), in every output format alike.
 * @throws ApiError (404 → exit 5), AuthError, NetworkError, TimeoutError,
 * InvalidResponseError; from the list path also CliError `not_in_list` or
 * `not_in_first_page` (exit 5) and `max_pages` (exit 1).
 */
export async function runGet(ctx: Context, options: GetOptions): Promise<number> {
  if (options.viaList) return runGetViaList(ctx, options);
  const skip = reasonToSkipGetPet(ctx);
  const got = skip === undefined ? await getPet(ctx, options.petId) : { gone: skip };
  if ('gone' in got) {
    // Says in one warning why the list is searched, then searches it.
    ctx.warn(`${got.gone}: finding pet ${options.petId} through listPets (GET /pets)`);
    return runGetViaList(ctx, options);
  }
  const output = await ctx.recordOutput();
  await writePet(output, got.pet);
  return ExitCode.ok;
}

/**
 * Asks getPet for the pet, with its one deprecation warning: the pet, or why the list must
 * be searched instead (the operation is gone; the warning is not printed then, the fallback
 * line says more).
 * @throws what getPet throws, but an answer saying the operation is gone (`removedAnswer`).
 */
async function getPet(
  ctx: ApiContext & Pick<TerminalContext, 'warn'> & Pick<SettingsContext, 'now'>,
  petId: bigint,
): Promise<{ pet: Pet } | { gone: string }> {
  const deprecation = new DeprecationReporter(
    (m) => ctx.warn(m, { wrap: WARNING_COLUMNS }),
    ctx.now,
    describeGetDeprecation,
  );
  deprecation.declare({ subject: '`pets get`', removal: GET_PET_REMOVAL_DATE });
  let pet: Pet;
  try {
    const { client } = await ctx.connect();
    const res = await client.getPet(petId);
    deprecation.observe(res.headers, 'getPet');
    pet = res.data;
  } catch (err) {
    if (err instanceof ApiError) deprecation.observe(err.headers, 'getPet');
    const gone = removedAnswer(err, deprecation.sunset(), ctx.now());
    if (gone !== undefined) return { gone };
    deprecation.flush();
    throw err;
  }
  deprecation.flush();
  return { pet };
}

/** Why getPet is not called at all: refused by the user, or past the spec's removal date. */
function reasonToSkipGetPet(ctx: Pick<Context, 'globals' | 'now'>): string | undefined {
  if (ctx.globals.failOnDeprecated !== undefined) {
    return `getPet is deprecated and ${ctx.globals.failOnDeprecated} is set`;
  }
  if (ctx.now().getTime() >= REMOVAL.getTime()) return `getPet was removed on ${GET_PET_REMOVAL_DATE}`;
  return undefined;
}

/**
 * Whether getPet's failure says the operation itself is gone: any 410 (Gone, RFC 9110
 * §15.5.11), or a 404 once the `Sunset` date has passed. Returns the reason, or undefined.
 */
function removedAnswer(err: unknown, sunset: Date | undefined, now: Date): string | undefined {
  if (!(err instanceof CliError)) return undefined;
  if (err.status === 410) return 'getPet answered 410 Gone';
  if (err.status === 404 && sunset !== undefined && sunset.getTime() <= now.getTime()) {
    return `getPet answered 404 after its Sunset date, ${isoDay(sunset)}`;
  }
  return undefined;
}

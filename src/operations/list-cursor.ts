/**
 * `list_pets`'s cursor (cli-contract.md "Agents": an incomplete list gives `next_cursor`, the
 * server's next link, checked as `--all` checks it): an opaque string, base64url of a small
 * JSON object, that an agent passes back as `cursor` to get the rest of a list. It holds
 * the page to fetch (the server's `Link: rel="next"` target, or the page a result was cut
 * in by the size cap), how many pets of that page were already given, and the `limit` and
 * `status` the list was started with (so a call that names others is refused, not mixed).
 *
 * The cursor is not signed: what keeps an agent from steering requests elsewhere with a
 * crafted one is the same rule as the walk's (`isWithinBase`: the base URL's origin, at its
 * path or below), applied before anything is sent.
 *
 * Loaded at start-up with the declarations: plain data, no zod, no SDK.
 */
import { UsageError } from '../base/errors.js';
import { PET_STATUSES, type PetStatus } from '../client/constants.js';
import { isWithinBase } from '../client/paths.js';

/** A decoded cursor: where the list goes on. */
export interface ListCursor {
  /**
   * The page to fetch: a next link of the server, or a page cut by the size cap; held
   * relative to the base URL's origin (`/v1/pets?cursor=…`) when it lies on it, so a cursor
   * outlives a sandbox that restarts on another port, and is resolved by `checkCursor`.
   */
  page: URL | string;
  /** Pets of `page` already given (0 for a next link); the first `skip` are left out. */
  skip: number;
  /** The `limit` the list was started with, when one was given. */
  limit?: number;
  /** The `status` the list was started with, when one was given. */
  status?: PetStatus;
}

/** The most characters of a refused cursor quoted back (a cursor is a few hundred at most). */
const QUOTED = 80;

/** `cursor` as the agent passes it back: base64url of `{"u", "o"?, "l"?, "s"?}`, `u` relative to `baseUrl`'s origin when on it. */
export function encodeCursor(cursor: ListCursor, baseUrl: string): string {
  const page = new URL(cursor.page, baseUrl);
  const json = {
    u: page.origin === new URL(baseUrl).origin ? `${page.pathname}${page.search}` : page.href,
    ...(cursor.skip > 0 ? { o: cursor.skip } : {}),
    ...(cursor.limit === undefined ? {} : { l: cursor.limit }),
    ...(cursor.status === undefined ? {} : { s: cursor.status }),
  };
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

/** The refusal of a cursor that is not one of list_pets's. */
function notACursor(raw: string, name: string): UsageError {
  const shown = raw.length > QUOTED ? `${raw.slice(0, QUOTED)}…` : raw;
  return new UsageError(
    `invalid ${name} ${JSON.stringify(shown)}: not a next_cursor of list_pets`,
    `Pass next_cursor exactly as a list_pets result gave it, or leave ${name} out to start from the first page.`,
  );
}

/**
 * Reads a cursor (the input's parser; its origin and path are judged against the base URL
 * by `checkCursor`, which needs the server).
 * @throws UsageError naming `name` when it is not one `encodeCursor` made.
 */
export function parseCursor(raw: string, name: string): ListCursor {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw notACursor(raw, name);
  }
  const { u, o, l, s } = (json ?? {}) as Record<string, unknown>;
  const skip = o ?? 0;
  if (
    typeof u !== 'string' ||
    !URL.canParse(u, 'http://localhost') ||
    !Number.isSafeInteger(skip) ||
    (skip as number) < 0 ||
    (l !== undefined && !Number.isSafeInteger(l)) ||
    (s !== undefined && !(PET_STATUSES as readonly unknown[]).includes(s))
  ) {
    throw notACursor(raw, name);
  }
  return {
    page: u,
    skip: skip as number,
    ...(l === undefined ? {} : { limit: l as number }),
    ...(s === undefined ? {} : { status: s as PetStatus }),
  };
}

/**
 * Checks a cursor before anything is sent: its page within the base URL, as every next link
 * is (`isWithinBase`: the key stays with its API), and the call's `limit` and `status`, when
 * given, those the list was started with (a cursor goes on with the list it came from).
 * Returns the page to fetch, resolved against the base URL.
 * @throws UsageError naming the cursor's origin or path, or the argument that differs.
 */
export function checkCursor(
  cursor: ListCursor,
  given: { limit?: number; status?: PetStatus },
  baseUrl: string,
  name = 'cursor',
): URL {
  const page = new URL(cursor.page, baseUrl);
  if (!isWithinBase(page, baseUrl)) {
    const where = page.origin === new URL(baseUrl).origin ? page.pathname : page.origin;
    throw new UsageError(
      `invalid ${name}: it leads to ${where.slice(0, QUOTED)}, outside the API this server serves; nothing was sent`,
      `Pass next_cursor exactly as a list_pets result gave it, or leave ${name} out to start from the first page.`,
    );
  }
  for (const key of ['limit', 'status'] as const) {
    if (given[key] === undefined || given[key] === cursor[key]) continue;
    const started = cursor[key] === undefined ? `without ${key}` : `with ${key} ${String(cursor[key])}`;
    throw new UsageError(
      `${key} ${String(given[key])} does not match the list this ${name} continues (started ${started})`,
      `Pass ${name} with the list's own arguments or without ${key}; to list with ${key} ${String(given[key])}, leave ${name} out.`,
    );
  }
  return page;
}

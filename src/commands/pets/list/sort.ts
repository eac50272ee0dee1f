/**
 * `pets list --sort [-]FIELD`: the order of the pets printed, decided here, in petstore,
 * since the API has no sort parameter (spec §4.1): one page as fetched, or with `--all`
 * every page. Ids and categories compare as integers, exactly beyond 2^53; names by the
 * collation of the user's locale (`LC_ALL`, `LC_COLLATE`, `LANG`; code point order, as
 * `sort` does, for `C` and `POSIX`); statuses alphabetically, which is also their order in
 * a pet's life (available, pending, sold). A pet without the field comes last either way;
 * pets that compare equal keep the server's order.
 */
import type { Pet } from '../../../client/schemas.js';
import type { EnvVars } from '../../../config/env.js';
import type { PetSort } from '../../../base/flag-values.js';

/** The BCP 47 tag of the locale names are collated by, from the environment; undefined for C/POSIX. */
export function collationLocale(env: EnvVars): string | undefined {
  const raw = env.get('LC_ALL') ?? env.get('LC_COLLATE') ?? env.get('LANG');
  if (raw === undefined) return undefined;
  // `de_DE.UTF-8@euro` → `de-DE`.
  const name = raw.replace(/[.@].*$/, '');
  if (name === 'C' || name === 'POSIX' || name === '') return undefined;
  const tag = name.replace(/_/g, '-');
  try {
    return Intl.Collator.supportedLocalesOf([tag]).length > 0 ? tag : undefined;
  } catch {
    // Not a BCP 47 tag at all: compare as `C` does.
    return undefined;
  }
}

/** Orders two texts by code point (UTF-8 byte order, what `LC_ALL=C sort` does). */
function byCodePoint(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Orders two int64 values (number or bigint) exactly. */
function byInteger(a: number | bigint, b: number | bigint): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The comparison `--sort` asks for, for `Array.prototype.sort` (stable, so equal pets keep
 * their order). `locale` is `collationLocale(env)`.
 */
export function comparePets(sort: PetSort, locale: string | undefined): (a: Pet, b: Pet) => number {
  const direction = sort.descending ? -1 : 1;
  const names = locale === undefined ? byCodePoint : new Intl.Collator(locale).compare;
  return (a, b) => {
    switch (sort.field) {
      case 'id':
        return direction * byInteger(a.id, b.id);
      case 'categoryId':
        return direction * byInteger(a.categoryId, b.categoryId);
      case 'name':
        return direction * names(a.name, b.name);
      case 'status':
        if (a.status === undefined || b.status === undefined) {
          return (a.status === undefined ? 1 : 0) - (b.status === undefined ? 1 : 0);
        }
        return direction * byCodePoint(a.status, b.status);
    }
  };
}

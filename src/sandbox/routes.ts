/**
 * The sandbox's routing as data: a table of path templates, each naming the operations its
 * methods run (spec §4). Matching, the `Allow` header of a 405 (RFC 9110 §15.5.6) and the
 * deprecation headers of an answer are all read from the table, so an operation is one
 * entry (plus its handler) and nothing else has to learn of it.
 */

/** A method a route can declare; `HEAD` is not one: it runs the path's `GET` (RFC 9110 §9.3.2). */
type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A deprecated operation's dates, as ISO dates (`YYYY-MM-DD`, midnight UTC): `since` goes
 * out as the `Deprecation` header (RFC 9745), `removal` as the `Sunset` header (RFC 8594).
 */
export interface RouteDeprecation {
  since: string;
  removal: string;
}

/** One operation of the table: its spec operation id, its handler, and whether it is deprecated. */
interface RouteOperation<H> {
  operationId: string;
  handle: H;
  deprecated?: RouteDeprecation;
}

/**
 * A path template relative to the base path (`/pets/{petId}`, as in the spec and
 * openapi.yaml) and the operation of each method it serves, in the order `Allow` lists them.
 */
export interface RoutePath<H> {
  path: string;
  methods: Partial<Record<RouteMethod, RouteOperation<H>>>;
}

/**
 * What a request's path and method found: `operation` with the path's raw (still
 * percent-encoded) parameters, or no operation and the `Allow` value for the 405.
 */
export type RouteMatch<H> =
  | { operation: RouteOperation<H>; params: Record<string, string> }
  | { operation: undefined; params: Record<string, string>; allow: string };

/** A read-only description of one operation the table serves. */
export interface RouteDescription {
  operationId: string;
  method: RouteMethod;
  /** Path template relative to the base path, e.g. `/pets/{petId}`. */
  path: string;
  /** The `Deprecation` and `Sunset` header values its answers carry; undefined when not deprecated. */
  deprecated?: { deprecation: string; sunset: string };
}

interface CompiledPath<H> {
  route: RoutePath<H>;
  pattern: RegExp;
  names: string[];
  allow: string;
}

/** A table of routes under one base path (e.g. `/v1`). */
export class RouteTable<H> {
  readonly #paths: CompiledPath<H>[];

  /**
   * @param basePath the prefix every path is served under, without a trailing slash (`/v1`).
   * @param paths the routes; a path's methods keep their order in `Allow`.
   * @throws Error when two entries share a path template.
   */
  constructor(basePath: string, paths: readonly RoutePath<H>[]) {
    const seen = new Set<string>();
    this.#paths = paths.map((route) => {
      if (seen.has(route.path)) throw new Error(`route ${route.path} is declared twice`);
      seen.add(route.path);
      return compile(basePath, route);
    });
  }

  /**
   * Finds the operation of `method` on `pathname` (the URL's path, still percent-encoded).
   * `HEAD` runs the path's `GET`. Undefined when no template matches the path.
   */
  match(method: string, pathname: string): RouteMatch<H> | undefined {
    for (const compiled of this.#paths) {
      const m = compiled.pattern.exec(pathname);
      if (m === null) continue;
      const params = Object.fromEntries(compiled.names.map((name, i) => [name, m[i + 1] ?? '']));
      const methods = compiled.route.methods as Partial<Record<string, RouteOperation<H>>>;
      const operation = methods[method === 'HEAD' ? 'GET' : method];
      return operation === undefined ? { operation, params, allow: compiled.allow } : { operation, params };
    }
    return undefined;
  }

  /** Every operation of the table, in table order. */
  describe(): RouteDescription[] {
    return this.#paths.flatMap(({ route }) =>
      Object.entries(route.methods).map(([method, op]) => {
        const description: RouteDescription = {
          operationId: op.operationId,
          method: method as RouteMethod,
          path: route.path,
        };
        if (op.deprecated !== undefined) description.deprecated = deprecationHeaders(op.deprecated);
        return description;
      }),
    );
  }
}

/**
 * The headers a deprecated operation's answers carry: `Deprecation` as an RFC 9745 sf-date
 * (`@` and seconds since the epoch) of `since`, `Sunset` as the RFC 8594 HTTP-date of `removal`.
 * @throws Error when a date is not a valid `YYYY-MM-DD`.
 */
export function deprecationHeaders(d: RouteDeprecation): { deprecation: string; sunset: string } {
  return { deprecation: `@${epochMs(d.since) / 1000}`, sunset: new Date(epochMs(d.removal)).toUTCString() };
}

/** Milliseconds since the epoch of an ISO date at midnight UTC. */
function epochMs(date: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw new Error(`not a date: ${date}`);
  return ms;
}

/**
 * A template's pattern: literal segments as they are, `{name}` one non-empty segment. A
 * collection path (one ending in a literal segment, `/pets`) is also served with a trailing
 * slash, an item path (`/pets/{petId}`) is not: `/v1/pets/` lists, `/v1/pets/1/` is 404.
 */
function compile<H>(basePath: string, route: RoutePath<H>): CompiledPath<H> {
  const names: string[] = [];
  const source = `${basePath}${route.path}`
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param === null) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] ?? '');
      return '([^/]+)';
    })
    .join('/');
  const trailingSlash = route.path.endsWith('}') ? '' : '/?';
  return {
    route,
    pattern: new RegExp(`^${source}${trailingSlash}$`),
    names,
    allow: Object.keys(route.methods).join(', '),
  };
}

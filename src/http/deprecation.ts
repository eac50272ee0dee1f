/**
 * Deprecation signals of responses: the `Deprecation` header (RFC 9745, an RFC 9651
 * sf-date `@<unix seconds>`) and the `Sunset` header (RFC 8594, an HTTP-date). A command
 * prints at most one warning about them on stderr, however many pages or records it sends.
 * Light on purpose (no dependencies): `program.ts` and every command may import it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { countOf } from '../text/count.js';

/** A parsed `Deprecation` header: a date, or `unknown` for the obsolete `true` form. */
export type DeprecationValue = { date: Date } | { date: undefined };

const SF_DATE = /^@(-?\d{1,15})$/;

/**
 * Parses a `Deprecation` header value. `@1764892800` gives that instant (RFC 9745 §2.1);
 * the old draft form `true` is invalid but is read as "deprecated, date unknown";
 * anything else gives undefined (ignored).
 */
export function parseDeprecation(raw: string | string[] | undefined): DeprecationValue | undefined {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || value === '') return undefined;
  const m = SF_DATE.exec(value);
  if (m !== null) return { date: new Date(Number(m[1]) * 1000) };
  if (value.toLowerCase() === 'true' || value === '?1') return { date: undefined };
  return undefined;
}

/** Parses a `Sunset` header (RFC 8594: an HTTP-date, IMF-fixdate). Undefined when absent or unparsable. */
export function parseSunset(raw: string | string[] | undefined): Date | undefined {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Whole UTC calendar days from `now` to `date` (negative when `date` is past). */
export function daysBetween(now: Date, date: Date): number {
  const day = (d: Date): number => Math.floor(d.getTime() / 86_400_000);
  return day(date) - day(now);
}

/** "in 3 days", "today", "2 days ago". */
export function relativeDays(now: Date, date: Date): string {
  const n = daysBetween(now, date);
  if (n === 0) return 'today';
  if (n > 0) return `in ${countOf(n, 'day')}`;
  return `${countOf(-n, 'day')} ago`;
}

/** What is known about one deprecated operation. */
export interface DeprecationInfo {
  /** How the user invoked it, e.g. `` `petstore pets get` `` or `GET /v1/pets`. */
  subject: string;
  /** From the `Deprecation` header; `date: undefined` = deprecated, date unknown. */
  deprecation?: DeprecationValue;
  /** From the `Sunset` header. */
  sunset?: Date;
  /** The removal date the CLI knows from the spec (YYYY-MM-DD), used when no Sunset header came. */
  removal?: string;
  /** The command to use instead. */
  replacement?: string;
}

/**
 * Renders one warning line (without the `warning:` prefix): whether and since when the
 * operation is deprecated, its removal date with the days remaining relative to `now`,
 * and the replacement.
 */
export function describeDeprecation(info: DeprecationInfo, now: Date): string {
  const parts: string[] = [];
  const dep = info.deprecation;
  if (dep?.date !== undefined && dep.date.getTime() > now.getTime()) {
    parts.push(`${info.subject} will be deprecated on ${isoDay(dep.date)} (${relativeDays(now, dep.date)})`);
  } else if (dep?.date !== undefined) {
    parts.push(`${info.subject} is deprecated (since ${isoDay(dep.date)})`);
  } else {
    parts.push(`${info.subject} is deprecated`);
  }
  const removal = info.sunset ?? (info.removal !== undefined ? new Date(`${info.removal}T00:00:00Z`) : undefined);
  if (removal !== undefined) {
    const past = removal.getTime() <= now.getTime();
    parts.push(
      past
        ? `and was removed on ${isoDay(removal)} (${relativeDays(now, removal)})`
        : `and will be removed on ${isoDay(removal)} (${relativeDays(now, removal)})`,
    );
  }
  let line = parts.join(' ');
  if (info.replacement !== undefined) line += `; use \`${info.replacement}\` instead`;
  return line;
}

/**
 * Collects deprecation signals for one command and prints one warning. Known metadata
 * (`pets get`) and the response's headers merge into that single line.
 */
export class DeprecationReporter {
  private info: DeprecationInfo | undefined;
  private printed = false;

  /**
   * @param warn prints one warning line (without the `warning:` prefix).
   * @param now the clock the days remaining are counted from.
   * @param describe words the warning (default `describeDeprecation`).
   */
  constructor(
    private readonly warn: (message: string) => void,
    private readonly now: () => Date = () => new Date(),
    private readonly describe: (info: DeprecationInfo, now: Date) => string = describeDeprecation,
  ) {}

  /** Records what the CLI itself knows (command metadata); printed by `flush`. */
  declare(info: DeprecationInfo): void {
    this.info = {
      ...info,
      deprecation: this.info?.deprecation ?? info.deprecation,
      sunset: this.info?.sunset ?? info.sunset,
    };
  }

  /**
   * Reads `Deprecation` and `Sunset` from a response. Returns true when the response
   * carried either (valid) header.
   */
  observe(headers: IncomingHttpHeaders | undefined, subject: string): boolean {
    if (headers === undefined) return false;
    const deprecation = parseDeprecation(headers.deprecation);
    const sunset = parseSunset(headers.sunset);
    if (deprecation === undefined && sunset === undefined) return false;
    this.info = {
      subject: this.info?.subject ?? subject,
      removal: this.info?.removal,
      replacement: this.info?.replacement,
      deprecation: deprecation ?? this.info?.deprecation,
      sunset: sunset ?? this.info?.sunset,
    };
    return true;
  }

  /** The Sunset date seen so far, if any. */
  sunset(): Date | undefined {
    return this.info?.sunset;
  }

  /** Prints the warning once, if there is anything to say. */
  flush(): void {
    if (this.printed || this.info === undefined) return;
    this.printed = true;
    this.warn(this.describe(this.info, this.now()));
  }

  /** Observes a response and prints at once (for commands that send many requests). */
  observeAndFlush(headers: IncomingHttpHeaders | undefined, subject: string): void {
    if (this.observe(headers, subject)) this.flush();
  }
}

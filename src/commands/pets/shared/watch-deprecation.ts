/**
 * Deprecation signals of a pets verb's answers (RFC 9745 `Deprecation`, RFC 8594 `Sunset`;
 * docs/errors.md "Deprecation signals"), watched the same way by every verb that sends an
 * operation the API may deprecate: at most one warning per command, printed as soon as an
 * answer carries a signal, however many requests it sends.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SettingsContext, TerminalContext } from '../../../context.js';
import { DeprecationReporter } from '../../../http/deprecation.js';

/**
 * A watcher for the answers of `operation` (e.g. `createPet (POST /pets)`): call it with
 * each answer's headers; it warns once, on stderr, through `ctx.warn`.
 */
export function watchDeprecation(
  ctx: Pick<TerminalContext, 'warn'> & Pick<SettingsContext, 'now'>,
  operation: string,
): (headers: IncomingHttpHeaders | undefined) => void {
  const reporter = new DeprecationReporter(
    (m) => ctx.warn(m),
    () => ctx.now(),
  );
  return (headers) => reporter.observeAndFlush(headers, operation);
}

/** Whether `env remove` may ask its question. */
import type { Context } from '../../../context.js';

/**
 * True when a question can be asked and answered: stdin and stderr are terminals and
 * `PETSTORE_NO_PROMPT` is not on (the condition of `pets create`'s prompt: never on a pipe,
 * where a question would read the piped data and write escape codes into it).
 */
export function canAsk(ctx: Pick<Context, 'io' | 'env'>): boolean {
  return ctx.io.stdinIsTTY && ctx.io.stderrIsTTY && ctx.env.get('PETSTORE_NO_PROMPT') !== true;
}

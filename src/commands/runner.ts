/**
 * The seam between a command's declaration and its run (gh's `runF`): a declaration hands
 * its body to `Runner.run`, which builds the run's Context from the global flags, runs the
 * body and records its exit code. Declarations stay cheap; bodies import their heavy parts.
 */
import type { Context } from '../context.js';

// The commands that read the whole tree (`help`, `completion`) find its root here.
export { rootOf } from './path.js';

/** Runs command bodies. */
export interface Runner {
  /**
   * Builds the Context, runs `body` and records the exit code it returns.
   * Errors propagate to `cli.ts`, the one place they become messages and codes. With
   * `--jq`, an expression jq refused is the error (UsageError, exit 2) whatever `body` did:
   * a read may have sent its request before the verdict (ConnectOptions.reads).
   */
  run(body: (ctx: Context) => Promise<number>): Promise<void>;
}

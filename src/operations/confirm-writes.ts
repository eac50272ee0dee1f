/**
 * Writes confirmed where the user asks for it (cli-contract.md "Environments":
 * `NAME.confirmWrites`, "`true`: every write to it asks on a terminal and is refused off a
 * terminal unless `--yes`; off by default"; "Global flags": `--yes` answers a confirmation
 * off a terminal). The rule is `writeConsent`, a pure function, so that every place a write
 * can start from uses the same one: the commands here ask on the terminal
 * (`confirmWrite`); a server that asks its client another way reuses the rule with its own
 * `canAsk`.
 */
import type { Connection } from '../config/settings.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, InterruptedError } from '../base/errors.js';
import { escapeForTerminal } from '../text/escape.js';
import { messageColumns, wrapPrompt } from '../text/wrap.js';

/** What to do with a write: send it, ask first, or refuse it (nothing sent). */
export type WriteConsent = 'send' | 'ask' | 'refuse';

/** The facts the rule decides on. */
export interface ConsentFacts {
  /**
   * Whether `confirmWrites` applies to the write's base URL: the environment's own setting,
   * or that of an environment with the same base URL (false when none, and for the sandbox).
   */
  confirmWrites: boolean;
  /** `--yes` was given. */
  yes: boolean;
  /** Whether a question can be asked and answered now (a terminal: `canAskOnTerminal`). */
  canAsk: boolean;
}

/**
 * The rule of cli-contract.md "Environments" and "Global flags": without `confirmWrites`
 * every write is sent; with it, `--yes` is the answer given in advance (on a terminal too,
 * as gh's and apt's `--yes`: a person who typed it has answered), a write asks where a
 * question can be asked, and is refused elsewhere.
 */
export function writeConsent({ confirmWrites, yes, canAsk }: ConsentFacts): WriteConsent {
  if (!confirmWrites || yes) return 'send';
  return canAsk ? 'ask' : 'refuse';
}

/**
 * Whether a question can be asked on the terminal: stdin and stderr (where prompts are
 * drawn) are terminals and `PETSTORE_NO_PROMPT` is not on (the condition of `pets create`'s
 * prompts: a question on a pipe would read the piped data and write escape codes into it).
 */
export function canAskOnTerminal(ctx: Pick<Context, 'io' | 'env'>): boolean {
  return ctx.io.stdinIsTTY && ctx.io.stderrIsTTY && ctx.env.get('PETSTORE_NO_PROMPT') !== true;
}

/**
 * Lets a write go ahead, or not, by `writeConsent`: returns when it may be sent; asks on
 * stderr (default No) naming the environment, its host and `what` (escaped: it may hold a
 * file's or a user's text), e.g. `create the pet {"name":"Rex","categoryId":1}`.
 * @throws CliError `not_confirmed` (exit 2, nothing sent) when the answer is No, or when no
 * question can be asked and `--yes` was not given (the hint names `--yes` and the setting);
 * InterruptedError (exit 130) on Ctrl-C at the question.
 */
export async function confirmWrite(
  ctx: Pick<Context, 'io' | 'env' | 'globals' | 'signal'>,
  connection: Pick<Connection, 'environment' | 'baseUrl' | 'confirmWrites' | 'confirmWritesOf'>,
  what: string,
): Promise<void> {
  const consent = writeConsent({
    confirmWrites: connection.confirmWrites,
    yes: ctx.globals.yes,
    canAsk: canAskOnTerminal(ctx),
  });
  if (consent === 'send') return;
  const name = connection.environment.value;
  const host = new URL(connection.baseUrl.value).host;
  const details = { environment: name, host };
  const setting = confirmSetting(connection);
  if (consent === 'refuse') {
    throw new CliError(
      `${setting} is on, and no question can be asked here (not a terminal, or PETSTORE_NO_PROMPT): nothing was sent to ${name} (${host})`,
      {
        exitCode: ExitCode.usage,
        code: 'not_confirmed',
        details,
        hint: `Add --yes to send it without a question, or stop asking with \`petstore config set ${setting} false\`.`,
      },
    );
  }
  // A URL that is another environment's says whose: the question is that environment's.
  const whose =
    connection.confirmWritesOf !== undefined && connection.confirmWritesOf !== name
      ? `, ${connection.confirmWritesOf}'s base URL`
      : '';
  if (!(await askYesNo(ctx, `Send to ${name} (${host}${whose}): ${escapeForTerminal(what)}?`))) {
    throw new CliError(`not confirmed: nothing was sent to ${name} (${host})`, {
      exitCode: ExitCode.usage,
      code: 'not_confirmed',
      details,
    });
  }
}

/** What the prompt writes around the question: `? ` before it, ` (y/N) ` and the answer (`Yes`) after. */
const PROMPT_PREFIX = 2;
const PROMPT_TAIL = ' (y/N) Yes'.length;

/**
 * The setting that makes a write ask, as the user would change it: `NAME.confirmWrites` of
 * the environment whose setting applies (`Connection.confirmWritesOf`: this one, or another
 * with the same base URL).
 */
export function confirmSetting(connection: Pick<Connection, 'environment' | 'confirmWritesOf'>): string {
  return `${connection.confirmWritesOf ?? connection.environment.value}.confirmWrites`;
}

/**
 * Asks a yes-or-no question on stderr, default No (`@inquirer/confirm`, loaded only here);
 * call it only where `canAskOnTerminal` holds. Used by every confirmation (`env remove` too).
 * The question is wrapped at spaces to stderr's width first (cli-contract.md "Output":
 * messages wrap at spaces): the library cuts a line at the terminal's edge, mid-word.
 * @throws InterruptedError on Ctrl-C (or the run's abort).
 */
export async function askYesNo(ctx: Pick<Context, 'io' | 'signal'>, message: string): Promise<boolean> {
  const { default: confirm } = await import('@inquirer/confirm');
  const c = ctx.io.colorErr;
  // gh's `?`, and no green tick after the answer: nothing has been sent yet.
  const theme = { prefix: { idle: c.cyan('?'), done: c.cyan('?') } };
  try {
    const question = wrapPrompt(message, messageColumns(ctx.io.stderrColumns), PROMPT_PREFIX, PROMPT_TAIL);
    return await confirm({ message: question, default: false, theme }, { ...ctx.io.prompt(), signal: ctx.signal });
  } catch (err) {
    const kind = err instanceof Error ? err.name : undefined;
    if (ctx.signal.aborted) throw InterruptedError.from(ctx.signal);
    if (kind === 'ExitPromptError' || kind === 'AbortPromptError') throw new InterruptedError();
    throw err;
  }
}

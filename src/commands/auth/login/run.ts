/**
 * `auth login`: stores the API key of the selected
 * environment, bound to its base URL (cli-contract.md "Commands", "Environments").
 *
 * The key comes from a hidden prompt when stdin and stderr are terminals, or from stdin
 * with `--with-token` (on a terminal, `--with-token` still uses the hidden prompt, since
 * typing into stdin would echo the key); never from argv (visible to every local user). It never waits for
 * input that cannot come: without a terminal and without `--with-token` it fails at once.
 */
import { checkKey } from '../../../client/check-key.js';
import { PetstoreClient } from '../../../client/client.js';
import { requireBaseUrl, requireEnvironment } from '../../../config/settings.js';
import { withConfigWriter } from '../../../config/store.js';
import type { Context } from '../../../context.js';
import { AuthError, CliError, ExitCode, InterruptedError, UsageError } from '../../../base/errors.js';
import { abortable } from '../../../base/abort.js';
import { isSendableKey, maskKey } from '../../../base/mask.js';
import { escapeForTerminal } from '../../../text/escape.js';
import { formatCount } from '../../../text/count.js';

/** Typed options of `auth login`. */
export interface LoginOptions {
  /** Read the key from stdin instead of prompting. */
  withToken: boolean;
  /** Check the key with one request before storing it (default true). */
  verify: boolean;
}

/** Largest key accepted on stdin, in bytes; a key is tens of bytes, a mistaken pipe may be a file. */
const MAX_KEY_BYTES = 4096;

/**
 * Logs in: reads the key, checks it (unless `verify` is false) and stores it for the
 * selected environment and its base URL.
 * @throws UsageError (exit 2) for the sandbox, an environment whose key comes from its
 * `apiKeyCommand`, an empty key, or no way to read one;
 * ConfigError (exit 2) without a base URL or with a broken config file; AuthError (exit 4)
 * when the server answers 401; CliError with the check's own code (network, timeout, tls: exit 3) when it cannot be
 * reached; InterruptedError (130) on Ctrl-C at the prompt. Nothing is stored on failure.
 */
export async function runLogin(ctx: Context, options: LoginOptions): Promise<number> {
  // No key is resolved: an apiKeyCommand must not run just to be told it is set.
  const settings = await ctx.settings('selected', { keys: false });
  const name = requireEnvironment(settings).value;
  if (name === 'sandbox') {
    throw new UsageError(
      'the sandbox needs no login: it starts with its own key inside petstore',
      'Use `petstore --env sandbox pets list` directly; log in to production or staging with `petstore --env staging auth login`.',
    );
  }
  const remote = settings.remotes.find((r) => r.name === name);
  if (remote === undefined) throw new Error(`no settings resolved for ${name}`);
  const baseUrl = requireBaseUrl(remote);
  // Fail on a broken config file before asking for a key the user would then have to type again.
  const store = await ctx.loadConfig();
  const command = store.getSetting(`${name}.apiKeyCommand`);
  if (command !== undefined) {
    // cli-contract.md "Environments": while a command gives the key, no key is stored. Refused
    // before the key is typed, so nobody types a secret that would then be thrown away.
    throw new UsageError(
      `${name} takes its key from a command (${name}.apiKeyCommand: \`${command}\`), so auth login stores no key for it; nothing was stored`,
      `Run \`petstore config unset ${name}.apiKeyCommand\` first to store a key instead, or check the command's key with \`${ctx.suggest('auth status --check')}\`.`,
    );
  }

  // `--with-token` on a terminal would echo the key as it is typed: ask with the hidden prompt instead.
  const fromStdin = options.withToken && !ctx.io.stdinIsTTY;
  const apiKey = fromStdin ? await readKeyFromStdin(ctx) : await promptForKey(ctx, name, baseUrl.value);

  if (options.verify) {
    const check = await checkKey(new PetstoreClient(await ctx.createTransport(apiKey), baseUrl.value));
    if (check.result === 'rejected') {
      // The server's code and message are escaped here: neither may start a line of its own.
      throw new AuthError(
        `${baseUrl.value} refused the key (401 ${escapeForTerminal(check.error.code)}: ${escapeForTerminal(check.error.message)}); nothing was stored`,
        `Check the key for ${name}, or store it unchecked with --no-verify.`,
      );
    }
    if (check.result === 'unreachable' || check.result === 'failed') {
      // The check's own failure (network, timeout, tls, a 5xx...) keeps its code and exit code.
      throw new CliError(`could not verify the key: ${escapeForTerminal(check.error.message)}; nothing was stored`, {
        exitCode: check.error.exitCode,
        code: check.error.code,
        status: check.error.status,
        hint:
          check.result === 'unreachable'
            ? 'Check the base URL and the network, or store the key unchecked with --no-verify.'
            : 'Store the key unchecked with --no-verify if the server is known to be degraded.',
      });
    }
  }

  const path = await withConfigWriter(
    ctx.env,
    (m) => ctx.warn(m),
    (writer) => {
      writer.setKey(name, apiKey, baseUrl.value);
      return writer.path;
    },
    { waitMs: ctx.globals.timeoutMs, signal: ctx.signal, onWait: (m) => ctx.note(m) },
  );
  ctx.note(
    `Logged in to ${name} (${baseUrl.value}): key ${maskKey(apiKey)} ${options.verify ? 'checked and ' : ''}stored in ${path}`,
    { always: true },
  );
  if (ctx.env.isSet('PETSTORE_API_KEY')) {
    ctx.warn('PETSTORE_API_KEY is set and wins over the stored key until you unset it');
  }
  return ExitCode.ok;
}

/** Reads the whole of stdin; the key is its content without surrounding whitespace. */
async function readKeyFromStdin(ctx: Pick<Context, 'io' | 'signal' | 'suggest'>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // A pipe that stays open must not keep Ctrl-C from working.
  for await (const chunk of abortable(ctx.io.stdin, ctx.signal)) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_KEY_BYTES) {
      throw new UsageError(
        `--with-token: stdin holds more than ${formatCount(MAX_KEY_BYTES)} bytes; expected one API key`,
      );
    }
    chunks.push(buf);
  }
  return checkKeyText(
    Buffer.concat(chunks).toString('utf8'),
    '--with-token: the key read from stdin',
    ctx.suggest('auth login --with-token < key.txt'),
  );
}

/**
 * Trims the trailing newline (and other surrounding whitespace) and checks what is left;
 * `pipeCommand` is the login from a file that an empty key's hint suggests.
 */
function checkKeyText(raw: string, what: string, pipeCommand: string): string {
  const key = raw.trim();
  if (key === '') {
    throw new UsageError(`${what} is empty; nothing was stored`, `Pipe the key itself: \`${pipeCommand}\`.`);
  }
  // A key is one token: whitespace or control characters inside mean the wrong input was piped.
  if (/[\s\p{Cc}]/u.test(key)) {
    throw new UsageError(
      `${what} contains whitespace or control characters; expected a single API key; nothing was stored`,
    );
  }
  if (!isSendableKey(key)) {
    throw new UsageError(
      `${what} contains characters an HTTP header cannot carry (only visible ASCII is allowed); nothing was stored`,
    );
  }
  return key;
}

/**
 * Asks for the key with a hidden prompt on stderr. Only when stdin and stderr are both
 * terminals: with piped stdin the prompt would read the pipe and write escape codes
 * (libraries-and-pitfalls.md §5).
 */
async function promptForKey(
  ctx: Pick<Context, 'io' | 'signal' | 'suggest'>,
  name: string,
  baseUrl: string,
): Promise<string> {
  const { io } = ctx;
  if (!io.stdinIsTTY || !io.stderrIsTTY) {
    throw new UsageError(
      `no key to store: ${io.stdinIsTTY ? 'stderr (where the prompt is drawn)' : 'stdin'} is not a terminal, so petstore will not prompt for the ${name} key`,
      `Pipe the key with \`${ctx.suggest('auth login --with-token < key.txt')}\`, or set PETSTORE_API_KEY for the command instead.`,
    );
  }
  const { default: password } = await import('@inquirer/password');
  let answer: string;
  try {
    answer = await password(
      {
        message: `API key for ${name} (${baseUrl}):`,
        // No ctrl+t "toggle visibility": the key is never drawn on the screen.
        toggleMask: false,
        // No green tick once the key is typed: it has not been checked yet, and may be refused.
        theme: { prefix: { idle: io.colorErr.cyan('?'), done: io.colorErr.cyan('?') } },
        validate: (value) => (value.trim() === '' ? 'The key cannot be empty.' : true),
      },
      { ...io.prompt(), signal: ctx.signal },
    );
  } catch (err) {
    // Ctrl-C at the prompt (ExitPromptError) or the run's abort signal (AbortPromptError).
    const name = err instanceof Error ? err.name : undefined;
    if (name === 'ExitPromptError' || name === 'AbortPromptError' || ctx.signal.aborted)
      throw InterruptedError.from(ctx.signal);
    throw err;
  }
  return checkKeyText(answer, 'the key', ctx.suggest('auth login --with-token < key.txt'));
}

/**
 * The words of an `apiKeyCommand`: split by POSIX shell quoting (the `shlex` package, a
 * port of Python's `shlex.split`, which AWS uses for `credential_process`), and never
 * expanded, since the command runs without a shell. A leaf with no process code, so
 * `config set` can check a command without loading `child_process`.
 */
import { split } from 'shlex';
import { UsageError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';

/**
 * Splits `command` into argv: words are separated by white space; `'…'` keeps everything
 * inside as it is, `"…"` keeps everything but `\"` and `\\`, and `\` outside quotes keeps
 * the next character. Nothing is expanded: `$HOME`, `~`, `*`, `|` and `>` are plain text.
 * @throws UsageError naming `setting` for an empty command or an unclosed quote or escape.
 */
export function splitCommandLine(command: string, setting: string): string[] {
  let argv: string[];
  try {
    argv = split(command);
  } catch (err) {
    // shlex says "Got EOF while in a quoted string" or "... in an escape sequence".
    const why = /escape/.test((err as Error).message) ? 'it ends with a lone backslash' : 'a quote is not closed';
    throw new UsageError(
      `invalid ${setting} ${quote(command)}: ${why}`,
      `Quote words as a shell would: 'a b' or "a b"; petstore runs the command without a shell.`,
    );
  }
  if (argv.length === 0) throw new UsageError(`invalid ${setting}: the command is empty`);
  return argv;
}

/** Words a shell would have treated as syntax: operators, and words it would have expanded. */
const SHELL_SYNTAX = /^(?:\|\|?|&&?|;|[0-9]?>>?(?:&[0-9])?|<)$|^~|\$/;

/**
 * The words of `argv` that only a shell would understand (`|`, `>`, `&&`, `;`, `~/…`,
 * `$VAR`): petstore passes them to the program as they are, which is rarely what was meant.
 */
export function shellSyntaxWords(argv: readonly string[]): string[] {
  return argv.filter((word) => SHELL_SYNTAX.test(word));
}

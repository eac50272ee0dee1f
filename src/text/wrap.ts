/**
 * Word wrapping for a terminal: messages (warnings, notes, errors and their hints, at the
 * terminal's width, 80 columns off a terminal) and the prose and examples of `--help`.
 * Lines break at spaces only, never inside a word. Widths are display widths (`width.ts`).
 * Pure.
 *
 * A command in a message is a backquoted span whose first word is a program a shell runs
 * (`` `petstore pets list` ``, `` `export NAME=value` ``), built shell-quoted by its
 * writer (`base/suggest.ts`). It is never broken (cli-contract.md "Output"): inline it
 * keeps its backquotes, the house's mark of code in prose; when it does not fit on the
 * line where it stands it takes a line of its own, bare (pasting backquotes would run a
 * command substitution), and the prose goes on on the next line; it overflows only when
 * it is wider than a line. Only a `$ ` example of `--help` is broken, with shell line
 * continuations (` \`), since an example stands alone and is pasted whole.
 */
import { displayWidth } from './width.js';

/** The width of messages when stderr is not a terminal (a pipe, a file, a CI log). */
const PIPE_COLUMNS = 80;

/** The width messages wrap at: the terminal's, or 80 columns when stderr is not a terminal. */
export function messageColumns(terminalColumns: number | undefined): number {
  return terminalColumns !== undefined && terminalColumns > 0 ? terminalColumns : PIPE_COLUMNS;
}

/**
 * A command in a token of a message: what precedes its opening backquote (`(`), the
 * command without its backquotes, and what follows the closing one (`.`, `),`).
 */
interface CommandToken {
  before: string;
  command: string;
  after: string;
}

/** The programs whose backquoted spans are commands to paste, not names of things. */
const COMMAND = /^([^`]*)`((?:petstore|export) [^`]*)`(.*)$/;

/** The command in `token`, if the token holds one. */
function commandIn(token: string): CommandToken | undefined {
  const m = COMMAND.exec(token);
  if (m === null) return undefined;
  const [, before = '', command = '', after = ''] = m;
  return { before, command, after };
}

/** Punctuation that ends a clause: dropped after a command on a line of its own, where it would be pasted with it. */
const CLAUSE_END = /^[.,;:]*$/;

/**
 * A line that is one command and nothing else but a clause's end, written bare (without
 * its backquotes and the `.` after it) so that pasting the line runs it; any other line
 * as it is.
 */
function bareIfCommand(line: string): string {
  const c = commandIn(line);
  return c !== undefined && c.before === '' && CLAUSE_END.test(c.after) ? c.command : line;
}

/**
 * Splits a line into words at spaces. A `backquoted span` is one word, spaces and all,
 * with what touches it (`(`, `.`): a command broken over two lines runs as two when pasted.
 */
function words(text: string): string[] {
  return text.match(/(?:`[^`]*`|[^ `]+|`)+/g) ?? [];
}

/** How `wrapWords` treats commands: as messages do (lines of their own), or as plain words (help prose). */
interface WrapMode {
  commandLines: boolean;
}

const MESSAGES: WrapMode = { commandLines: true };
const HELP_PROSE: WrapMode = { commandLines: false };

/**
 * Breaks `text` (one line) at spaces into lines of at most `width` columns, the first line
 * having `used` columns already taken (a `warning: ` prefix), the others `hang` columns of
 * indentation (not included in the result; the caller indents). A word longer than a line
 * (a URL) is kept whole on a line of its own, never cut. A command (see the top of this
 * file) that does not fit on the line where it stands takes a line of its own, bare; what
 * touched it goes with the prose around it (a `(` before, a `)` after; a clause's `.` or
 * `,` is dropped). Runs of spaces count as one. Returns the lines joined by `\n`, without a
 * trailing newline.
 */
export function wrapWords(text: string, width: number, used = 0, hang = 0): string {
  return layOut(text, width, used, hang, MESSAGES);
}

function layOut(text: string, width: number, used: number, hang: number, mode: WrapMode): string {
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  let room = width - used;
  const end = (): void => {
    lines.push(line);
    line = '';
    lineWidth = 0;
    room = width - hang;
  };
  const add = (word: string): void => {
    const w = displayWidth(word);
    if (line !== '' && lineWidth + 1 + w > room) end();
    lineWidth += (line === '' ? 0 : 1) + w;
    line = line === '' ? word : `${line} ${word}`;
  };
  for (const word of words(text)) {
    const command = mode.commandLines ? commandIn(word) : undefined;
    const fits = (line === '' ? 0 : lineWidth + 1) + displayWidth(word) <= room;
    if (command === undefined || fits) {
      add(word);
      continue;
    }
    if (command.before !== '') add(command.before);
    // At the start of a first line after a prefix (`error: `), the prefix keeps its line alone.
    if (line !== '' || (lines.length === 0 && used > 0)) end();
    line = command.command;
    end();
    const after = CLAUSE_END.test(command.after) ? '' : command.after;
    if (after !== '') add(after);
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines.map(mode.commandLines ? bareIfCommand : (l: string) => l).join('\n');
}

/**
 * Wraps every line of a multi-line message with `wrapWords`; a line's continuation keeps
 * that line's indentation (a list item stays a list item) plus `hang` columns. `used`
 * applies to the first line only. An error's or warning's text is wrapped with a `hang`:
 * then no word of it, even one a server chose, can start a line as if it were a message
 * of its own (`error: ...`). A line that is a command alone is written bare (`wrapWords`).
 */
export function wrapMessage(text: string, width: number, used = 0, hang = 0): string {
  return wrapLines(text, width, used, hang, MESSAGES);
}

function wrapLines(text: string, width: number, used: number, hang: number, mode: WrapMode): string {
  return text
    .split('\n')
    .map((line, i) => {
      const indent = /^ */.exec(line)?.[0] ?? '';
      const first = i === 0 ? used : 0;
      const body = line.slice(indent.length);
      if (displayWidth(line) + first <= width) return mode.commandLines ? indent + bareIfCommand(body) : line;
      const next = indent + ' '.repeat(hang);
      return indent + layOut(body, width - indent.length, first, hang, mode).replace(/\n/g, `\n${next}`);
    })
    .join('\n');
}

/**
 * A question's text wrapped for a prompt (`? question (y/N) answer`) drawn by a library
 * that cuts lines at the terminal's edge, mid-word: at spaces to `width` columns, the first
 * line after the `used` columns of the prompt's prefix (`? `), the others indented by as
 * many, and the last leaving `tail` columns free for what the library writes after it
 * (` (y/N) ` and the answer) — else its last word starts a line of its own. Commands in it
 * follow the message rule (`wrapWords`).
 */
export function wrapPrompt(question: string, width: number, used: number, tail: number): string {
  const wrapped = wrapMessage(question, width, used, used);
  const lines = wrapped.split('\n');
  const last = displayWidth(lines.at(-1) ?? '') + (lines.length === 1 ? used : 0);
  const lastWord = words(question).at(-1) ?? '';
  const head = question.slice(0, question.lastIndexOf(lastWord)).trimEnd();
  if (last + tail <= width || head === '' || question.includes('\n')) return wrapped;
  return `${wrapMessage(head, width, used, used)}\n${' '.repeat(used)}${bareIfCommand(lastWord)}`;
}

/**
 * Wraps help text written for 80 columns to `width`: prose lines at word boundaries, with
 * their indentation kept (a backquoted span is one word, and keeps its backquotes); an
 * example command (`  $ petstore ...`) is broken with a shell line continuation (` \`)
 * and the rest indented, so it still runs when pasted whole. Words in single or double
 * quotes are kept together.
 */
export function wrapHelpText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= width) return line;
      const example = /^( *)\$ (.*)$/.exec(line);
      if (example === null) return wrapLines(line, width, 0, 0, HELP_PROSE);
      const [, indent = '', command = ''] = example;
      return wrapCommand(command, width, indent);
    })
    .join('\n');
}

/** Breaks a shell command into lines `indent$ ... \` / `indent    ...`, at spaces outside quotes. */
function wrapCommand(command: string, width: number, indent: string): string {
  const head = `${indent}$ `;
  const next = `${indent}    `;
  return breakCommand(commandTokens(command), width - head.length, width - next.length, head, next).join('\n');
}

/**
 * The words of a shell command, split at spaces outside quotes (a backquote is a
 * character like any other); a trailing `# comment` is one word: a line continuation
 * inside a comment is no continuation.
 */
function commandTokens(command: string): string[] {
  const tokens = command.match(/(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^ '"]+|['"])+/g) ?? [];
  const comment = tokens.findIndex((t) => t.startsWith('#'));
  if (comment > 0) tokens.splice(comment, tokens.length - comment, tokens.slice(comment).join(' '));
  return tokens;
}

/**
 * Lays `tokens` out in lines: the first starts with `head` and has `firstRoom` columns after
 * it, the others start with `next` and have `restRoom`; each line but the last ends with
 * ` \` (a shell line continuation), for which it keeps room. A token wider than a line
 * stands alone on one.
 */
function breakCommand(tokens: string[], firstRoom: number, restRoom: number, head: string, next: string): string[] {
  const lines: string[] = [];
  let line = '';
  let room = firstRoom;
  tokens.forEach((token, i) => {
    const tail = i === tokens.length - 1 ? 0 : 2;
    if (line !== '' && displayWidth(line) + 1 + displayWidth(token) + tail > room) {
      lines.push(`${line} \\`);
      line = token;
      room = restRoom;
    } else {
      line = line === '' ? token : `${line} ${token}`;
    }
  });
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? head : next) + l);
}

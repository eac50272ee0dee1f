/**
 * Word wrapping for a terminal: messages (warnings, notes, errors and their hints fit 80
 * columns, or the terminal's width when it is narrower) and the prose and examples of
 * `--help`. Lines break at spaces only, never inside a word. A command (a `backquoted
 * command`, a command after a colon at the end of a line, an example of `--help`) is
 * broken only when it is wider than a line, and then with shell line continuations
 * (` \`), outside quotes, so that it still runs when pasted. Widths are display widths
 * (`width.ts`). Pure.
 */
import { displayWidth } from './width.js';

/** The widest a message line gets, even on a wider terminal (gh's and git's habit). */
const MESSAGE_COLUMNS = 80;

/** The width messages wrap at: 80 columns, or the terminal's width when it is narrower. */
export function messageColumns(terminalColumns: number | undefined): number {
  return Math.min(MESSAGE_COLUMNS, terminalColumns ?? MESSAGE_COLUMNS);
}

/**
 * Splits a line into words at spaces. A `backquoted span` is one word, spaces and all, and
 * so is a command that follows a colon at the end of the line (`Example: petstore ...`,
 * `then run: petstore ...`): a command broken over two lines runs as two when pasted.
 */
function words(text: string): string[] {
  const command = /(?:^|: )(petstore .*)$/.exec(text);
  const head = command === null ? text : text.slice(0, command.index + (command[0].startsWith(': ') ? 1 : 0));
  const found = head.match(/(?:`[^`]*`|[^ `]+|`)+/g) ?? [];
  return command?.[1] === undefined ? found : [...found, command[1]];
}

/**
 * Breaks `text` (one line) at spaces into lines of at most `width` columns, the first line
 * having `used` columns already taken (a `warning: ` prefix), the others `hang` columns of
 * indentation (not included in the result; the caller indents). A word longer than a line
 * (a URL) is kept whole on a line of its own, never cut; so is a command, unless it is
 * longer than a line: then it starts a line and is broken with ` \` continuations
 * (`breakCommand`), its later lines indented 2 more than its first. Runs of spaces count as one. Returns the
 * lines joined by `\n`, without a trailing newline.
 */
export function wrapWords(text: string, width: number, used = 0, hang = 0): string {
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  let room = width - used;
  for (const word of words(text)) {
    const w = displayWidth(word);
    if (line !== '' && lineWidth + 1 + w <= room) {
      line += ` ${word}`;
      lineWidth += 1 + w;
      continue;
    }
    if (line !== '') {
      lines.push(line);
      room = width - hang;
    }
    // Only a command holds a space (`words`). Its own continuations are indented 2 more than
    // where it starts: the first line at `used`, the others at `hang`.
    const start = lines.length === 0 ? used : hang;
    const command =
      w > room && word.includes(' ')
        ? breakCommand(commandTokens(word), room, width - start - 2, '', ' '.repeat(Math.max(0, start + 2 - hang)))
        : [word];
    lines.push(...command.slice(0, -1));
    line = command[command.length - 1] ?? '';
    lineWidth = displayWidth(line);
    if (command.length > 1) room = width - hang;
  }
  lines.push(line);
  return lines.join('\n');
}

/**
 * Wraps every line of a multi-line message with `wrapWords`; a line's continuation keeps
 * that line's indentation (a list item stays a list item) plus `hang` columns. `used`
 * applies to the first line only. An error's or warning's text is wrapped with a `hang`:
 * then no word of it, even one a server chose, can start a line as if it were a message
 * of its own (`error: ...`).
 */
export function wrapMessage(text: string, width: number, used = 0, hang = 0): string {
  return text
    .split('\n')
    .map((line, i) => {
      const indent = /^ */.exec(line)?.[0] ?? '';
      const first = i === 0 ? used : 0;
      if (displayWidth(line) + first <= width) return line;
      const next = indent + ' '.repeat(hang);
      return (
        indent + wrapWords(line.slice(indent.length), width - indent.length, first, hang).replace(/\n/g, `\n${next}`)
      );
    })
    .join('\n');
}

/**
 * Wraps help text written for 80 columns to `width`: prose lines at word boundaries, with
 * their indentation kept; an example command (`  $ petstore ...`) is broken with a shell
 * line continuation (` \`) and the rest indented, so it still runs when pasted whole.
 * Words in single or double quotes are kept together.
 */
export function wrapHelpText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= width) return line;
      const example = /^( *)\$ (.*)$/.exec(line);
      if (example === null) return wrapMessage(line, width);
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

/**
 * What messages look like on stderr (cli-contract.md "Errors and exit codes"), in their two
 * forms: text for people (wrapped at spaces to the terminal's width, 80 columns off a
 * terminal, a command never broken: text/wrap.ts; server text escaped) and one JSON object per line for scripts. Which form a message
 * takes is decided in one place, `messageForm`; Io writes them. Pure.
 */
import { escapeForTerminal, escapeJsonText, escapeKeepingLines } from '../text/escape.js';
import { messageColumns, wrapMessage } from '../text/wrap.js';

/** The two forms of a message. */
export type MessageForm = 'text' | 'json';

/** What decides the form of the messages of a run. */
export interface MessagePolicy {
  /** `PETSTORE_MESSAGES`: the form of every message, when set. */
  forced: MessageForm | undefined;
  /** Whether the run's output is JSON (`--output json|ndjson`, `--json`, or `--jq`, which implies it). */
  jsonOutput: boolean;
  /** Whether stderr is a terminal. */
  stderrIsTTY: boolean;
}

/**
 * What a message is, for its form: an error; a message (a warning, a note, a line of jq's
 * `debug` or of a key command's stderr); or a line of a transcript a person reads (a
 * `--verbose` line, a request `sandbox serve` answered).
 */
export type MessageKind = 'error' | 'message' | 'transcript';

/**
 * The form of a message (cli-contract.md "Errors and exit codes"): `PETSTORE_MESSAGES`
 * decides for every message when set. Otherwise every message on a terminal is text, an
 * error too, whatever the output format: a person reads it. Off a terminal, with JSON
 * output, an error, a warning or a note is one JSON object a line, so a script parses
 * stderr; with any other output, text. A transcript line is text unless forced:
 * `--verbose` is read by people, as curl's `-v` is.
 */
export function messageForm(policy: MessagePolicy, kind: MessageKind): MessageForm {
  if (policy.forced !== undefined) return policy.forced;
  if (policy.stderrIsTTY || !policy.jsonOutput || kind === 'transcript') return 'text';
  return 'json';
}

/** The kind of a message, by its level. */
export function kindOf(m: Message): MessageKind {
  return m.level === 'verbose' || m.level === 'request' ? 'transcript' : 'message';
}

/** An error as Io reports it: the JSON object's fields, and how its text form reads. */
export interface ErrorMessage {
  /** One of the error codes (`usage`, `network`, ...) or the server's Error code. */
  code: string;
  /** One line for people; in JSON as it is, in text escaped (line feeds kept). */
  message: string;
  /** The HTTP status, 0 when no answer was involved. */
  status: number;
  /** More fields of the JSON object (a bulk create's account, an incomplete list's counts). */
  details?: Record<string, unknown> | undefined;
  /** The text form of `message` when it is not `message` escaped (a server's Error, already escaped). */
  text?: string;
  /** The text form starts with a line feed (after the `^C` a terminal echoed). */
  newLine?: boolean;
  /** The line on how to fix it (text form only). */
  hint?: string | undefined;
  /** Lines printed as they are after the hint (the bug report line, a stack). */
  after?: string[];
  /**
   * An interruption the person asked for (Ctrl-C): the text form is a line break (the
   * terminal echoed `^C` where the cursor was), then `note`, if any, as a note.
   */
  interrupted?: { note: string | undefined };
}

/** A message other than an error. */
export type Message =
  /** `warning: ...`, wrapped with a hanging indent; `wrap` narrows the width further. */
  | { level: 'warning'; message: string; wrap?: number | undefined }
  /** A note for people (dim). */
  | { level: 'note'; message: string }
  /** A `--verbose` line (`> GET ...`): one line, the server's text escaped. */
  | { level: 'verbose'; message: string }
  /** A line jq wrote with `debug` or `stderr`, as jq wrote it. */
  | { level: 'debug'; message: string }
  /** A line an `apiKeyCommand` wrote on its stderr, and the setting that ran it. */
  | { level: 'stderr'; message: string; from: string }
  /** A request a server petstore runs answered (`sandbox serve`). */
  | { level: 'request'; message: string }
  /** The remote environment a command talks to, `production (api.example.com)`: `env: ` and it, in the target colour. */
  | { level: 'target'; target: string }
  /** A write's summary line (`created pet 7 "Rex"`), then ` in ` and its target; in the target colour. */
  | { level: 'summary'; message: string; target: string };

/** How the text form is drawn: the terminal's width and stderr's colours. */
export interface TextStyle {
  columns: number | undefined;
  yellow: (s: string) => string;
  red: (s: string) => string;
  dim: (s: string) => string;
  /** The colour of the environment a command talks to: neither dim nor red (cli-contract.md "Environments"). */
  target: (s: string) => string;
}

/** One JSON object on one line, every character a terminal could act on escaped. */
function jsonLine(value: Record<string, unknown>): string {
  return `${escapeJsonText(JSON.stringify(value))}\n`;
}

/** The lines of a message, ending with a line feed, in `form`. */
export function renderMessage(m: Message, form: MessageForm, style: TextStyle): string {
  if (form === 'json') {
    const { wrap: _wrap, ...fields } = m as Message & { wrap?: unknown };
    return jsonLine(fields);
  }
  const width = messageColumns(style.columns);
  switch (m.level) {
    case 'warning': {
      // `warning: ` takes 9 columns of the first line.
      const text = wrapMessage(escapeKeepingLines(m.message), Math.min(m.wrap ?? Infinity, width), 9, 2);
      return `${style.yellow('warning:')} ${text}\n`;
    }
    case 'note':
      return `${style.dim(wrapMessage(escapeKeepingLines(m.message), width))}\n`;
    // The whole line in the target colour: it is about the target, and a line wrapped in
    // the middle of it stays one colour (chalk closes and reopens the colour at a break).
    case 'target':
      return `${style.target(wrapMessage(`env: ${escapeForTerminal(m.target)}`, width, 0, 2))}\n`;
    case 'summary':
      return `${style.target(wrapMessage(`${escapeForTerminal(m.message)} in ${escapeForTerminal(m.target)}`, width, 0, 2))}\n`;
    case 'debug':
      return `${escapeKeepingLines(m.message)}\n`;
    case 'verbose':
    case 'stderr':
    case 'request':
      return `${escapeForTerminal(m.message)}\n`;
  }
}

/** An error's lines, ending with a line feed, in `form`. */
export function renderError(e: ErrorMessage, form: MessageForm, style: TextStyle): string {
  if (form === 'json') return jsonLine({ code: e.code, message: e.message, status: e.status, ...e.details });
  if (e.interrupted !== undefined) {
    const note = e.interrupted.note;
    return `\n${note === undefined ? '' : renderMessage({ level: 'note', message: note }, 'text', style)}`;
  }
  // Every line fits the terminal (80 columns off one); long words (URLs) and commands stay whole.
  const width = messageColumns(style.columns);
  const message = e.text ?? escapeKeepingLines(e.message);
  let out = `${e.newLine === true ? '\n' : ''}${style.red('error:')} ${wrapMessage(message, width, 'error: '.length, 2)}\n`;
  // Each line of the hint (an account's entries) starts at the margin; what it wraps onto hangs.
  if (e.hint !== undefined) out += `${wrapMessage(escapeKeepingLines(e.hint), width, 0, 2)}\n`;
  for (const line of e.after ?? []) out += `${line}\n`;
  return out;
}

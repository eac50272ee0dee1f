/**
 * Every message of `src/` wrapped as a terminal shows it (cli-contract.md "Output":
 * messages wrap at spaces; a command inside a message is never broken — a line of its own
 * when it does not fit — and is shell-quoted). Each string and template literal of `src/`
 * is read with TypeScript's parser, its `${...}` filled with sample values (a suggested
 * command as `ctx.suggest` makes it, a file name with a space, shell-quoted as the code
 * quotes it), and rendered as an error and its hint at 60 and 120 columns. No line ends
 * with a shell continuation, every command stands whole (inline between backquotes, or
 * bare on a line of its own, which a shell runs as the same words), and no prose line is
 * wider than the terminal. Literals are found, not listed: a new message is covered.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { shellQuote, suggestCommand } from '../../src/base/suggest.js';
import { renderError, type TextStyle } from '../../src/io/messages.js';
import { displayWidth } from '../../src/text/width.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

const root = join(import.meta.dirname, '..', '..');
const src = join(root, 'src');

/** A value for any `${...}` the code fills in: a file name with a space, as the code may name. */
const SAMPLE = '/tmp/petstore samples/pets.ndjson';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The name a call is made through (`suggest`, `ctx.suggest`, `shellQuote`). */
function calleeName(e: ts.Expression): string {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return '';
}

/**
 * The text of an expression with samples for what is known only at run time: a call that
 * builds a suggested command gives one (`petstore --env staging ` and its words), a
 * `shellQuote` its argument quoted; anything else `SAMPLE`.
 */
function valueOf(e: ts.Expression): string {
  if (ts.isParenthesizedExpression(e)) return valueOf(e.expression);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isTemplateExpression(e)) return textOf(e);
  if (ts.isConditionalExpression(e)) return valueOf(e.whenTrue);
  if (ts.isCallExpression(e)) {
    const name = calleeName(e.expression);
    const arg = e.arguments[0];
    if (name === 'shellQuote' && arg !== undefined) return shellQuote(valueOf(arg));
    if (name === 'loginCommand') return suggestCommand('auth login', { env: 'staging' });
    if (/suggest/i.test(name) && arg !== undefined) return suggestCommand(valueOf(arg), { env: 'staging' });
  }
  return SAMPLE;
}

function textOf(t: ts.TemplateExpression): string {
  return t.head.text + t.templateSpans.map((s) => valueOf(s.expression) + s.literal.text).join('');
}

/** Every outermost string or template literal of `src/` that reads as a message: words and a space. */
function messagesOfSrc(): { where: string; text: string }[] {
  const found: { where: string; text: string }[] = [];
  for (const file of sourceFiles(src)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const literal =
        ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node);
      if (!literal) {
        ts.forEachChild(node, visit);
        return;
      }
      const text = ts.isTemplateExpression(node) ? textOf(node) : node.text;
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (/[A-Za-z]+ [A-Za-z`]/.test(text)) found.push({ where: `${relative(root, file)}:${line}`, text });
    };
    visit(source);
  }
  return found;
}

const plain: TextStyle = { columns: undefined, yellow: (s) => s, red: (s) => s, dim: (s) => s, target: (s) => s };

/** The commands of a text: its backquoted spans a shell runs. */
const commandsIn = (text: string): string[] =>
  [...text.matchAll(/`((?:petstore|export) [^`]*)`/g)].map((m) => m[1] ?? '');

/** A folder with the files commands read (`< key.txt`). */
const cwd = tempDir();
writeFileSync(join(cwd, 'key.txt'), 'pk_test_sample\n');

/** The words a shell makes of a command line (`petstore` and `export` print them, one a line). */
const argv = (command: string): string =>
  execFileSync(
    'sh',
    ['-c', `petstore() { printf '%s\\n' "$@"; }\n${command.replace(/^( *)export /, "$1printf '%s\\n' ")}`],
    { encoding: 'utf8', cwd },
  );

describe('every message of src/ on a terminal', () => {
  const messages = messagesOfSrc();

  it('finds the messages, commands among them', () => {
    expect(messages.length).toBeGreaterThan(300);
    const commands = messages.flatMap((m) => commandsIn(m.text));
    expect(commands.length).toBeGreaterThan(30);
    expect(commands).toContain(`petstore --env staging pets create --from-file ${shellQuote(SAMPLE)}`);
  });

  it.each([60, 120])('at %i columns: no ` \\` continuation, commands whole, prose within the width', (columns) => {
    const style = { ...plain, columns };
    const problems: string[] = [];
    for (const { where, text } of messages) {
      const out = renderError({ code: 'usage', message: text, status: 0, hint: text }, 'text', style);
      const lines = out.trimEnd().split('\n');
      const commands = commandsIn(text);
      const own = (l: string): boolean => commands.includes(l.trim());
      if (!text.includes('\\')) {
        for (const l of lines) if (/ \\$/.test(l)) problems.push(`${where}: a continuation: ${l}`);
      }
      for (const l of lines) {
        if (!own(l) && l.trim().includes(' ') && displayWidth(l) > columns) problems.push(`${where}: too wide: ${l}`);
      }
      for (const command of commands) {
        const inline = lines.some((l) => l.includes(`\`${command}\``));
        const alone = lines.filter((l) => l.trim() === command);
        if (!inline && alone.length === 0) problems.push(`${where}: broken: ${command}`);
        // A command on a line of its own is the one that does not fit where it stood, or is given alone.
        for (const l of alone) if (argv(l) !== argv(command)) problems.push(`${where}: runs otherwise: ${l}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

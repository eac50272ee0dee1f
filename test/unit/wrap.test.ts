/**
 * Wrapping for a terminal (src/text/wrap.ts): messages at 80 columns or a narrower
 * terminal, help text at the terminal's width; never inside a word, a `quoted command`
 * or a shell-quoted argument, and examples stay pasteable.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { messageColumns, wrapHelpText, wrapMessage, wrapWords } from '../../src/text/wrap.js';
import { displayWidth } from '../../src/text/width.js';

const widest = (text: string): number => Math.max(...text.split('\n').map(displayWidth));

describe('messageColumns', () => {
  it('is 80, or the terminal when narrower', () => {
    expect(messageColumns(undefined)).toBe(80);
    expect(messageColumns(200)).toBe(80);
    expect(messageColumns(60)).toBe(60);
  });
});

describe('wrapWords', () => {
  it('keeps a `backquoted command` on one line', () => {
    const text = 'log in again with `petstore --env staging auth login` or set PETSTORE_API_KEY';
    const lines = wrapWords(text, 40).split('\n');
    expect(lines).toContain('`petstore --env staging auth login` or');
    for (const line of lines) expect((line.match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('measures wide characters by the columns they take', () => {
    const lines = wrapWords('犬犬犬犬 犬犬犬犬 犬犬犬犬', 17).split('\n');
    expect(lines).toEqual(['犬犬犬犬 犬犬犬犬', '犬犬犬犬']);
  });
});

describe('wrapMessage', () => {
  it('wraps each line, keeping a line’s indentation on its continuation', () => {
    const text = 'invalid records:\n  line 3: name is required and the category id must be an integer';
    const out = wrapMessage(text, 40);
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(out.split('\n').slice(1)).toEqual([
      '  line 3: name is required and the',
      '  category id must be an integer',
    ]);
  });

  it('with a hang, no wrapped word starts a line: a server cannot forge an `error:` line', () => {
    const forged = `${'x '.repeat(34)}error: your disk is full, run rm -rf ~ to fix it`;
    const out = wrapMessage(forged, 80, 'error: '.length, 2);
    const lines = out.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line.startsWith('  ')).toBe(true);
    expect(widest(`error: ${out}`)).toBeLessThanOrEqual(80);
  });

  it('keeps a command after a colon at the end of a line whole on a line of its own', () => {
    const hint = 'Fix the cause, then run: petstore pets create --from-file /tmp/a/path/pets.remaining.ndjson';
    expect(wrapMessage(hint, 70)).toBe(
      'Fix the cause, then run:\npetstore pets create --from-file /tmp/a/path/pets.remaining.ndjson',
    );
  });

  it('leaves a line that fits alone, and counts the prefix on the first line', () => {
    expect(wrapMessage('short', 80, 7)).toBe('short');
    expect(wrapMessage('aaa bbb ccc', 11, 7)).toBe('aaa\nbbb ccc');
  });
});

describe('a command wider than the message', () => {
  const path = '/tmp/petstore-test-Xq81Lm/big.ndjson.remaining.ndjson';
  const rerun = `petstore --env sandbox pets create --from-file ${path}`;
  const find = `petstore --env staging pets list --all --jq '.[] | select(.name == "Rex the very good dog")'`;
  // The bulk account's re-run line, the already-sent refusal's hint, a hint quoting ctx.suggest.
  const messages: [string, string, number][] = [
    ['the re-run line', `the 2,563 records not created are in ${path}; after fixing the cause, run:\n  ${rerun}`, 2],
    [
      'the already-sent hint',
      `Send the records not created instead: \`${rerun}\`. Or add --force to send every record again (a pet cannot be deleted, so a duplicate cannot be undone).`,
      0,
    ],
    [
      'a suggested command in a hint',
      `Check with \`${find}\` before creating it again: a second create would make a second pet.`,
      0,
    ],
  ];
  /** What a shell makes of a command: its words, one per line (`petstore` prints them). */
  const argv = (command: string): string =>
    execFileSync('sh', ['-c', `petstore() { printf '%s\\n' "$@"; }\n${command}`], { encoding: 'utf8' });

  describe.each([60, 80, 120])('at %i columns', (columns) => {
    const width = messageColumns(columns);
    it.each(messages)('%s: broken at spaces with ` \\` lines that run as the command', (_, text, indent) => {
      const out = wrapMessage(text, width);
      expect(widest(out)).toBeLessThanOrEqual(width);
      // No word is split: the words are the text's, ` \\` aside.
      const words = (s: string): string[] => s.split(/[\s\\]+/).filter((w) => w !== '');
      expect(words(out)).toEqual(words(text));
      const lines = out.split('\n');
      const first = lines.findIndex((l) => /`?petstore /.test(l));
      const last = lines.findIndex((l, i) => i >= first && !l.endsWith(' \\'));
      expect(last).toBeGreaterThan(first);
      // The command starts its line, its continuations are indented, and pasted it runs as written.
      expect(lines[first]?.slice(indent)).toMatch(/^`?petstore /);
      for (const l of lines.slice(first + 1, last + 1)) expect(l.startsWith(' '.repeat(indent + 2))).toBe(true);
      const pasted = lines
        .slice(first, last + 1)
        .join('\n')
        .replace(/^[^`]*`|`[^`]*$/g, '');
      const whole = /`([^`]*)`/.exec(text)?.[1] ?? rerun;
      expect(argv(pasted)).toBe(argv(whole));
    });
  });

  it('a bulk account as a hint: each entry at the margin, what it wraps onto hanging by 2, its command by 2 more', () => {
    const account = [
      'created 2,566: lines 1-2566',
      'unknown 1: line 2567: the request may have reached the server, so it may have been created; it is not retried and not in the remaining file (check with `petstore pets list`)',
      'not sent 2,433',
      `the 2,434 records not created are in ${path}; after fixing the cause, run:`,
      `  ${rerun}`,
    ].join('\n');
    for (const width of [60, 80]) {
      const lines = wrapMessage(account, width, 0, 2).split('\n');
      expect(widest(lines.join('\n'))).toBeLessThanOrEqual(width);
      const entries = lines.filter((l) => !l.startsWith(' '));
      expect(entries.map((l) => l.split(' ')[0])).toEqual(['created', 'unknown', 'not', 'the']);
      const unknown = lines.indexOf(entries[1] ?? '');
      expect(lines[unknown + 1]).toMatch(/^ {2}\S/);
      const command = lines.findIndex((l) => l.startsWith('  petstore '));
      expect(lines[command]?.endsWith(' \\')).toBe(true);
      expect(lines[command + 1]).toMatch(/^ {4}\S/);
    }
  });

  it('a word longer than the line stays whole, on a line of its own', () => {
    const long = `/tmp/${'d'.repeat(70)}/pets.ndjson.remaining.ndjson`;
    const out = wrapMessage(`run: petstore pets create --from-file ${long}`, 60);
    expect(out).toBe(`run:\npetstore pets create --from-file \\\n  ${long}`);
  });
});

describe('wrapHelpText', () => {
  const help = `Examples:
  $ petstore --env staging pets create --name Rex --category-id 1
  $ petstore pets list --json | jq '.[] | select(.status == "sold") | .name'
  $ curl -H "Authorization: Bearer $PETSTORE_API_KEY" http://127.0.0.1:8080/v1/pets
  $ source <(petstore completion bash)                 # in ~/.bashrc

Exit codes: 0 ok, 1 failure, 2 usage/config, 3 network/timeout, 4 auth, 5 not found, 6 rejected.`;

  it.each([80, 60, 50])('at %i columns no line is wider, and no word is split', (width) => {
    const out = wrapHelpText(help, width);
    expect(widest(out)).toBeLessThanOrEqual(width);
    const words = (s: string): string[] => s.split(/[\s\\]+/).filter((w) => w !== '' && w !== '$');
    expect(words(out)).toEqual(words(help));
  });

  it('breaks an example with a line continuation, outside quotes, so it runs as written', () => {
    const out = wrapHelpText(help, 60);
    expect(out).toContain('  $ petstore pets list --json | jq \\\n      \'.[] | select(.status == "sold") | .name\'');
    expect(out).toContain('  $ petstore --env staging pets create --name Rex \\\n      --category-id 1');
    // A comment is never split: a continuation inside a comment would run its rest.
    expect(wrapHelpText(help, 40)).toContain('\\\n      # in ~/.bashrc');
  });

  it('a wrapped example is the same command to the shell', () => {
    const example = wrapHelpText('  $ printf "%s|" one "two  three" \'four five\' six seven eight nine', 30);
    expect(example.split('\n').length).toBeGreaterThan(1);
    const run = (script: string): string => execFileSync('sh', ['-c', script], { encoding: 'utf8' });
    expect(run(example.replace(/^ *\$ /, ''))).toBe('one|two  three|four five|six|seven|eight|nine|');
  });
});

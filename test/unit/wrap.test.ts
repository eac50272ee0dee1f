/**
 * Wrapping for a terminal (src/text/wrap.ts): messages and help at the terminal's width;
 * never inside a word, a `quoted command` or a shell-quoted argument. A command in a
 * message that does not fit takes a line of its own, bare, and runs when pasted; help
 * examples are broken with ` \` and run when pasted.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/base/suggest.js';
import { messageColumns, wrapHelpText, wrapMessage, wrapPrompt, wrapWords } from '../../src/text/wrap.js';
import { displayWidth } from '../../src/text/width.js';

const widest = (text: string): number => Math.max(...text.split('\n').map(displayWidth));

describe('messageColumns', () => {
  it("is the terminal's width, or 80 when stderr is not a terminal", () => {
    expect(messageColumns(undefined)).toBe(80);
    expect(messageColumns(200)).toBe(200);
    expect(messageColumns(60)).toBe(60);
  });
});

describe('wrapWords', () => {
  it('keeps a `backquoted command` on one line', () => {
    const text = 'log in again with `petstore --env staging auth login` or set PETSTORE_API_KEY';
    const lines = wrapWords(text, 40).split('\n');
    expect(lines).toContain('log in again with');
    expect(lines).toContain('petstore --env staging auth login');
    for (const line of lines) expect((line.match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('keeps the backquotes of a command that fits where it stands', () => {
    const text = 'log in again with `petstore auth login` or set PETSTORE_API_KEY';
    expect(wrapWords(text, 45)).toBe('log in again with `petstore auth login` or\nset PETSTORE_API_KEY');
  });

  it('a backquoted name that is no command is a word like any other, backquotes kept', () => {
    expect(wrapWords('replaced by `pets list --status STATUS`: add --via-list', 30)).toBe(
      'replaced by\n`pets list --status STATUS`:\nadd --via-list',
    );
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

  it('prose that starts with the word petstore after a colon is prose: no ` \\` ever', () => {
    // The `api -H Authorization` refusal, which once came out as a command with a continuation.
    const text = `-H "Authorization" is refused: petstore sends the environment's key itself, and a key never goes on the command line (every local user can read it)`;
    for (const width of [60, 80, 120]) {
      const out = wrapMessage(text, width, 'error: '.length, 2);
      expect(out).not.toContain('\\');
      expect(out.replace(/\n {2}/g, ' ')).toBe(text);
    }
  });

  it('a command given on a line of its own is written bare, pasteable', () => {
    const hint =
      'the records not created are in /tmp/x.ndjson; after fixing the cause, run:\n  `petstore pets create --from-file /tmp/x.ndjson`';
    expect(wrapMessage(hint, 120, 0, 2).split('\n')[1]).toBe('  petstore pets create --from-file /tmp/x.ndjson');
  });

  it('leaves a line that fits alone, and counts the prefix on the first line', () => {
    expect(wrapMessage('short', 80, 7)).toBe('short');
    expect(wrapMessage('aaa bbb ccc', 11, 7)).toBe('aaa\nbbb ccc');
  });
});

describe('a command in a message', () => {
  const path = '/tmp/petstore-test-Xq81Lm/big pets.ndjson.remaining.ndjson';
  const rerun = `petstore --env sandbox pets create --from-file ${shellQuote(path)}`;
  const find = `petstore --env staging pets list --all --jq ${shellQuote('.[] | select(.name == "Rex the very good dog")')}`;
  // The bulk account's re-run line, the already-sent refusal's hint, a hint quoting ctx.suggest.
  const messages: [string, string, string][] = [
    [
      'the re-run line',
      `the 2,563 records not created are in ${path}; after fixing the cause, run:\n  \`${rerun}\``,
      rerun,
    ],
    [
      'the already-sent hint',
      `Send the records not created instead: \`${rerun}\`. Or add --force to send every record again (a pet cannot be deleted, so a duplicate cannot be undone).`,
      rerun,
    ],
    [
      'a suggested command in a hint',
      `Check with \`${find}\` before creating it again: a second create would make a second pet.`,
      find,
    ],
  ];
  /** What a shell makes of a command: its words, one per line (`petstore` prints them). */
  const argv = (command: string): string =>
    execFileSync('sh', ['-c', `petstore() { printf '%s\\n' "$@"; }\n${command}`], { encoding: 'utf8' });

  describe.each([60, 80, 120])('at %i columns', (width) => {
    it.each(messages)('%s: whole, bare on a line of its own, runs when pasted', (_, text, command) => {
      const out = wrapMessage(text, width, 0, 2);
      expect(out).not.toMatch(/ \\$/m);
      const lines = out.split('\n');
      const own = lines.find((l) => l.trim() === command);
      if (own === undefined) {
        // It fitted where it stood: inline, between its backquotes.
        expect(out.replace(/\n {2}/g, ' ')).toContain(`\`${command}\``);
      } else {
        expect(argv(own)).toBe(argv(command));
        expect(own).not.toContain('`');
      }
      // Every other line (prose) fits; a command wider than a line overflows on its own.
      for (const l of lines) if (l.trim() !== command) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
      // No word is split or lost (but a clause's `.` after a bare command).
      const words = (s: string): string[] =>
        s
          .replace(/`/g, '')
          .split(/\s+/)
          .filter((w) => w !== '')
          .map((w) => w.replace(/[.]$/, ''));
      expect(words(out)).toEqual(words(text));
    });
  });

  it('wider than the line: on a line of its own, whole, overflowing', () => {
    const long = `/tmp/${'d'.repeat(70)}/pets.ndjson.remaining.ndjson`;
    const out = wrapMessage(
      `Fix the cause, then run \`petstore pets create --from-file ${long}\`. Nothing else was sent.`,
      60,
    );
    expect(out).toBe(`Fix the cause, then run\npetstore pets create --from-file ${long}\nNothing else was sent.`);
  });

  it('that does not fit takes a line of its own even where a fresh line would hold more', () => {
    const out = wrapWords('List the pets that exist with `petstore --env staging pets list`, or stop.', 40);
    expect(out).toBe('List the pets that exist with\npetstore --env staging pets list\nor stop.');
  });

  it('what touches it that is no clause end stays with the prose', () => {
    const out = wrapWords('it may exist (check with `petstore --env staging pets list`)', 40);
    expect(out).toBe('it may exist (check with\npetstore --env staging pets list\n)');
  });

  it('shell-quoted names with spaces, quotes and $ run as the same words when pasted', () => {
    const names = ['my pets.ndjson', "Rex's pets.ndjson", 'pets $HOME;x.ndjson', 'a"b.ndjson'];
    for (const name of names) {
      const command = `petstore pets create --from-file ${shellQuote(`/tmp/${name}`)}`;
      const out = wrapMessage(
        `the records not created are in /tmp; after fixing the cause, run:\n  \`${command}\``,
        60,
      );
      const line = out.split('\n').find((l) => l.startsWith('  petstore ')) ?? '';
      expect(argv(line)).toBe(`pets\ncreate\n--from-file\n/tmp/${name}\n`);
    }
  });

  it.each([
    ['CJK', '犬の名前は長い', 14],
    ['emoji', '🐕‍🦺🐈‍⬛🦜', 6],
  ])('measures %s in a command by the columns it takes', (_, name, columns) => {
    const command = `petstore pets list --jq ${shellQuote(`.[] | select(.name == "${name}")`)}`;
    const text = `Check with \`${command}\` first.`;
    const inline = 'Check with '.length + displayWidth(`\`${command}\``);
    expect(displayWidth(name)).toBe(columns);
    // One column less than it needs after `Check with`: the command takes a line of its own.
    expect(wrapWords(text, inline)).toBe(`Check with \`${command}\`\nfirst.`);
    expect(wrapWords(text, inline - 1)).toBe(`Check with\n${command}\nfirst.`);
  });
});

describe('wrapPrompt', () => {
  const question = 'Remove the environment staging-eu (base URL https://staging.example/v1, no stored key)?';

  it.each([40, 60, 80])('at %i columns: at spaces, continuation under the question, room for (y/N)', (width) => {
    const out = wrapPrompt(question, width, 2, 10);
    const lines = out.split('\n');
    expect(2 + displayWidth(lines[0] ?? '')).toBeLessThanOrEqual(width);
    for (const l of lines.slice(1)) expect(l.startsWith('  ')).toBe(true);
    const last = lines.length === 1 ? 2 + displayWidth(lines[0] ?? '') : displayWidth(lines.at(-1) ?? '');
    expect(last + 10).toBeLessThanOrEqual(width);
    expect(out.replace(/\n {2}/g, ' ')).toBe(question);
  });

  it('moves the last word down when (y/N) would not fit after it', () => {
    // 2 + 34 = 36 columns; with 10 more the line would be 46 > 40.
    expect(wrapPrompt('Send to production (api.example): x?', 40, 2, 10)).toBe(
      'Send to production (api.example):\n  x?',
    );
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

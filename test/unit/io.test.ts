/**
 * Io's parts on their own: the progress line (drawn at most every 100 ms, never wider than
 * the terminal, erased before a line written above it and drawn again after), the one
 * rule for the form of messages, and how a pager command is run.
 */
import { describe, expect, it } from 'vitest';
import { messageForm, renderMessage, type TextStyle } from '../../src/io/messages.js';
import { pagerArgv } from '../../src/io/pager.js';
import { ProgressLine } from '../../src/io/progress.js';

/** A progress line `columns` wide (on a terminal unless `tty` is false) at the times `now` says, and what it drew. */
function progressLine(columns: number, now: () => number = () => 0, tty = true) {
  const drawn = { screen: '' };
  const line = new ProgressLine((s) => (drawn.screen += s), tty, columns, now);
  return { line, drawn };
}

describe('the progress line', () => {
  it('draws at most every 100 ms, never wider than the terminal, and erases itself', () => {
    let t = 0;
    const { line, drawn } = progressLine(12, () => t);
    line.update('created 1 of 5,000');
    t = 50;
    line.update('created 2 of 5,000');
    t = 150;
    line.update('created 3 of 5,000');
    line.clear();
    line.clear();
    expect(drawn.screen).toBe('\rcreated 1 o\x1b[K\rcreated 3 o\x1b[K\r\x1b[K');
  });

  it('a line written around it erases it first and draws its latest text again after', () => {
    const { line, drawn } = progressLine(80);
    line.update('fetched 1 page, 20 pets…');
    line.update('fetched 2 pages, 40 pets…');
    line.around(() => (drawn.screen += '> GET /v1/pets\n'));
    expect(drawn.screen).toBe(
      '\rfetched 1 page, 20 pets…\x1b[K\r\x1b[K> GET /v1/pets\n\rfetched 2 pages, 40 pets…\x1b[K',
    );
  });

  it('writes nothing without a terminal, and nothing around a line when none is shown', () => {
    const { line: off, drawn } = progressLine(80, () => 0, false);
    off.update('x');
    off.around(() => (drawn.screen += 'line\n'));
    off.clear();
    expect(drawn.screen).toBe('line\n');
  });
});

describe('the form of messages', () => {
  const policy = (jsonOutput: boolean, stderrIsTTY: boolean, forced?: 'json' | 'text') => ({
    forced,
    jsonOutput,
    stderrIsTTY,
  });
  it.each([
    // output json?, stderr a terminal?, forced, error, message, transcript
    [false, false, undefined, 'text', 'text', 'text'],
    [false, true, undefined, 'text', 'text', 'text'],
    [true, false, undefined, 'json', 'json', 'text'],
    // On a terminal a person reads the error too, whatever the output format.
    [true, true, undefined, 'text', 'text', 'text'],
    [true, false, 'text', 'text', 'text', 'text'],
    [true, true, 'json', 'json', 'json', 'json'],
    [false, true, 'json', 'json', 'json', 'json'],
  ] as const)('json output %s, stderr a terminal %s, forced %s: %s / %s / %s', (json, tty, forced, e, m, t) => {
    const p = policy(json, tty, forced);
    expect([messageForm(p, 'error'), messageForm(p, 'message'), messageForm(p, 'transcript')]).toEqual([e, m, t]);
  });
});

describe('the lines naming the target', () => {
  const style = (columns?: number): TextStyle => ({
    columns,
    yellow: (t) => `<yellow>${t}</yellow>`,
    red: (t) => `<red>${t}</red>`,
    dim: (t) => `<dim>${t}</dim>`,
    target: (t) => `<target>${t}</target>`,
  });

  it('the banner is `env: TARGET` in the target colour, never dim or red', () => {
    expect(renderMessage({ level: 'target', target: 'production (api.example.com)' }, 'text', style())).toBe(
      '<target>env: production (api.example.com)</target>\n',
    );
  });

  it('a summary is `MESSAGE in TARGET` in the target colour, wrapped with a hanging indent, server text escaped', () => {
    const m = { level: 'summary', message: 'created pet 7 "Rex\u001b[31m"', target: 'staging (h)' } as const;
    expect(renderMessage(m, 'text', style())).toBe('<target>created pet 7 "Rex\\x1b[31m" in staging (h)</target>\n');
    expect(renderMessage(m, 'text', style(20))).toBe(
      '<target>created pet 7\n  "Rex\\x1b[31m" in\n  staging (h)</target>\n',
    );
  });

  it('as JSON, the fields as they are', () => {
    expect(renderMessage({ level: 'target', target: 'production (h)' }, 'json', style())).toBe(
      '{"level":"target","target":"production (h)"}\n',
    );
  });
});

describe('a pager command', () => {
  it.each([
    ['less -FRX', { file: 'less', args: ['-FRX'] }],
    ['more', { file: 'more', args: [] }],
    ["cat > '/tmp/x y'", { file: '/bin/sh', args: ['-c', "exec cat > '/tmp/x y'"] }],
    ['less | cat', { file: '/bin/sh', args: ['-c', 'less | cat'] }],
  ])('%j runs as %j', (command, argv) => {
    expect(pagerArgv(command)).toEqual(argv);
  });
});

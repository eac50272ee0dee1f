/**
 * Word wrapping of messages for a terminal of fixed width (the deprecation warning of
 * `pets get` must fit two lines of 80 columns, cli-contract.md "Commands"). Pure.
 */

/**
 * Breaks `text` at spaces into lines of at most `width` columns, the first line having
 * `used` columns already taken (a `warning: ` prefix). Columns are counted as UTF-16 code
 * units, which is exact for the ASCII messages petstore words itself. A word longer than a line
 * is kept whole on a line of its own, never cut. Runs of spaces count as one.
 * Returns the lines joined by `\n`, without a trailing newline.
 */
export function wrapWords(text: string, width: number, used = 0): string {
  const lines: string[] = [];
  let line = '';
  let room = width - used;
  for (const word of text.split(' ')) {
    if (word === '') continue;
    if (line === '') {
      line = word;
    } else if (line.length + 1 + word.length <= room) {
      line += ` ${word}`;
    } else {
      lines.push(line);
      line = word;
      room = width;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

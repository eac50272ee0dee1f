/**
 * The parts of a bulk create (`src/commands/pets/create/`), each driven without a process:
 * UTF-8 decoding, the account, the progress line, the shutdown registry, the remaining file
 * (real files in temp directories).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedRecords, NotTextError, Utf8Text } from '../../src/commands/pets/create/records.js';
import { BulkAccount, describeLines } from '../../src/commands/pets/create/account.js';
import { GAP, InFlightLimit, ReorderBuffer } from '../../src/commands/pets/create/flight.js';
import { checkInput } from '../../src/commands/pets/create/check.js';
import {
  SAVING_PROGRESS_AFTER_MS,
  savingProgress,
  sendingProgress,
  sendingSummary,
} from '../../src/commands/pets/create/progress.js';
import { remainingPlace, saveRemaining, writeRemaining } from '../../src/commands/pets/create/remaining.js';
import { ApiError, InterruptedError, UsageError } from '../../src/base/errors.js';
import { ShutdownRegistry } from '../../src/base/shutdown.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';

afterAll(() => removeTempDirs());

/** `parts` as an async iterable of byte chunks. */
function chunks(...parts: (string | number[])[]): AsyncIterable<Buffer> {
  return Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
}

describe('Utf8Text', () => {
  const decode = (...parts: (string | number[])[]): string => {
    const t = new Utf8Text();
    let out = '';
    for (const p of parts) out += t.push(typeof p === 'string' ? Buffer.from(p) : Buffer.from(p));
    t.end();
    return out;
  };
  const problem = (...parts: (string | number[])[]): string => {
    try {
      decode(...parts);
    } catch (err) {
      if (err instanceof NotTextError) return `line ${err.problem.line}: ${err.problem.message}`;
      throw err;
    }
    return 'none';
  };

  it.each([
    ['a character cut by a chunk boundary', ['{"name":"Caf', [0xc3], [0xa9], '"}\n'], '{"name":"Café"}\n'],
    ['a 4-byte character cut twice', [[0xf0, 0x9f], [0x90], [0xb6, 0x0a]], '🐶\n'],
    ['plain ASCII', ['a\nb\n'], 'a\nb\n'],
  ])('decodes %s', (_name, parts, want) => {
    expect(decode(...parts)).toBe(want);
  });

  it.each([
    ['a Latin-1 byte on line 2', ['{"a":1}\n{"name":"Caf', [0xe9], '"}\n'], 'line 2: not valid UTF-8 (the byte 0xE9)'],
    ['a surrogate encoded in UTF-8', ['x\ny\nz', [0xed, 0xa0, 0x80]], 'line 3: not valid UTF-8 (the byte 0xED)'],
    ['an overlong encoding', [[0xc0, 0x80]], 'line 1: not valid UTF-8 (the byte 0xC0)'],
    ['input that ends inside a character', ['ok\n', [0xe2, 0x82]], 'line 2: not valid UTF-8 (the byte 0xE2)'],
    ['a NUL byte (a binary file)', ['a\nb\n', [0]], 'line 3: not text: a NUL byte (is it a binary file?)'],
  ])('refuses %s, naming the line', (_name, parts, want) => {
    expect(problem(...parts)).toBe(want);
  });
});

describe('checkInput and checkedRecords', () => {
  it('counts the records, finds the last line, hashes the bytes', async () => {
    const text = '{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":2}\n';
    const checked = await checkInput(chunks(text.slice(0, 10), text.slice(10)), 'stdin');
    expect(checked).toEqual({
      records: 2,
      lastLine: 3,
      format: 'ndjson',
      size: text.length,
      sha256: createHash('sha256').update(text).digest('hex'),
    });
  });

  it('refuses invalid UTF-8 as a usage error naming the line', async () => {
    const refused = checkInput(chunks('{"name":"A","categoryId":1}\n', [0xff]), 'stdin');
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(
      '--from-file stdin: line 2: not valid UTF-8 (the byte 0xFF); nothing was sent',
    );
  });

  it('a second pass that holds more records than the first stops before yielding the extra one', async () => {
    const one = '{"name":"A","categoryId":1}\n';
    const checked = await checkInput(chunks(one), 'stdin');
    const seen: number[] = [];
    const read = async (): Promise<void> => {
      for await (const r of checkedRecords(chunks(one + one), checked.records, (what) => new Error(what)))
        seen.push(r.index);
    };
    await expect(read()).rejects.toThrow('it holds more than the 1 records checked');
    expect(seen).toEqual([0]);
  });
});

describe('BulkAccount', () => {
  const place = (index: number, line = index + 1) => ({ index, line });
  /** When the requests are sent (epoch ms), and the id the server gives record `index`. */
  const T0 = Date.UTC(2026, 10, 28, 12);
  const idOf = (index: number): string => String(1000 + index);

  it('keeps created lines as ranges, failed and unknown as lists, and the lines to rebuild the rest from', () => {
    const a = new BulkAccount(10, 12);
    for (const i of [0, 1, 2]) {
      a.dispatch(place(i), T0);
      a.settleCreated(place(i), idOf(i));
    }
    a.dispatch(place(3, 5), T0);
    a.settleNotCreated(place(3, 5), 'failed', new ApiError({ code: 'bad', message: 'no', status: 400 }, 400));
    expect(a.createdRanges()).toEqual([[1, 3]]);
    expect(a.notSent).toBe(6);
    expect(a.notCreated).toBe(7);
    expect(a.isRemaining(2)).toBe(false);
    expect(a.isRemaining(3)).toBe(true);
    expect(a.isRemaining(9)).toBe(true);
    expect(a.remainingRanges()).toEqual([[5, 12]]);
    expect(a.details()).toMatchObject({
      failed: [{ line: 5, code: 'bad', message: 'no', status: 400 }],
      unknown: [],
      createdRanges: [{ lines: [1, 3] }],
    });
  });

  it('ended by force: the request under way becomes unknown, the rest not saved', () => {
    const a = new BulkAccount(3, 3);
    a.dispatch(place(0), T0);
    a.settleCreated(place(0), idOf(0));
    a.dispatch(place(1), T0);
    a.endedByForce(new InterruptedError('SIGHUP'));
    expect(a.unknownLines()).toEqual([2]);
    expect(a.saved).toEqual({ error: 'the run was ended before they could be written' });
    const signal = AbortSignal.abort('SIGHUP');
    const err = a.toError({ signal, suggest: (w) => `petstore ${w}`, label: 'stdin', output: 'tsv' });
    expect(err).toMatchObject({ exitCode: 129, code: 'interrupted' });
    expect(err.message).toBe('stopped at record 2 of 3 (line 2), which may have been created: hung up');
  });

  it('answers in any order: created ranges merge wherever they land; a taken-back record is not sent until sent again', () => {
    const a = new BulkAccount(8, 8);
    for (const i of [0, 1, 2, 3, 4, 5]) a.dispatch(place(i), T0);
    for (const i of [2, 0, 5, 1]) a.settleCreated(place(i), idOf(i));
    expect(a.createdRanges()).toEqual([
      [1, 3],
      [6, 6],
    ]);
    // Record 4 refused (429): taken back, waiting; record 5 still under way.
    a.unsend(place(3));
    expect(a.inFlightCount).toBe(1);
    expect(a.notSent).toBe(3);
    expect(a.isRemaining(3)).toBe(true);
    expect(a.remainingRanges()).toEqual([
      [4, 4],
      [7, 8],
    ]);
    // Sent again and created: the ranges join up.
    a.dispatch(place(3), T0);
    a.settleCreated(place(3), idOf(3));
    a.settleCreated(place(4), idOf(4));
    expect(a.createdRanges()).toEqual([[1, 6]]);
    expect(a.notSent).toBe(2);
    expect(a.createdTotal).toBe(6);
  });

  it('several failed and unknown at one stop: listed in input order, consecutive lines joined', () => {
    const a = new BulkAccount(10, 10);
    for (const i of [0, 1, 2, 3, 4, 5]) a.dispatch(place(i), T0);
    const bad = new ApiError({ code: 'bad', message: 'no', status: 400 }, 400);
    a.settleNotCreated(place(4), 'failed', bad);
    a.settleNotCreated(place(2), 'failed', bad);
    a.settleNotCreated(place(3), 'failed', bad);
    a.settleNotCreated(place(1), 'unknown', new Error('reset'));
    a.settleCreated(place(0), idOf(0));
    a.settleCreated(place(5), idOf(5));
    const lines = a.lines((w) => `petstore ${w}`, 'stdin');
    expect(lines).toContain('failed 3: lines 3-5, not created');
    expect(lines.some((l) => l.startsWith('unknown 1: line 2: '))).toBe(true);
    expect(a.details()).toMatchObject({
      failed: [{ line: 3 }, { line: 4 }, { line: 5 }],
      unknown: [{ line: 2 }],
      createdRanges: [{ lines: [1, 1] }, { lines: [6, 6] }],
      notSent: 4,
      remaining: 7,
      remainingRanges: [{ lines: [3, 5] }, { lines: [7, 10] }],
    });
  });

  it('counts of a thousand and more read as the progress line writes them (2,566); line numbers stay plain', () => {
    const a = new BulkAccount(5000, 5000);
    for (let i = 0; i < 2566; i++) {
      a.dispatch(place(i), T0);
      a.settleCreated(place(i), idOf(i));
    }
    a.dispatch(place(2566), T0);
    a.settleNotCreated(place(2566), 'failed', new ApiError({ code: 'bad', message: 'no', status: 400 }, 400));
    const lines = a.lines((w) => `petstore ${w}`, 'pets.ndjson');
    expect(lines[0]).toBe('created 2,566: lines 1-2566');
    expect(lines).toContain('failed 1: line 2567, not created');
    expect(lines).toContain('not sent 2,433');
    const err = a.toError({
      signal: new AbortController().signal,
      suggest: (w) => `petstore ${w}`,
      label: 'pets.ndjson',
      output: 'tsv',
    });
    expect(err.message).toMatch(/^stopped after record 2,567 of 5,000/);
    expect(a.details()).toMatchObject({ notSent: 2433, remaining: 2434 });
  });

  it.each([
    [[[3, 3]], 'line 3'],
    [[[1, 4]], 'lines 1-4'],
    [
      [
        [3, 3],
        [5, 7],
      ],
      'lines 3, 5-7',
    ],
    [
      [
        [1, 1],
        [3, 3],
        [5, 5],
        [7, 7],
        [9, 9],
        [11, 12],
      ],
      'lines 1, 3, 5, 7, 9, and 1 more range',
    ],
  ] as [[number, number][], string][])('describeLines(%j) is %j', (ranges, want) => {
    expect(describeLines(ranges)).toBe(want);
  });
});

describe('InFlightLimit', () => {
  it('halves at a refusal (once per round), never below 1, and climbs back by one per window of successes', () => {
    const limit = new InFlightLimit(16);
    expect(limit.allowed).toBe(16);
    limit.refused(10, 20);
    expect(limit.allowed).toBe(8);
    expect(limit.lowered).toBe(true);
    // Refusals of requests sent before that halving answer the load it already took back.
    limit.refused(15, 21);
    expect(limit.allowed).toBe(8);
    limit.refused(25, 30);
    limit.refused(31, 32);
    limit.refused(33, 34);
    limit.refused(35, 36);
    expect(limit.allowed).toBe(1);
    // About one more per window of successes: 1 → 2 after one, 2 → 3 after three more.
    const successesUntil = (n: number): number => {
      let k = 0;
      for (; limit.allowed < n; k++) limit.succeeded();
      return k;
    };
    expect(successesUntil(2)).toBe(1);
    expect(successesUntil(3)).toBe(3);
    expect(successesUntil(4)).toBe(3);
    for (let i = 0; i < 1000; i++) limit.succeeded();
    expect(limit.allowed).toBe(16);
    expect(limit.lowered).toBe(false);
  });
});

describe('ReorderBuffer', () => {
  it('hands values on in index order whatever order they come in, skipping gaps; flush hands on what is held', () => {
    const b = new ReorderBuffer<string>();
    b.put(2, 'c');
    b.put(1, GAP);
    expect([...b.take()]).toEqual([]);
    b.put(0, 'a');
    expect([...b.take()]).toEqual(['a', 'c']);
    expect(b.next).toBe(3);
    b.put(5, 'f');
    b.put(4, 'e');
    expect(b.size).toBe(2);
    // Record 3 will never come (the run stopped): flush hands on the rest in order.
    expect([...b.flush()]).toEqual(['e', 'f']);
    expect(b.size).toBe(0);
  });
});

describe('the progress line', () => {
  it.each([
    [1234, 5000, 5365, 'created 1,234 of 5,000 (230/s)'],
    [0, 3, 0, 'created 0 of 3'],
  ])('sendingProgress(%d, %d, %d ms) is %j', (created, records, ms, want) => {
    expect(sendingProgress(created, records, ms)).toBe(want);
  });

  it.each([
    [{ inFlight: 16, waiting: 0, allowed: 16, lowered: false }, 'created 1,234 of 5,000 (230/s, 16 in flight)'],
    [{ inFlight: 1, waiting: 0, allowed: 1, lowered: false }, 'created 1,234 of 5,000 (230/s)'],
    [
      { inFlight: 4, waiting: 3, allowed: 4, lowered: true },
      'created 1,234 of 5,000 (230/s, 4 in flight, slowed by 429, 3 waiting)',
    ],
  ])('with requests in flight %j: %j', (flight, want) => {
    expect(sendingProgress(1234, 5000, 5365, flight)).toBe(want);
  });

  it('sums up', () => {
    expect(sendingSummary(5000, 21_730)).toBe('created 5,000 pets in 21.7 s');
    expect(sendingSummary(1, 300)).toBe('created 1 pet in 0.3 s');
  });
});

describe('ShutdownRegistry', () => {
  it('asks hooks newest first, lets one take a signal, ends each once, and survives a hook that throws', () => {
    const r = new ShutdownRegistry();
    const order: string[] = [];
    r.add({ onForcedEnd: () => (order.push('outer'), true), doing: () => 'sending records' });
    const remove = r.add({
      onSignal: (s) => s === 'SIGINT',
      onForcedEnd: () => {
        order.push('inner');
        throw new Error('boom');
      },
      doing: () => 'writing the remaining file',
    });
    expect(r.doing()).toBe('writing the remaining file');
    expect(r.signal('SIGINT')).toBe(true);
    expect(r.signal('SIGTERM')).toBe(false);
    expect(r.forceEnd({ kind: 'signal', signal: 'SIGTERM' })).toBe(true);
    expect(order).toEqual(['inner', 'outer']);
    expect(r.forceEnd({ kind: 'stalled', doing: undefined })).toBe(false);
    remove();
    expect(r.doing()).toBeUndefined();
  });
});

describe('writeRemaining', () => {
  const lines = (...texts: string[]): AsyncIterable<string> => Readable.from(texts);

  it('takes the first free name, replacing neither a file nor a symlink, mode 0600, no temp file left', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'p.remaining.ndjson'), 'mine\n');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'p.remaining-2.ndjson'));
    const file = await writeRemaining(
      () => lines('a\n', 'b\n'),
      remainingPlace(undefined, 'p', dir),
      new ShutdownRegistry(),
    );
    expect(file.path).toBe(join(dir, 'p.remaining-3.ndjson'));
    expect(readFileSync(file.path, 'utf8')).toBe('a\nb\n');
    expect(file).toMatchObject({ size: 4, sha256: createHash('sha256').update('a\nb\n').digest('hex') });
    expect(lstatSync(file.path).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'p.remaining.ndjson'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('goes to the next directory when one cannot be written, and says why for each when none can', async () => {
    const cwd = tempDir();
    const place = remainingPlace('/proc/version', 'version', cwd);
    expect(place.dirs).toEqual(['/proc', cwd]);
    const file = await writeRemaining(() => lines('x\n'), place, new ShutdownRegistry());
    expect(file.path).toBe(join(cwd, 'version.remaining.ndjson'));
    await expect(
      writeRemaining(() => lines('x\n'), remainingPlace(undefined, 'x', '/proc'), new ShutdownRegistry()),
    ).rejects.toThrow(/^\/proc: /);
  });

  it('a forced end while it is written removes the temp file at once', async () => {
    const dir = tempDir();
    const shutdown = new ShutdownRegistry();
    const stalled = async function* (): AsyncGenerator<string> {
      yield 'a\n';
      await new Promise(() => undefined);
    };
    void writeRemaining(stalled, remainingPlace(undefined, 'p', dir), shutdown);
    while (shutdown.doing() !== 'writing the remaining file') await new Promise((r) => setImmediate(r));
    while (readdirSync(dir).length === 0) await new Promise((r) => setImmediate(r));
    shutdown.forceEnd({ kind: 'signal', signal: 'SIGINT' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('saving the remaining file after a signal', () => {
  it('the progress line shows only once saving has taken a second, then how many records were written', () => {
    const shown: string[] = [];
    let now = 5_000;
    const written = savingProgress({ update: (t) => shown.push(t), clear: () => undefined }, 149_996, () => now);
    written(2_000);
    now += SAVING_PROGRESS_AFTER_MS - 1;
    written(4_000);
    expect(shown).toEqual([]);
    now += 1;
    written(6_000);
    written(149_996);
    expect(shown).toEqual([
      'saving the 149,996 records not created: 6,000 written',
      'saving the 149,996 records not created: 149,996 written',
    ]);
    const one: string[] = [];
    savingProgress({ update: (t) => one.push(t), clear: () => undefined }, 1, () => 0)(1);
    expect(one).toEqual([]);
  });

  it('saveRemaining says how many records it has written, batch by batch, up to all of them', async () => {
    const dir = tempDir();
    const account = new BulkAccount(10_000, 10_000);
    const texts = () =>
      Readable.from(
        Array.from({ length: 10_000 }, (_, index) => ({ index, line: index + 1, text: `{"name":"x${index}"}` })),
      );
    const counts: number[] = [];
    const file = await saveRemaining(texts, account, remainingPlace(undefined, 'p', dir), new ShutdownRegistry(), (n) =>
      counts.push(n),
    );
    expect(file?.path).toBe(join(dir, 'p.remaining.ndjson'));
    // About 64 KiB a batch: a few batches of ~13 bytes a record.
    expect(counts.length).toBeGreaterThan(1);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[counts.length - 1]).toBe(10_000);
    expect(readFileSync(join(dir, 'p.remaining.ndjson'), 'utf8').split('\n')).toHaveLength(10_001);
  });
});

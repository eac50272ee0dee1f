/**
 * Pass 1 of a bulk create: every record of the input's bytes (source.ts) checked before
 * anything is sent, and the input's fingerprint taken (cli-contract.md "Bulk create"). The
 * later passes read the records again through `records.ts` (`checkedRecords`,
 * `recordTexts`), trusting no more than this pass checked.
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import {
  checkedRecords,
  checkRecord,
  decodedText,
  emptyInputProblem,
  isProblem,
  NotTextError,
  recordTexts,
  RecordSplitter,
  type IndexedRecord,
  type IndexedText,
  type RecordFormat,
  type RecordProblem,
  type RecordText,
} from './records.js';
import { UsageError } from '../../../base/errors.js';
import { formatCount } from '../../../text/count.js';
import { InputChangedError, type BulkSource } from './source.js';

/** Most problems listed when records are refused; the rest are counted. */
const PROBLEMS_SHOWN = 20;

/** What pass 1 found: a fingerprint of the input and where its records are. */
export interface CheckedInput {
  /** How many records it holds (at least 1). */
  records: number;
  /** The line of its last record (the end of a range of records not sent). */
  lastLine: number;
  format: RecordFormat;
  /** Its size in bytes and their SHA-256 (hex): what a later run recognises it by. */
  size: number;
  sha256: string;
}

/** The input once pass 1 checked it, and its records read again by the later passes. */
export interface CheckedSource {
  source: BulkSource;
  checked: CheckedInput;
  /** The checked records, read again (under the run's signal). */
  records: () => AsyncIterable<IndexedRecord>;
  /** The records' texts, read again without the run's signal: what remains is saved even after Ctrl-C. */
  texts: () => AsyncIterable<IndexedText>;
}

/**
 * Pass 1 over `source` (`checkInput`), under `signal`; the later passes trust no more than
 * it checked (`checkedRecords`: an input that changed since is InputChangedError).
 * @throws as `checkInput` does.
 */
export async function checkSource(source: BulkSource, signal: AbortSignal): Promise<CheckedSource> {
  const checked = await pipeline(source.pass(signal), (bytes) => checkInput(bytes, source.label));
  return {
    source,
    checked,
    records: () =>
      checkedRecords(source.pass(signal), checked.records, (what) => new InputChangedError(source.label, what)),
    texts: () => recordTexts(source.pass(new AbortController().signal)),
  };
}

/**
 * Pass 1: decodes `bytes` (UTF-8 only), cuts them into records and checks each one.
 * @throws UsageError (exit 2, nothing sent) listing the problems by line (the first
 * PROBLEMS_SHOWN, then how many more), naming the line where the input stops being UTF-8
 * text, or for an input with no record at all; whatever reading `bytes` throws.
 */
export async function checkInput(bytes: AsyncIterable<Buffer>, label: string): Promise<CheckedInput> {
  const hash = createHash('sha256');
  const splitter = new RecordSplitter();
  const problems: RecordProblem[] = [];
  let bad = 0;
  let size = 0;
  let lastLine = 0;
  const check = (texts: RecordText[]): void => {
    for (const text of texts) {
      lastLine = text.line;
      const r = checkRecord(text);
      if (!isProblem(r)) continue;
      bad++;
      if (problems.length < PROBLEMS_SHOWN) problems.push(r);
    }
  };
  const seen = (chunk: Buffer): void => {
    hash.update(chunk);
    size += chunk.length;
  };
  try {
    for await (const text of decodedText(bytes, seen)) check(splitter.push(text));
  } catch (err) {
    if (err instanceof NotTextError) throw refused(label, [err.problem], 1, true);
    throw err;
  }
  check(splitter.end());
  const empty = emptyInputProblem(splitter);
  const all = [...splitter.problems, ...problems, ...(empty === undefined ? [] : [empty])].sort(
    (a, b) => a.line - b.line,
  );
  const count = bad + splitter.problems.length + (empty === undefined ? 0 : 1);
  if (count > 0) throw refused(label, all, count, empty !== undefined);
  return { records: splitter.count, lastLine, format: splitter.format ?? 'ndjson', size, sha256: hash.digest('hex') };
}

/** The usage error listing `problems` (`count` in all); `alone`: one problem said in one line. */
function refused(label: string, problems: RecordProblem[], count: number, alone: boolean): UsageError {
  const hint =
    'Each record is a NewPet: {"name": string, "categoryId": int64, "status"?: "available"|"pending"|"sold"}.';
  const [first] = problems;
  if (alone && first !== undefined) {
    const where = first.message.startsWith('no records') ? '' : `line ${first.line}: `;
    return new UsageError(`--from-file ${label}: ${where}${first.message}; nothing was sent`, hint);
  }
  const list = problems
    .slice(0, PROBLEMS_SHOWN)
    .map((p) => `  line ${p.line}: ${p.message}`)
    .join('\n');
  const more = count - Math.min(problems.length, PROBLEMS_SHOWN);
  return new UsageError(
    `--from-file ${label}: ${formatCount(count)} invalid record${count === 1 ? '' : 's'}; nothing was sent\n${list}${more > 0 ? `\n  … and ${formatCount(more)} more` : ''}`,
    hint,
  );
}

/**
 * The account of a bulk create that stopped (cli-contract.md "Network behaviour": a write
 * command reports which records were created, failed, unknown and not sent): created
 * records as compact ranges of lines and ids (memory does not grow with the input), the one
 * record that failed or whose fate is unknown, the records not sent, and where the records
 * not created were saved. Rendered as a few lines for people, as fields for JSON.
 */
import type { Int64 } from '../../api/schemas.js';
import { shellQuote } from '../../suggest.js';

/** A run of created records: consecutive records whose ids are consecutive too. */
interface CreatedRange {
  firstLine: number;
  lastLine: number;
  firstId: bigint;
  lastId: bigint;
  count: number;
}

/** How the record the run stopped at ended. */
export type StopKind =
  /** The server answered with an error, or the request never left: not created. */
  | 'failed'
  /** The request may have reached the server: created or not, nobody knows. */
  | 'unknown'
  /** No request was under way (a signal or a closed stdout between records). */
  | 'none';

/** The record the run stopped at. */
export interface StopPoint {
  /** 0-based index of the record. */
  index: number;
  line: number;
  kind: StopKind;
  /** Why, in a few words (the server's message, "interrupted", ...). */
  cause: string;
}

/** Most created ranges listed in the human form; the rest are counted. */
const RANGES_SHOWN = 5;

/** The account of one bulk create. */
export class BulkAccount {
  private readonly ranges: CreatedRange[] = [];
  private createdCount = 0;
  stop: StopPoint | undefined;
  /** Where the records not created were saved, or why they could not be. */
  saved: { file: string; count: number } | { error: string; count: number } | undefined;

  constructor(readonly total: number) {}

  /** Records that record `line` became pet `id`. */
  created(line: number, id: Int64): void {
    const n = BigInt(id);
    const last = this.ranges[this.ranges.length - 1];
    if (last !== undefined && n === last.lastId + 1n) {
      last.lastLine = line;
      last.lastId = n;
      last.count++;
    } else {
      this.ranges.push({ firstLine: line, lastLine: line, firstId: n, lastId: n, count: 1 });
    }
    this.createdCount++;
  }

  /** How many were created. */
  get createdTotal(): number {
    return this.createdCount;
  }

  /** Index of the first record not created for sure (the failed one, or the first after the stop). */
  get firstNotCreated(): number {
    if (this.stop === undefined) return this.total;
    return this.stop.kind === 'unknown' ? this.stop.index + 1 : this.stop.index;
  }

  /** Records neither created nor unknown: the failed one and those never sent. */
  get notCreatedCount(): number {
    return this.total - this.firstNotCreated;
  }

  /** Records never sent. */
  get notSentCount(): number {
    if (this.stop === undefined) return 0;
    return this.total - this.stop.index - (this.stop.kind === 'none' ? 0 : 1);
  }

  /**
   * The account for people: a few lines of counts and ranges. `suggest` turns command words
   * into a command that goes where this run went (`ctx.suggest`: `--env` and `--base-url`).
   */
  lines(suggest: (words: string) => string): string[] {
    const out: string[] = [];
    const shown = this.ranges.slice(0, RANGES_SHOWN).map(describeRange);
    const more = this.ranges.length - shown.length;
    out.push(
      this.createdCount === 0
        ? 'created: none'
        : `created ${this.createdCount}: ${shown.join(', ')}${more > 0 ? `, and ${more} more run${more === 1 ? '' : 's'}` : ''}`,
    );
    const stop = this.stop;
    if (stop?.kind === 'failed') out.push(`failed 1: line ${stop.line}, not created`);
    if (stop?.kind === 'unknown') {
      out.push(
        `unknown 1: line ${stop.line}: the request may have reached the server, so it may have been created; it is not retried and not in the remaining file (check with \`${suggest('pets list')}\`)`,
      );
    }
    if (this.notSentCount > 0) out.push(`not sent ${this.notSentCount}`);
    const saved = this.saved;
    if (saved !== undefined && 'file' in saved) {
      out.push(
        `the ${saved.count} record${saved.count === 1 ? '' : 's'} not created ${saved.count === 1 ? 'is' : 'are'} in ${saved.file}; after fixing the cause, run:`,
      );
      out.push(`  ${suggest(`pets create --from-file ${shellQuote(saved.file)}`)}`);
    } else if (saved !== undefined) {
      out.push(`the ${saved.count} records not created could not be saved: ${saved.error}`);
    }
    return out;
  }

  /** The account as fields of the JSON error object. */
  details(): Record<string, unknown> {
    const saved = this.saved;
    return {
      records: this.total,
      created: this.createdCount,
      createdRanges: this.ranges.map((r) => ({
        lines: [r.firstLine, r.lastLine],
        ids: [String(r.firstId), String(r.lastId)],
      })),
      failed: this.stop?.kind === 'failed' ? { line: this.stop.line } : null,
      unknown: this.stop?.kind === 'unknown' ? { line: this.stop.line } : null,
      notSent: this.notSentCount,
      remainingFile: saved !== undefined && 'file' in saved ? saved.file : null,
      remaining: this.notCreatedCount,
    };
  }
}

function describeRange(r: CreatedRange): string {
  return r.count === 1
    ? `line ${r.firstLine} → id ${r.firstId}`
    : `lines ${r.firstLine}-${r.lastLine} → ids ${r.firstId}-${r.lastId}`;
}

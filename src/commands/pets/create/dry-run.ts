/**
 * `pets create --from-file --dry-run` (cli-contract.md "Bulk create": checks everything,
 * prints what would be sent, sends nothing): the checked records, as NewPet (no id), in
 * the run's output format.
 */
import type { Pet } from '../../../api/schemas.js';
import type { IndexedRecord } from './check.js';

/** Where records are printed (`render/output.ts` `RecordStream`). */
export interface RecordSink {
  push(records: readonly Pet[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * Prints every record of `records` to `out` and closes it.
 * @returns how many there were.
 * @throws what reading `records` or writing `out` throws (OutputError, InputChangedError).
 */
export async function printUnsent(records: AsyncIterable<IndexedRecord>, out: RecordSink): Promise<number> {
  let count = 0;
  for await (const { pet } of records) {
    // A NewPet printed as a Pet without its id: every format prints a missing field empty
    // (`fieldText`) and JSON leaves it out, which is what --dry-run shows.
    await out.push([pet as Pet]);
    count++;
  }
  await out.end();
  return count;
}

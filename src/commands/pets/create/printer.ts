/**
 * The last step of a bulk create's pipeline: printing its records on stdout in the run's
 * output format (`--output`, `--fields`, and `--jq` once per record): the pets created, in
 * input order, or with `--dry-run` the records as they would be sent (cli-contract.md "Bulk
 * create": checks everything, prints what would be sent, sends nothing).
 */
import type { NewPet, Pet } from '../../../client/schemas.js';
import { CliError, InterruptedError, OutputError } from '../../../base/errors.js';
import { settleOrAbort } from '../../../base/abort.js';
import { RecordStream, writeRecordLine, type RecordOutput } from '../../../render/output.js';

/** How records are printed. */
export interface PrintOptions {
  /** Stops waiting for a stdout whose reader stopped reading (a signal). */
  signal: AbortSignal;
  /** Called before anything is written (a progress line on the same terminal erases itself). */
  beforeWrite: () => void;
}

/**
 * Told of the first `--jq` failure on a created pet (the sender stops sending there: the
 * run ends with that error, and the pets still coming are printed all the same).
 */
export type FilterFailed = (err: CliError) => void;

/** Whether `err` is the `--jq` filter failing on a record: an error of jq's, or its `--timeout`. */
function isFilterFailure(err: unknown): err is CliError {
  return err instanceof CliError && (err.code === 'jq' || err.code === 'jq_timeout');
}

/**
 * A pipeline step that prints every record it is given through `out` and then closes the
 * output (a JSON array's `]`, a table) — after a failure too, so what was printed stays
 * well-formed, unless stdout itself failed. A NewPet (`--dry-run`) is printed as a Pet
 * without its id: every format prints a missing field empty, and JSON leaves it out.
 * Once `signal` aborts, lines are no longer waited for but still written, in order: every
 * pet created reaches stdout when its reader reads again (the account on stderr says which
 * were created either way).
 *
 * With `filterFailed` (pets created, not a dry run), a pet the `--jq` filter fails on is
 * still reported: its record is printed as it is, one compact JSON line (as `--output
 * ndjson` prints it), after whatever the filter printed before failing; the first such
 * failure is told to `filterFailed`, and the pets that still come (requests under way) are
 * printed, through the filter where it works. Without it, the failure ends the step (nothing
 * was created). The step throws OutputError when stdout cannot take a record (while it is
 * still waited for), what reading its records throws, and then the filter's first failure.
 */
export function recordPrinter(
  out: RecordOutput,
  opts: PrintOptions,
): (
  records: AsyncIterable<Pet | NewPet>,
  filterFailed?: FilterFailed,
  printed?: (record: Pet) => void,
) => Promise<void> {
  // --jq runs once per record, whatever the format (cli-contract.md "Output").
  const stream = new RecordStream(out, { jqPerRecord: true });
  // Not waited for past a signal: a reader that stopped reading would hold the run.
  // Still written, though: a pet created is a line on stdout, whenever it is read.
  const settle = (written: Promise<void>): Promise<void> =>
    settleOrAbort(written, opts.signal).catch((err: unknown) => {
      if (!(err instanceof InterruptedError && opts.signal.aborted)) throw err;
      written.catch(() => undefined);
    });
  // A table is written whole at the end: its records reach stdout only then.
  const holds = out.mode === 'table' && out.jq === undefined;
  return async (records, filterFailed, printed) => {
    let failure: unknown;
    let filterFailure: CliError | undefined;
    const held: Pet[] = [];
    // Told once the write is done, whenever that is (after a signal too): in input order.
    const written = (record: Pet) => (): void => {
      if (holds) held.push(record);
      else printed?.(record);
    };
    try {
      for await (const record of records) {
        opts.beforeWrite();
        try {
          await settle(stream.push([record as Pet]).then(written(record as Pet)));
        } catch (err) {
          if (filterFailed === undefined || !isFilterFailure(err)) throw err;
          // The pet was created: its id must reach stdout, filtered or not.
          if (filterFailure === undefined) filterFailed((filterFailure = err));
          await settle(writeRecordLine(out.io, record).then(written(record as Pet)));
        }
      }
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (!(failure instanceof OutputError)) {
        opts.beforeWrite();
        const ended = stream.end().then(() => {
          for (const record of held) printed?.(record);
        });
        await settleOrAbort(ended, opts.signal).catch(() => undefined);
      }
    }
    // Whatever else happened, the run does not end as if the filter had worked.
    if (filterFailure !== undefined) throw filterFailure;
  };
}

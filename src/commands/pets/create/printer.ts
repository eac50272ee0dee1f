/**
 * The last step of a bulk create's pipeline: printing its records on stdout in the run's
 * output format (`--output`, `--fields`, and `--jq` once per record): the pets created, in
 * input order, or with `--dry-run` the records as they would be sent (cli-contract.md "Bulk
 * create": checks everything, prints what would be sent, sends nothing).
 */
import type { NewPet, Pet } from '../../../api/schemas.js';
import { InterruptedError, OutputError } from '../../../errors.js';
import { settleOrAbort } from '../../../abort.js';
import { RecordStream, type PetOutput } from '../../../render/output.js';

/** How records are printed. */
export interface PrintOptions {
  /** Stops waiting for a stdout whose reader stopped reading (a signal). */
  signal: AbortSignal;
  /** Called before anything is written (a progress line on the same terminal erases itself). */
  beforeWrite: () => void;
}

/**
 * A pipeline step that prints every record it is given through `out` and then closes the
 * output (a JSON array's `]`, a table) — after a failure too, so what was printed stays
 * well-formed, unless stdout itself failed. A NewPet (`--dry-run`) is printed as a Pet
 * without its id: every format prints a missing field empty, and JSON leaves it out.
 * Once `signal` aborts, lines are no longer waited for but still written, in order: every
 * pet created reaches stdout when its reader reads again (the account on stderr says which
 * were created either way). The step throws OutputError when stdout cannot take a record
 * (while it is still waited for), and what reading its records throws.
 */
export function recordPrinter(
  out: PetOutput,
  opts: PrintOptions,
): (records: AsyncIterable<Pet | NewPet>) => Promise<void> {
  // --jq runs once per record, whatever the format (cli-contract.md "Output").
  const stream = new RecordStream(out, { jqPerRecord: true });
  return async (records) => {
    let failure: unknown;
    try {
      for await (const record of records) {
        opts.beforeWrite();
        const written = stream.push([record as Pet]);
        // Not waited for past a signal: a reader that stopped reading would hold the run.
        // Still written, though: a pet created is a line on stdout, whenever it is read.
        await settleOrAbort(written, opts.signal).catch((err: unknown) => {
          if (!(err instanceof InterruptedError && opts.signal.aborted)) throw err;
          written.catch(() => undefined);
        });
      }
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (!(failure instanceof OutputError)) {
        opts.beforeWrite();
        await settleOrAbort(stream.end(), opts.signal).catch(() => undefined);
      }
    }
  };
}

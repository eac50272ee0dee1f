/**
 * Where a bulk create keeps its files: the spool and temporary files, the run records, and
 * the sandbox data file that names the sandbox a run sends to.
 */
import { join } from 'node:path';
import type { EnvVars } from '../../../config/env.js';
import { placesOf } from '../../../config/paths.js';

/** Where a bulk create keeps its files (`bulkPlaces`). */
export interface BulkPlaces {
  /**
   * The directory of the spool of input read once, the directory for temporary files:
   * `TMPDIR` of the run's environment when it is an absolute path, else the system's (as
   * `os.tmpdir()` decides for the process); with the words that say where it came from,
   * for messages.
   */
  temp: { path: string; from: string };
  /**
   * The directory of the records of bulk runs, petstore's state directory (what it
   * remembers between runs): `PETSTORE_STATE_DIR`, else `$XDG_STATE_HOME/petstore` (when
   * absolute), else `~/.local/state/petstore` (XDG Base Directory spec: "state data that
   * should persist between restarts", not important or portable enough for the config
   * directory).
   */
  state: string;
  /** The sandbox's data file, which names the sandbox a run sends to (`sandboxDataFile`). */
  sandboxData: string;
}

/** The places of a bulk create's files, resolved once from the run's environment. */
export function bulkPlaces(env: EnvVars): BulkPlaces {
  const { config, state, temp } = placesOf(env);
  return { temp, state, sandboxData: join(config, 'sandbox.json') };
}

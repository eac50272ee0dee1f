/**
 * Where a bulk create keeps its files: the spool and temporary files, the run records, and
 * the sandbox data file that names the sandbox a run sends to. They are resolved once from
 * the run's environment, with petstore's other places (`config/paths.ts` `placesOf`).
 */

/** Where a bulk create keeps its files. */
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
  /** The sandbox's data file, which names the sandbox a run sends to (`config/paths.ts` `sandboxDataFile`). */
  sandboxData: string;
}

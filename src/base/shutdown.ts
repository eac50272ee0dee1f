/**
 * The one shutdown registry of a run: what its parts do when the process is told to stop
 * or is about to be ended before the command returned (cli-contract.md "Errors and exit
 * codes": the first signal stops sending and fetching within a second, then the run
 * finishes what keeps its account true; a second signal cuts that short; never exit 0
 * unfinished). `cli-entry.ts` owns the process glue and drives it; parts register with it
 * through `Io.shutdown` (a pager, a temp file, a bulk create's account) and unregister
 * when their work is done.
 */

/** The signals that end a run, each with its exit code (128 + its number). */
export const ENDING_SIGNALS = { SIGHUP: 129, SIGINT: 130, SIGQUIT: 131, SIGTERM: 143 } as const;

/**
 * How long a run may take to stop after the first signal, in ms, before the process is
 * ended by force, unless a part holds it (`ShutdownHook.holds`): cli-contract.md "Errors
 * and exit codes", sending and fetching stop within a second.
 */
const STOP_GRACE_MS = 1000;

/** A signal that ends a run. */
export type EndingSignal = keyof typeof ENDING_SIGNALS;

/** Why the process is being ended before its command returned. */
export type ForcedEnd =
  /** A second after a signal, or at a second signal. */
  | { kind: 'signal'; signal: EndingSignal }
  /**
   * The event loop drained: nothing is left that could finish the command (a bug); `doing`
   * is what the newest part that says so was doing.
   */
  | { kind: 'stalled'; doing: string | undefined };

/** What one part does at a signal or a forced end; every member is optional. */
export interface ShutdownHook {
  /**
   * A signal arrived, before the run is aborted. Returning true keeps the run going: the
   * signal is this part's (Ctrl-C reaches a pager petstore waits for, as in git and gh).
   */
  onSignal?: (signal: EndingSignal) => boolean;
  /**
   * The process is about to exit without waiting for the command: synchronous, it removes
   * what must not be left behind (temp files) and prints what must be said (an account).
   * Returns true when it told the user why the run ended.
   */
  onForcedEnd?: (end: ForcedEnd) => boolean;
  /** What the part is doing now, in a few words ("copying stdin to a temporary file"). */
  doing?: () => string | undefined;
  /**
   * True while this part must finish before the process may end: a person reads a pager
   * petstore started, or a write command saves what keeps its account true (a bulk
   * create's remaining file, written in full however long the disk takes). While a part
   * holds, the process is not ended a second after a signal, only by a second signal the
   * part does not take (cli-contract.md "Errors and exit codes").
   */
  holds?: () => boolean;
}

/** Where parts register. */
export interface Shutdown {
  /** Registers `hook`; returns the function that removes it again (safe to call twice). */
  add(hook: ShutdownHook): () => void;
  /**
   * How long after the first signal the process is ended by force, in ms: what a part that
   * finishes work under way (a bulk create awaiting answers) may spend of it.
   */
  readonly graceMs: number;
}

/**
 * The registry the process glue drives. Hooks run newest first, so a part registered
 * inside another's work (a temp file inside a bulk create) tidies before the outer part
 * reports. A hook that throws does not keep the others from running.
 */
export class ShutdownRegistry implements Shutdown {
  private readonly hooks: ShutdownHook[] = [];

  /** @param graceMs how long after the first signal `cli-entry.ts` ends the process (STOP_GRACE_MS). */
  constructor(readonly graceMs: number = STOP_GRACE_MS) {}

  add(hook: ShutdownHook): () => void {
    this.hooks.push(hook);
    return () => {
      const at = this.hooks.lastIndexOf(hook);
      if (at !== -1) this.hooks.splice(at, 1);
    };
  }

  /** Tells every hook of `signal`; true when one of them took it (the run goes on). */
  signal(signal: EndingSignal): boolean {
    let taken = false;
    for (const hook of this.newestFirst()) {
      if (attempt(() => hook.onSignal?.(signal)) === true) taken = true;
    }
    return taken;
  }

  /**
   * Runs every hook's `onForcedEnd`, newest first, each once (they are removed). True when
   * one of them told the user why the run ended.
   */
  forceEnd(end: ForcedEnd): boolean {
    const hooks = this.newestFirst();
    this.hooks.length = 0;
    let told = false;
    for (const hook of hooks) if (attempt(() => hook.onForcedEnd?.(end)) === true) told = true;
    return told;
  }

  /** Whether a part holds the process (`ShutdownHook.holds`): a pager the person is reading, an account being saved. */
  holding(): boolean {
    return this.newestFirst().some((hook) => attempt(() => hook.holds?.()) === true);
  }

  /** What the newest part that says so is doing, if any. */
  doing(): string | undefined {
    for (const hook of this.newestFirst()) {
      const what = attempt(() => hook.doing?.());
      if (typeof what === 'string') return what;
    }
    return undefined;
  }

  private newestFirst(): ShutdownHook[] {
    return [...this.hooks].reverse();
  }
}

/** `fn()`, or undefined when it throws: one part's failure must not stop the others' tidying. */
function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

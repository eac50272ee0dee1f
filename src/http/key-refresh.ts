/**
 * A key that may be read again after a 401 (cli-contract.md "Environments": an
 * `apiKeyCommand` runs once per run, and once more after a 401, at most once a minute; a
 * changed key is then used for the rest of the run). Only a key from `apiKeyCommand` is one:
 * PETSTORE_API_KEY and the stored key are what the user set, and reading them again would
 * give the same key.
 */
import { usedKeys } from '../base/mask.js';

/** The least time between two re-runs of the key command, in ms, whatever the server answers. */
export const KEY_REREAD_INTERVAL_MS = 60_000;

/** What a refusal of the key led to: the key to send the request again with, or why there is none. */
export type KeyRereadOutcome = { key: string; note: string } | { key: undefined; note: string };

/** The key of a run that may change after a 401 (`RereadableKey`), as the transport sees it. */
export interface KeySource {
  /** The key to send now. */
  current(): string;
  /**
   * Told that the server refused `refused` (a 401): resolves with the key to send the
   * request again with, or none (the 401 stands). Never rejects.
   */
  afterRefusal(refused: string): Promise<KeyRereadOutcome>;
}

/**
 * The run's key from its key command, shared by every transport of the run (each MCP call
 * opens its own), so that one re-run serves them all: requests refused together wait for one
 * run of the command, a request refused with a key already replaced is sent with the new
 * one, and the command runs again at most once per KEY_REREAD_INTERVAL_MS.
 */
export class RereadableKey implements KeySource {
  private key: string;
  /** When the command last ran again, in ms since the epoch (the run's clock). */
  private lastReread: number | undefined;
  private rereading: Promise<KeyRereadOutcome> | undefined;

  /**
   * @param key the key the command printed when the run started.
   * @param reread runs the command again and resolves with the key it printed, or undefined
   * when it gave none (it has said why); never rejects.
   * @param now the run's clock (`Context.now`), so tests need not wait a minute.
   */
  constructor(
    key: string,
    private readonly reread: () => Promise<string | undefined>,
    private readonly now: () => Date,
  ) {
    this.key = key;
  }

  current(): string {
    return this.key;
  }

  afterRefusal(refused: string): Promise<KeyRereadOutcome> {
    if (refused !== this.key) return Promise.resolve({ key: this.key, note: 'the key was replaced meanwhile' });
    if (this.rereading !== undefined) return this.rereading;
    const now = this.now().getTime();
    if (this.lastReread !== undefined && now - this.lastReread < KEY_REREAD_INTERVAL_MS) {
      return Promise.resolve({ key: undefined, note: 'the key command ran again less than a minute ago' });
    }
    this.lastReread = now;
    this.rereading = this.reread().then(
      (key): KeyRereadOutcome => {
        this.rereading = undefined;
        if (key === undefined) return { key, note: 'the key command gave no key' };
        if (key === refused) return { key: undefined, note: 'the key command printed the same key' };
        // Masked in every message before it is sent; the refused key stays masked too.
        usedKeys.add(key);
        this.key = key;
        return { key, note: 'the key command printed another key' };
      },
      (): KeyRereadOutcome => {
        this.rereading = undefined;
        return { key: undefined, note: 'the key command gave no key' };
      },
    );
    return this.rereading;
  }
}

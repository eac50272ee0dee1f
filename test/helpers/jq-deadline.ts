/**
 * For tests of `--jq` under `--timeout` (cli-contract.md "Network behaviour"): the command's
 * one deadline covers starting jq (a worker thread and its WebAssembly) and the request as
 * well as the filter. On a loaded machine those can take the whole of a short `--timeout`,
 * and the run then ends, rightly, with exit 3 `timeout` before the filter ever ran. That is
 * not the behaviour under test, so the run is repeated with twice the time until the
 * deadline finds the filter running.
 */
import { lastError } from './harness.js';
import type { CliResult } from './run-cli.js';

/** The largest `--timeout` tried, in seconds: room for a machine 10x slower than CI's worst seen. */
const LAST_TIMEOUT_S = 32;

/**
 * Runs `attempt(timeoutS)` with `--timeout` values from `fromS` up, doubling, until the run
 * is anything but the request's own timeout (exit 3, code `timeout`), and returns that run
 * and the `--timeout` it had. Only that one outcome is retried: any other result (a wrong
 * code, a hang the caller's limit catches, output where there should be none) is returned
 * for the test to fail on. The last attempt's result is returned as it is.
 */
export async function untilTheFilterRuns(
  fromS: number,
  attempt: (timeoutS: number) => Promise<CliResult>,
): Promise<{ r: CliResult; timeoutS: number }> {
  for (let timeoutS = fromS; ; timeoutS *= 2) {
    const r = await attempt(timeoutS);
    const requestTimedOut = r.code === 3 && lastError(r)?.code === 'timeout';
    if (!requestTimedOut || timeoutS * 2 > LAST_TIMEOUT_S) return { r, timeoutS };
  }
}

/**
 * The rule of test/helpers/jq-deadline.ts itself: a run whose request used up a short
 * `--timeout` (exit 3, code `timeout`) is repeated with twice the time, and nothing else is.
 */
import { describe, expect, it } from 'vitest';
import { untilTheFilterRuns } from '../helpers/jq-deadline.js';
import type { CliResult } from '../helpers/run-cli.js';

const result = (code: number, errorCode: string): CliResult => ({
  code,
  signal: null,
  stdout: '',
  stderr: `${JSON.stringify({ code: errorCode, message: 'm', status: 0 })}\n`,
  ms: 0,
});

/** An attempt that times out in its request `slow` times, then gives `then`. */
function attempts(slow: number, then: CliResult): { tried: number[]; attempt: (s: number) => Promise<CliResult> } {
  const tried: number[] = [];
  return {
    tried,
    attempt: (s) => {
      tried.push(s);
      return Promise.resolve(tried.length <= slow ? result(3, 'timeout') : then);
    },
  };
}

describe('untilTheFilterRuns', () => {
  it('repeats a request timeout with twice the --timeout, and returns the run that got further', async () => {
    const a = attempts(2, result(1, 'jq_timeout'));
    const { r, timeoutS } = await untilTheFilterRuns(3, a.attempt);
    expect(a.tried).toEqual([3, 6, 12]);
    expect([r.code, timeoutS]).toEqual([1, 12]);
  });

  it('returns any other outcome at once, for the test to fail on', async () => {
    for (const other of [result(1, 'jq_timeout'), result(3, 'network'), result(0, 'none'), result(1, 'timeout')]) {
      const a = attempts(0, other);
      const { r, timeoutS } = await untilTheFilterRuns(1, a.attempt);
      expect(a.tried).toEqual([1]);
      expect(r).toBe(other);
      expect(timeoutS).toBe(1);
    }
  });

  it('gives up at 32 s, returning the last request timeout as it is', async () => {
    const a = attempts(100, result(1, 'jq_timeout'));
    const { r, timeoutS } = await untilTheFilterRuns(1, a.attempt);
    expect(a.tried).toEqual([1, 2, 4, 8, 16, 32]);
    expect([r.code, timeoutS]).toEqual([3, 32]);
    const from3 = attempts(100, result(1, 'jq_timeout'));
    await untilTheFilterRuns(3, from3.attempt);
    expect(from3.tried).toEqual([3, 6, 12, 24]);
  });
});

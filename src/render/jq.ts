/**
 * `--jq EXPR` (cli-contract.md "Output"): real jq (1.8.2, jq-wasm) inside petstore, so
 * scripts need no jq binary. jq runs in a worker thread, terminated the moment the run is
 * aborted (Ctrl-C, SIGTERM), so no filter can hold up the contract's second. It is given
 * exact JSON text, so int64 values it passes through come out exactly as they went in;
 * numbers it computes are doubles (`.id + 0` rounds beyond 2^53), as in jq itself.
 *
 * It runs under `--timeout` too (cli-contract.md "Network behaviour"): a filter still
 * running when the command's deadline passes (a bulk create: when one run has taken
 * `--timeout`) is stopped by terminating its worker, exit 1, code `jq_timeout`. jq gives its
 * output only when it ends, so a stopped run prints nothing.
 *
 * Output follows gh's rule: one value per line, strings raw, anything else as compact JSON.
 * This module is loaded only when `--jq` is given; the worker and the WebAssembly only then.
 */
import { Worker } from 'node:worker_threads';
import { CliError, ExitCode, InterruptedError, UsageError } from '../base/errors.js';
import { jqWasmLocation, jqWorkerScript } from './jq-assets.js';

/** Where the shim (bin/petstore.js) leaves the jq worker it started before anything else. */
const SHIM_WORKER = Symbol.for('petstore.jqWorker');

/**
 * What the shim leaves there: the thread, what it said before it was taken (its `ready`,
 * or the `failure` of a thread that could not start: events nobody else has heard), and
 * `release`, which removes the shim's listeners.
 */
interface ShimJqWorker {
  worker: Worker;
  early: WorkerAnswer[];
  release: () => void;
}

/**
 * The worker thread bin/petstore.js started for `--jq` before anything else, with V8's
 * flags as Node started (a thread starting while they differ compiles Node's own modules
 * without their code cache: about twice the time), taken once, with what it said so far;
 * undefined when there is none (the in-process tests, `--jq` given in a way the shim did
 * not see).
 */
function jqWorkerFromShim(): { worker: Worker; early: WorkerAnswer[] } | undefined {
  const holder = globalThis as { [SHIM_WORKER]?: ShimJqWorker | undefined };
  const shim = holder[SHIM_WORKER];
  holder[SHIM_WORKER] = undefined;
  if (shim === undefined) return undefined;
  // Taken in one step: an answer arriving from now on reaches this module's listeners.
  shim.release();
  // The shim leaves it unreferenced once it has started, so that a run that never reaches jq can end.
  shim.worker.ref();
  return { worker: shim.worker, early: shim.early };
}

/** A new jq worker thread (jq-worker.cjs), with an empty environment; it loads jq at once. */
function newJqWorker(): Worker {
  const { script, options } = jqWorkerScript();
  return new Worker(script, {
    ...options,
    stdout: true,
    stderr: true,
    env: {},
    workerData: { wasm: jqWasmLocation() },
  });
}

/** What one run of the filter produced, in order, even when it stopped with an error. */
export interface JqOutcome {
  /** The values jq printed, one compact JSON text each. */
  values: string[];
  /** What jq wrote on its stderr besides an error (`debug`, `stderr`), one entry per line. */
  messages: string[];
  /** jq's run-time error (`.foo` on a string, `error(...)`, `halt_error`), if it stopped with one. */
  error: string | undefined;
}

/** The worker's answer to one message. */
interface WorkerAnswer {
  id?: number;
  /** The worker set the V8 flags the shim gave it (bin/petstore.js); said before `ready`. */
  v8Flags?: true;
  ready?: true;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  failure?: string;
}

/** What jq writes before a run-time error: `jq: error (at /dev/stdin:0): `. */
const RUNTIME_ERROR = /^jq: error \(at [^)]*\): /m;

/**
 * The filter that runs `expression` once per element of an array: how `-o ndjson` and
 * `--from-file` apply it per record in one call (a call costs about a millisecond; a record
 * 3 µs). `.[]` over one input stops at the first error, keeping what came before, and
 * `input` cannot reach the next record. The blank line ends a trailing `# comment \`.
 */
function perElement(expression: string): string {
  return `.[] | (${expression}\n\n)`;
}

/** A jq filter, running in its own worker thread until `close`. */
export class JqFilter {
  private readonly pending = new Map<number, { resolve: (a: WorkerAnswer) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private ended: Error | undefined;
  /** jq's verdict on the expression, once known: `check`'s, or a run's (which compiles it first). */
  private judged: Promise<void> | undefined;
  /** jq's answer for the expression against no input, asked for once jq is ready (`open`). */
  private compiledWhole: Promise<WorkerAnswer> | undefined;
  /** Aborted when the command's deadline passes (`boundBy`); until then each run has `timeoutMs` of its own. */
  private deadline: AbortSignal | undefined;

  private constructor(
    private readonly worker: Worker,
    /** The expression as given to `--jq`. */
    readonly expression: string,
    /** `--timeout` in ms: how long a run may take, unless the command's deadline bounds it. */
    private readonly timeoutMs: number,
  ) {
    worker.on('message', (a: WorkerAnswer) => {
      if (a.id === undefined) return;
      const call = this.pending.get(a.id);
      this.pending.delete(a.id);
      call?.resolve(a);
    });
    worker.on('error', (err) => this.end(err));
    worker.on('exit', () => this.end(new Error('the jq worker stopped')));
  }

  /**
   * Starts jq for `expression`, not yet checked: `check` compiles it before a write sends
   * anything; a read's first run compiles it on the answer (one call of jq instead of
   * three on the path of its output), and `check` says after the command whether jq
   * refused it. Each run is bounded by `timeoutMs` until `boundBy`.
   * @param timeoutMs `--timeout` in ms (cli-contract.md "Network behaviour").
   * @throws InterruptedError when `signal` aborts first; Error when jq cannot start.
   */
  static async open(expression: string, signal: AbortSignal, timeoutMs: number): Promise<JqFilter> {
    // The shim's thread, or one started now: either loads jq as soon as it starts.
    // An empty environment: the worker needs none, and none of petstore's secrets belong in it.
    const { worker, early } = jqWorkerFromShim() ?? { worker: newJqWorker(), early: [] };
    // The WebAssembly's own complaints (`Aborted()`) are reported through the answers instead.
    worker.stdout.resume();
    worker.stderr.resume();
    const filter = new JqFilter(worker, expression, timeoutMs);
    const onAbort = (): void => filter.end(InterruptedError.from(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await filter.ready(early);
    } catch (err) {
      await filter.close();
      throw err;
    }
    // jq compiles the expression at once, while a read's request is out: the first call
    // also compiles the parts of jq's WebAssembly it runs, so the run on the answer finds
    // them compiled. Its answer is the first half of `check`.
    filter.compiledWhole = filter.call('', expression);
    filter.compiledWhole.catch(() => undefined);
    return filter;
  }

  /**
   * jq's verdict on the expression: the first run's, or else (a write before it sends
   * anything; the runner once a command ended without a run) the expression compiled as a
   * whole and once per record against no input, so nothing runs. Given once, then kept.
   * Not bounded by `timeoutMs` (jq compiles in milliseconds, and a tiny `--timeout` is the
   * requests' to report).
   * @throws UsageError (exit 2) with jq's message for an expression that does not compile;
   * the error that ended jq (InterruptedError, `jq_timeout`) if it ended first.
   */
  check(): Promise<void> {
    this.judged ??= (async () => {
      // Against no input nothing runs: any failure is the compiler's.
      const whole = await (this.compiledWhole ??= this.call('', this.expression));
      if (whole.exitCode !== 0) throw compileError(whole.stderr ?? '', '');
      const each = await this.call('', perElement(this.expression));
      if (each.exitCode !== 0) throw compileError(each.stderr ?? '', ' once per record');
    })();
    return this.judged;
  }

  /**
   * Bounds every later run by the command's one deadline (`--timeout` for the whole
   * command, requests included: the transport's clock) instead of `--timeout` per run.
   * `deadline` aborts when it passes; one already aborted fails the next run at once.
   */
  boundBy(deadline: AbortSignal): void {
    this.deadline = deadline;
  }

  /**
   * Runs the filter on `json` (one JSON text: a record, or the array of a list).
   * @throws InterruptedError when the run is aborted; CliError `jq` (exit 1) when jq
   * itself stopped (out of memory); CliError `jq_timeout` (exit 1) when the deadline passed
   * first (the worker is then ended, and every later run fails the same way).
   */
  async apply(json: string): Promise<JqOutcome> {
    return this.run(json, this.expression);
  }

  /** Runs the filter once per element of `jsonArray` (the text of an array of records); throws as `apply`. */
  async applyEach(jsonArray: string): Promise<JqOutcome> {
    return this.run(jsonArray, perElement(this.expression));
  }

  /** Ends the worker; idempotent. */
  async close(): Promise<void> {
    this.end(new Error('jq was closed'));
    await this.worker.terminate();
  }

  /**
   * One run within its deadline: the command's (`boundBy`), or `timeoutMs` from now. When
   * it passes, the worker is terminated: a jq filter cannot be interrupted otherwise.
   */
  private async run(input: string, program: string): Promise<JqOutcome> {
    const { deadline } = this;
    const stop = (): void => {
      this.end(jqTimeoutError(this.timeoutMs, deadline === undefined ? 'run' : 'command'));
    };
    if (deadline?.aborted === true) stop();
    const timer = deadline === undefined ? setTimeout(stop, this.timeoutMs) : undefined;
    deadline?.addEventListener('abort', stop, { once: true });
    try {
      const answer = await this.call(input, program);
      // A run compiles the expression first: its verdict, when `check` has not given one.
      const judged = Promise.resolve().then(() => compiled(answer, program !== this.expression));
      this.judged ??= judged;
      await judged;
      return outcome(answer);
    } finally {
      clearTimeout(timer);
      deadline?.removeEventListener('abort', stop);
    }
  }

  /** Waits for the worker's `ready`, which may be among the answers it gave the shim (`early`). */
  private ready(early: WorkerAnswer[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const answer = (a: WorkerAnswer): boolean => {
        if (a.ready !== true && a.failure === undefined) return false;
        this.worker.off('message', answer);
        this.pending.delete(-1);
        if (a.ready === true) resolve();
        else reject(new Error(`jq could not start: ${a.failure ?? 'no answer'}`));
        return true;
      };
      if (early.some(answer)) return;
      this.pending.set(-1, { resolve: () => undefined, reject });
      this.worker.on('message', answer);
    });
  }

  private async call(input: string, filter: string): Promise<WorkerAnswer> {
    if (this.ended !== undefined) throw this.ended;
    const id = this.nextId++;
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, input, filter });
    });
    if (answer.failure !== undefined) {
      // The WebAssembly aborted (its 256 MiB are gone); the instance is of no further use.
      this.end(new Error(answer.failure));
      void this.worker.terminate();
      throw new CliError(`jq stopped: it ran out of memory (${answer.failure.replace(/\. Build with .*$/, '')})`, {
        exitCode: ExitCode.failure,
        code: 'jq',
        hint: 'Give it less at once: --output ndjson runs the filter once per record.',
      });
    }
    return answer;
  }

  /**
   * Fails every pending and later call with `err` (an abort, a deadline, the worker's end),
   * and stops the worker.
   */
  private end(err: Error): void {
    if (this.ended !== undefined) return;
    this.ended = err;
    for (const call of this.pending.values()) call.reject(err);
    this.pending.clear();
    // Terminating is what makes a signal or a deadline end a filter that would run for minutes.
    if (err instanceof InterruptedError || (err instanceof CliError && err.code === 'jq_timeout')) {
      void this.worker.terminate();
    }
  }
}

/** jq's last line when it could not compile a program (its exit code is then 3). */
const COMPILE_ERRORS = /^jq: \d+ compile errors?$/m;

/**
 * Throws the usage error of an answer that says jq did not compile its program (exit 3,
 * and its `N compile error(s)` line: `halt_error(3)` exits 3 too); `perRecord` when the
 * program was the once-per-record form.
 */
function compiled(a: WorkerAnswer, perRecord: boolean): void {
  const stderr = a.stderr ?? '';
  if (a.exitCode === 3 && COMPILE_ERRORS.test(stderr)) throw compileError(stderr, perRecord ? ' once per record' : '');
}

/** jq's compile errors as one usage error: `jq: error: ` and the `N compile error(s)` line dropped. */
function compileError(stderr: string, as: string): UsageError {
  const text = stderr
    .split('\n')
    .filter((line) => !/^jq: \d+ compile errors?$/.test(line))
    .map((line) => line.replace(/^jq: error: /, ''))
    .join('\n')
    .trim();
  return new UsageError(
    `invalid --jq expression${as}: ${text === '' ? 'jq refused it' : text}`,
    "jq's manual: https://jqlang.org/manual/v1.8/",
  );
}

/** Splits a run's answer into values, messages and the error that stopped it, if any. */
function outcome(a: WorkerAnswer): JqOutcome {
  const stdout = a.stdout ?? '';
  const values = stdout === '' ? [] : stdout.split('\n');
  let stderr = a.stderr ?? '';
  let error: string | undefined;
  if (a.exitCode !== 0) {
    const at = RUNTIME_ERROR.exec(stderr);
    if (at !== null) {
      error = stderr.slice(at.index + at[0].length);
      stderr = stderr.slice(0, at.index);
    } else {
      // halt_error: jq stops with the value it was given as its message.
      error = stderr === '' ? `halt_error (exit ${a.exitCode ?? '?'})` : stderr;
      stderr = '';
    }
  }
  const messages = stderr === '' ? [] : stderr.replace(/\n$/, '').split('\n');
  return { values, messages, error };
}

/**
 * The error of a filter stopped by `--timeout` (exit 1, code `jq_timeout`; not 3, which says
 * the server could not be reached): `command` when the command's one deadline passed while
 * it ran, `run` when one run (a bulk create's, per record) took longer than `timeoutMs`.
 */
function jqTimeoutError(timeoutMs: number, bound: 'command' | 'run'): CliError {
  const within = `the --timeout of ${timeoutMs / 1000} s${bound === 'command' ? ' (the whole command, requests included)' : ' for one run'}`;
  return new CliError(`--jq: the filter did not finish within ${within}; it was stopped`, {
    exitCode: ExitCode.failure,
    code: 'jq_timeout',
    hint: 'Allow more time with --timeout SECONDS, or give the filter less to do.',
  });
}

/**
 * The error of a filter that stopped at run time (exit 1, code `jq`), with jq's message.
 * What it printed before is printed all the same.
 */
export function jqRuntimeError(message: string): CliError {
  return new CliError(`--jq: ${message}`, { exitCode: ExitCode.failure, code: 'jq' });
}

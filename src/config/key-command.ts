/**
 * An environment's `apiKeyCommand` (cli-contract.md "Environments"): a command whose
 * stdout is the API key, for keys kept in a password manager (`op read …`, `pass show …`,
 * `security find-generic-password … -w`), as AWS's `credential_process`, kubectl's exec
 * plugins and git's credential helpers do.
 *
 * - It is split into argv with POSIX shell quoting (`config/command-line.ts`) and run
 *   without a shell: no pipes, redirections, variables, `~` or globs.
 * - It runs with stdin on /dev/null and in a session of its own, so it has no terminal to
 *   prompt on, and in a process group of its own, so the timeout ends it and everything it
 *   started (a wrapper script whose child hangs does not hang petstore).
 * - Its environment is petstore's without petstore's secrets (`EnvVars.forChild`).
 * - Its stdout, trimmed, is the key and is never shown; its stderr is handed to the caller
 *   line by line (to be escaped and shown), so the user sees why it failed: its first
 *   MAX_RELAYED_STDERR_BYTES, the rest read and dropped, and counted for the caller to say.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CliError, ExitCode, InterruptedError, UsageError } from '../base/errors.js';
import { splitCommandLine } from './command-line.js';
import { isSendableKey } from '../base/mask.js';
import { formatCount } from '../text/count.js';

/** How long the command may run, in ms, before it and its processes are killed. */
const KEY_COMMAND_TIMEOUT_MS = 10_000;
/** The most stdout accepted, in bytes: a key is tens of bytes. */
const MAX_KEY_OUTPUT_BYTES = 64 * 1024;
/**
 * The most of its stderr relayed, in bytes: hundreds of lines, far more than a password
 * manager's complaint, and little enough that a command writing megabytes (a debug mode
 * left on) neither floods the terminal nor holds petstore's memory. What comes after is
 * read (so the command is never blocked on a full pipe) and dropped.
 */
export const MAX_RELAYED_STDERR_BYTES = 64 * 1024;

/** One command to run. */
export interface KeyCommand {
  /** The command as configured, e.g. `op read op://store/petstore/key`. */
  command: string;
  /** The config key it comes from, e.g. `production.apiKeyCommand` (for messages). */
  setting: string;
}

/** How to run it. */
export interface KeyCommandRun {
  /** The child's environment (`EnvVars.forChild()`: without petstore's secrets). */
  env: NodeJS.ProcessEnv;
  /** The run's signal: Ctrl-C ends the command and its processes. */
  signal: AbortSignal;
  /**
   * Receives each line of the command's stderr, as it comes (unescaped: escape it to show
   * it), up to MAX_RELAYED_STDERR_BYTES in all; a line cut there comes whole as far as it goes.
   */
  onStderrLine: (line: string) => void;
  /** Told once the command is done (or ended) how many bytes of its stderr were dropped, when some were. */
  onStderrDropped?: (droppedBytes: number) => void;
  /** The timeout in ms (default KEY_COMMAND_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** The error of a command that gave no key: exit 4, code `key_command`, naming the command. */
function keyCommandError(cmd: KeyCommand, why: string, hint: string): CliError {
  return new CliError(`${cmd.setting} \`${cmd.command}\` ${why}; no API key`, {
    exitCode: ExitCode.auth,
    code: 'key_command',
    hint,
    details: { setting: cmd.setting, reason: why },
  });
}

const UNLOCK_HINT =
  'It runs without a terminal and cannot ask for a password: unlock your password manager first, then try again.';

/**
 * Kills the command's process group (the command and everything it started that stayed in
 * its group), ignoring a group that is already gone.
 */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: every process of the group has ended.
  }
}

/**
 * Relays the first `capBytes` bytes of a byte stream (UTF-8 text) as lines, handing each
 * complete one to `emit`; the bytes past the cap are only counted, so memory stays within
 * the cap whatever the stream's size, a single endless line included. `end` flushes the
 * line under way and returns how many bytes were dropped.
 */
function stderrRelay(
  emit: (line: string) => void,
  capBytes: number,
): { push: (bytes: Buffer) => void; end: () => number } {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let budget = capBytes;
  let dropped = 0;
  const split = (text: string): void => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) emit(line.replace(/\r$/, ''));
  };
  return {
    push: (bytes) => {
      const taken = bytes.length <= budget ? bytes : bytes.subarray(0, budget);
      budget -= taken.length;
      dropped += bytes.length - taken.length;
      if (taken.length > 0) split(decoder.write(taken));
    },
    end: () => {
      split(decoder.end());
      if (pending !== '') emit(pending);
      pending = '';
      return dropped;
    },
  };
}

/**
 * Runs the command once and returns the key: its stdout without surrounding white space.
 * @throws CliError (exit 4, code `key_command`, naming the command, never showing its
 * stdout) when it cannot be started, exits non-zero or by a signal, prints nothing or more
 * than one key, or has not finished (it and every process holding its output) within the
 * timeout, which kills its process group; UsageError for a command that does not split;
 * InterruptedError when the run's signal aborts (the process group is killed).
 */
export async function runKeyCommand(cmd: KeyCommand, run: KeyCommandRun): Promise<string> {
  const [program, ...args] = splitCommandLine(cmd.command, cmd.setting);
  if (program === undefined) throw new UsageError(`invalid ${cmd.setting}: the command is empty`);
  if (run.signal.aborted) throw InterruptedError.from(run.signal);
  const result = await collect(cmd, run, program, args);
  if (result.signal !== null) {
    throw keyCommandError(cmd, `was ended by ${result.signal}`, UNLOCK_HINT);
  }
  if (result.code !== 0) {
    throw keyCommandError(
      cmd,
      `exited with status ${String(result.code)}`,
      `Its own messages are above; run it yourself to check it. ${UNLOCK_HINT}`,
    );
  }
  const key = result.stdout.toString('utf8').trim();
  if (key === '') {
    throw keyCommandError(cmd, 'printed nothing on stdout', 'It must print the key, and only the key, on stdout.');
  }
  if (/[\s\p{Cc}]/u.test(key) || !isSendableKey(key)) {
    throw keyCommandError(
      cmd,
      'printed more than a key (white space, control or non-ASCII characters inside)',
      'It must print the key alone on stdout, e.g. one line with the key and nothing else.',
    );
  }
  return key;
}

/**
 * Relays `stream` (the command's stderr) to `run.onStderrLine` within the cap. Returns the
 * function that ends the relay (idempotent): the line under way is flushed and the bytes
 * dropped, if any, are told to `run.onStderrDropped`.
 */
function relayStderr(stream: Readable, run: KeyCommandRun): () => void {
  const relay = stderrRelay(run.onStderrLine, MAX_RELAYED_STDERR_BYTES);
  // Bytes, not text: what is past the cap is counted without being decoded or kept.
  stream.on('data', (bytes: Buffer) => {
    relay.push(bytes);
  });
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const dropped = relay.end();
    if (dropped > 0) run.onStderrDropped?.(dropped);
  };
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
}

/**
 * Starts the command and waits until it has exited and closed its output, the timeout
 * passes, or the run is aborted; whatever stops it first (the timeout, the run's signal,
 * too much on stdout, a failure to start) kills its process group.
 */
async function collect(cmd: KeyCommand, run: KeyCommandRun, program: string, args: string[]): Promise<Finished> {
  const timeoutMs = run.timeoutMs ?? KEY_COMMAND_TIMEOUT_MS;
  const child = spawn(program, args, {
    env: run.env,
    // stdin on /dev/null; `detached` makes it a session leader without a controlling
    // terminal and the leader of its own process group.
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // A failure to start that comes after the wait ended (stopped already) has nothing to add.
  child.on('error', () => undefined);
  const timeout = AbortSignal.timeout(timeoutMs);
  // Aborted, with the error to report, when stdout passes MAX_KEY_OUTPUT_BYTES.
  const overflow = new AbortController();
  const endStderr = relayStderr(child.stderr, run);
  const chunks: Buffer[] = [];
  let size = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_KEY_OUTPUT_BYTES) chunks.push(chunk);
    else
      overflow.abort(
        keyCommandError(
          cmd,
          `printed more than ${formatCount(MAX_KEY_OUTPUT_BYTES)} bytes`,
          'It must print the key alone on stdout.',
        ),
      );
  });
  const stopped = AbortSignal.any([run.signal, timeout, overflow.signal]);
  try {
    // 'close' comes once the command has exited and every process holding its stdout or
    // stderr has let go of them, so the whole key has been read; `once` rejects at an
    // 'error' (it could not be started) or when `stopped` aborts.
    const [code, signal] = (await once(child, 'close', { signal: stopped })) as [number | null, NodeJS.Signals | null];
    endStderr();
    return { code, signal, stdout: Buffer.concat(chunks) };
  } catch (err) {
    killGroup(child);
    // A process outside the group may still hold the pipes: stop reading them.
    child.stdout.destroy();
    child.stderr.destroy();
    endStderr();
    if (!stopped.aborted) throw notStarted(cmd, program, err as NodeJS.ErrnoException);
    if (stopped.reason === timeout.reason) {
      throw keyCommandError(
        cmd,
        `did not finish within ${timeoutMs / 1000} s (it was ended, with every process it started)`,
        UNLOCK_HINT,
      );
    }
    throw stopped.reason === overflow.signal.reason ? overflow.signal.reason : InterruptedError.from(run.signal);
  }
}

/** The error of a command that could not be started (`err`: the child's 'error'). */
function notStarted(cmd: KeyCommand, program: string, err: NodeJS.ErrnoException): CliError {
  const why =
    err.code === 'ENOENT'
      ? `cannot be run: ${program} was not found`
      : err.code === 'EACCES'
        ? `cannot be run: ${program} is not executable`
        : `cannot be run: ${err.message}`;
  return keyCommandError(
    cmd,
    why,
    `Check it with \`petstore config get ${cmd.setting}\`; a program without a / in its name is looked for on PATH.`,
  );
}

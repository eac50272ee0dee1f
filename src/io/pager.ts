/**
 * The pager Io starts for a table longer than the screen (cli-contract.md "Output"), and
 * what keeps it from being left behind (cli-contract.md "Errors and exit codes": a pager
 * petstore started is waited for, never left behind, as git and gh do). While it runs,
 * the process does not exit: the shutdown registry is held, so even a command stopped by
 * Ctrl-C waits for the person to quit the pager. Ctrl-C aborts the run while the pager's
 * input is still being written (the command stops fetching and ends that input); once the
 * input is whole, Ctrl-C is the pager's own (less uses it to stop a search). Any other
 * signal, or a forced end, ends the pager too.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Shutdown } from '../base/shutdown.js';

/** A pager: a shell command line and the environment to run it with. */
export interface PagerChoice {
  command: string;
  env: NodeJS.ProcessEnv;
}

/** Characters that make a pager command a shell command line rather than a program and its words. */
const SHELL_SYNTAX = /[|&;<>()$`\\"'*?[\]#~=%{}\n]/;
/** Control operators after which `exec` would not apply to the whole command line. */
const CONTROL = /[|&;\n]|\$\(|`/;

/**
 * How to run `command` so that the child petstore holds is the pager itself, which a
 * signal then reaches (a shell that forks it would die of Ctrl-C and leave it behind):
 * words alone are run directly, as git does; a shell command line is run by `sh -c` with
 * `exec` in front when that keeps its meaning (a single command, redirections allowed).
 */
export function pagerArgv(command: string): { file: string; args: string[] } {
  if (!SHELL_SYNTAX.test(command)) {
    const [file = command, ...args] = command.split(/\s+/).filter((w) => w !== '');
    return { file, args };
  }
  return { file: '/bin/sh', args: ['-c', CONTROL.test(command) ? command : `exec ${command}`] };
}

/** A pager that is running. */
export class RunningPager {
  private inputEnded = false;
  private exited = false;
  private readonly closed: Promise<number | null>;
  private readonly unregister: () => void;

  private constructor(
    private readonly child: ChildProcess,
    shutdown: Shutdown,
  ) {
    this.closed = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    void this.closed.then(() => (this.exited = true));
    // The pager may quit before it has read everything: its closed input is not our error.
    child.stdin?.on('error', () => undefined);
    this.unregister = shutdown.add({
      onSignal: (signal) => {
        // While the person reads the whole text, Ctrl-C is the pager's; before that, it
        // stops the command, which then ends the pager's input.
        if (signal === 'SIGINT') return this.inputEnded;
        this.kill();
        return false;
      },
      onForcedEnd: () => {
        this.kill();
        return false;
      },
      holds: () => !this.exited,
      doing: () => 'waiting for the pager to exit',
    });
  }

  /**
   * Starts `choice` with its stdin a pipe from petstore. `out`: the pager draws straight on
   * the terminal when it is fd 1 (`undefined`); otherwise its output is handed to `out`.
   * @returns undefined when it could not be started.
   */
  static async start(
    choice: PagerChoice,
    shutdown: Shutdown,
    out: ((data: Buffer) => void) | undefined,
  ): Promise<RunningPager | undefined> {
    const { file, args } = pagerArgv(choice.command);
    const stdio: StdioOptions = ['pipe', out === undefined ? 'inherit' : 'pipe', 'inherit'];
    const child = spawn(file, args, { stdio, env: choice.env });
    if (out !== undefined) child.stdout?.on('data', out);
    const started = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', () => resolve(false));
    });
    return started ? new RunningPager(child, shutdown) : undefined;
  }

  /** Whether the pager has exited (the person quit it, or it could not run). */
  get done(): boolean {
    return this.exited;
  }

  /**
   * Writes `data` to the pager's input and waits until it took it; once the pager has
   * exited, the rest is dropped (the person has seen enough).
   */
  async write(data: string | Uint8Array): Promise<void> {
    const stdin = this.child.stdin;
    if (this.exited || stdin === null || stdin.destroyed || this.inputEnded) return;
    await new Promise<void>((resolve) => {
      stdin.write(data, () => resolve());
    });
  }

  /**
   * Ends the pager's input and waits for the person to quit it.
   * @returns the pager's exit code (126/127: the shell found no such command).
   */
  async finish(): Promise<number | null> {
    this.inputEnded = true;
    this.child.stdin?.end();
    try {
      return await this.closed;
    } finally {
      this.unregister();
    }
  }

  private kill(): void {
    if (!this.exited) this.child.kill('SIGTERM');
  }
}

/**
 * A real terminal for end-to-end tests: a private tmux server (its own socket, so tests
 * never touch a user's tmux) running a plain shell in a fixed-size window. Tests type
 * into it with `send`/`sendLine`, read the screen with `capture` (`escapes: true` keeps
 * the SGR colour sequences, `capture-pane -e`), and `kill` the server afterwards.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_SHELL, baseEnv } from './run-cli.js';
import { tempDir } from './temp-config.js';

/** True when a `tmux` binary is on PATH. */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Options of a terminal session. */
export interface TmuxOptions {
  /** What the window runs (default `sh`, a plain shell). */
  command?: string;
  /** Extra environment of the shell (PATH gets a `petstore` command added in front). */
  env?: Record<string, string>;
  /** Window size; default 120 x 40. */
  width?: number;
  height?: number;
}

/** A running terminal. */
export interface TmuxSession {
  /** The `-L` socket name, unique per session. */
  socket: string;
  /** Sends tmux key names or literal text (`send-keys`), e.g. `['C-c']`. */
  send(...keys: string[]): void;
  /** Types `text` literally, without pressing Enter. */
  type(text: string): void;
  /** Types `text` literally and presses Enter. */
  sendLine(text: string): void;
  /**
   * The visible screen as text; with `escapes`, including SGR sequences; with `history`,
   * everything that scrolled off the top too. Lines the terminal wrapped are joined (`-J`),
   * so a line wider than the window shows as one long line.
   */
  capture(opts?: { escapes?: boolean; history?: boolean }): string;
  /**
   * Polls the screen (every 50 ms) until `pattern` matches (a RegExp, or a test of the
   * screen text); returns the screen. Throws after `timeoutMs` (default 30 s, `WAIT_FOR_MS`:
   * a limit for a hang; a loaded machine draws the screen late, never wrongly).
   */
  waitFor(
    pattern: RegExp | ((screen: string) => boolean),
    opts?: { escapes?: boolean; history?: boolean; timeoutMs?: number },
  ): Promise<string>;
  /** Ends the tmux server and everything running in it. */
  kill(): void;
}

/** How long `waitFor` waits by default before giving up. */
const WAIT_FOR_MS = 30_000;

let counter = 0;

/**
 * Starts `tmux -L <unique> new-session -d -x W -y H` running `command` (default `sh`) with a minimal
 * environment (PATH, LANG, HOME, TERM set by tmux) and a `petstore` command on PATH that
 * runs the built CLI. The prompt is `$ ` (`# ` for root).
 */
export function startTmux(opts: TmuxOptions = {}): TmuxSession {
  const socket = `petstore-test-${process.pid}-${Date.now()}-${++counter}`;
  const binDir = join(tempDir('petstore-tmux-'), 'bin');
  mkdirSync(binDir, { recursive: true });
  const shim = join(binDir, 'petstore');
  writeFileSync(shim, `#!/bin/sh\nexec ${CLI_SHELL} "$@"\n`);
  chmodSync(shim, 0o755);
  const base = baseEnv();
  const env: Record<string, string> = {
    ...base,
    HOME: binDir,
    PS1: '$ ',
    ...opts.env,
    PATH: `${binDir}:${opts.env?.PATH ?? base.PATH}`,
  };
  // tmux refuses to start inside another tmux unless TMUX is unset; baseEnv never has it.
  const tmux = (args: string[], extra: { input?: string } = {}): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      env,
      encoding: 'utf8',
      input: extra.input,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  const width = String(opts.width ?? 120);
  const height = String(opts.height ?? 40);
  tmux(['new-session', '-d', '-s', 'main', '-x', width, '-y', height, opts.command ?? 'sh']);
  const capture = (o: { escapes?: boolean; history?: boolean } = {}): string =>
    tmux([
      'capture-pane',
      '-p',
      '-J',
      ...(o.escapes === true ? ['-e'] : []),
      ...(o.history === true ? ['-S', '-'] : []),
      '-t',
      'main',
    ]);
  if (opts.command === undefined) {
    // Wait for the shell's first prompt: keys sent before it would be echoed ahead of the
    // prompt and the prompt would land in the middle of the command's output. The limit is
    // for a shell that never starts: a loaded machine starts one late.
    const deadline = Date.now() + 30_000;
    while (!/^[$#] $/m.test(capture()) && Date.now() < deadline) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  return {
    socket,
    send: (...keys) => void tmux(['send-keys', '-t', 'main', ...keys]),
    type: (text) => void tmux(['send-keys', '-t', 'main', '-l', text]),
    sendLine: (text) => {
      tmux(['send-keys', '-t', 'main', '-l', text]);
      tmux(['send-keys', '-t', 'main', 'Enter']);
    },
    capture,
    waitFor: async (pattern, o = {}) => {
      const deadline = Date.now() + (o.timeoutMs ?? WAIT_FOR_MS);
      let screen = '';
      while (Date.now() < deadline) {
        screen = capture(o);
        if (typeof pattern === 'function' ? pattern(screen) : pattern.test(screen)) return screen;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`terminal never showed ${String(pattern)}; screen:\n${screen}`);
    },
    kill: () => {
      let socketPath = '';
      try {
        socketPath = tmux(['display-message', '-p', '#{socket_path}']).trim();
        tmux(['kill-server']);
      } catch {
        // Already gone.
      }
      // tmux may leave its socket file behind.
      if (socketPath !== '') rmSync(socketPath, { force: true });
    },
  };
}

/** The tmux sessions of one test file: `killAll` after its tests. */
export function tmuxPool(): { start: (opts?: TmuxOptions) => TmuxSession; killAll: () => void } {
  const sessions: TmuxSession[] = [];
  return {
    start: (opts) => {
      const t = startTmux(opts);
      sessions.push(t);
      return t;
    },
    killAll: () => {
      for (const t of sessions.splice(0)) t.kill();
    },
  };
}

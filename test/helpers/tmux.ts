/**
 * A real terminal for tests: a tmux server on a private socket (`tmux -L <unique>`), one
 * session, keys sent with send-keys and the screen read with capture-pane.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** One tmux server with one session running `command`. */
export class TmuxSession {
  readonly socket = `petstore-test-${process.pid}-${randomBytes(4).toString('hex')}`;

  constructor(command: string, env: Record<string, string>, size = { width: 120, height: 30 }) {
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', String(size.width), '-y', String(size.height), command], env);
  }

  private tmux(args: string[], env?: Record<string, string>): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  }

  /** Sends keys (tmux key names such as `Tab`, `Enter`, `C-u`, or literal text with `literal`). */
  send(keys: string, literal = false): void {
    this.tmux(['send-keys', '-t', '0', ...(literal ? ['-l'] : []), keys]);
  }

  /** The visible screen as text. */
  capture(): string {
    return this.tmux(['capture-pane', '-p', '-t', '0']);
  }

  /** Polls the screen until `test` holds; returns that screen. @throws after `timeoutMs`. */
  async waitFor(test: (screen: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < end) {
      screen = this.capture();
      if (test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for the screen; last screen:\n${screen}`);
  }

  /** Kills the private tmux server. */
  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}

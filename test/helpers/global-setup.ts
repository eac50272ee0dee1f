/**
 * Keeps the suite out of the real user's state folder: a bulk run spawned without a HOME of
 * its own records itself in `~/.local/state/petstore`, where a later test on a reused port
 * reads it as an earlier run of the same input (and refuses it). The run fails (exit 1) if the
 * folder gained files while the suite ran.
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const userState = join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'petstore');

function entries(): Set<string> {
  try {
    return new Set(readdirSync(userState));
  } catch {
    return new Set();
  }
}

export default function setup(): () => void {
  const before = entries();
  return () => {
    const added = [...entries()].filter((f) => !before.has(f));
    if (added.length > 0) {
      // A throw here is printed but does not fail the run; the exit code does.
      process.exitCode = 1;
      console.error(
        `error: the suite wrote ${added.length} file(s) into the user's state folder ${userState}: a spawned run has no HOME of its own`,
      );
    }
  };
}

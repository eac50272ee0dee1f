// `node scripts/pack-manifest.mjs strip|restore`: package.json's `prepack` and `postpack`.
// The tarball's package.json has no scripts (so no install-time script for npm to warn
// about) and the clone keeps its own; the how and why are in build/packed-manifest.mjs.
// `guard PID BACKUP` is the process `strip` leaves behind to restore the clone's
// package.json should npm die before `postpack`.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guard, restoreAfterPack, stripForPack } from './build/packed-manifest.mjs';

const root = join(import.meta.dirname, '..');
const [what, pid, backup] = process.argv.slice(2);

if (what === 'strip') stripForPack(root, fileURLToPath(import.meta.url));
else if (what === 'restore') restoreAfterPack(root);
else if (what === 'guard' && pid !== undefined && backup !== undefined) guard(root, Number(pid), backup);
else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}

/**
 * The package as `npm pack` makes it for a user or a publish, with its lifecycle scripts
 * (`prepack` builds and swaps package.json for the package's, `postpack` puts it back), in
 * a copy of the checkout: the build and the swap then happen away from the checkout whose
 * dist/ and package.json the tests running beside read.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What `npm pack --json` says of one tarball (the fields the tests read). */
export interface Packed {
  /** The tarball's path. */
  tarball: string;
  files: { path: string; size: number }[];
  /** The tarball's size and its files' total, in bytes. */
  size: number;
  unpackedSize: number;
  /** The copy of the checkout it was packed in. */
  copy: string;
  /** npm's stderr: the lifecycle scripts' banners and output. */
  stderr: string;
}

/**
 * A copy of the checkout in `dir`/copy: the files git tracks or would (so no dist/), with
 * node_modules a link to the checkout's (nothing in a pack writes there).
 */
export function copyCheckout(dir: string): string {
  const copy = join(dir, 'copy');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(ROOT, f)));
  mkdirSync(copy);
  for (const f of files) cpSync(join(ROOT, f), join(copy, f), { preserveTimestamps: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
  return copy;
}

/**
 * Runs `npm pack --json` in a fresh copy of the checkout under `dir`, the tarball written
 * to `dir`. `env` is npm's environment.
 */
export async function packCopy(dir: string, env: Record<string, string>): Promise<Packed> {
  const copy = copyCheckout(dir);
  const r = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: copy, env });
  const [out] = JSON.parse(r.stdout) as [
    { filename: string; files: Packed['files']; size: number; unpackedSize: number },
  ];
  return {
    tarball: join(dir, out.filename),
    files: out.files,
    size: out.size,
    unpackedSize: out.unpackedSize,
    copy,
    stderr: r.stderr,
  };
}

#!/usr/bin/env node
// Shim: run the built CLI and exit with its code once stdout and stderr are flushed.
//
// Fast path: `--version`, `-V`, `--help` and `-h` alone print text captured from the full
// path at build time (dist/static/, see scripts/build.mjs), so they cost little more than
// starting Node; test/e2e/fast-path.test.ts proves the two print the same bytes.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const STATIC = { '--version': 'version.txt', '-V': 'version.txt', '--help': 'help.txt', '-h': 'help.txt' };
let text;
if (argv.length === 1 && Object.hasOwn(STATIC, argv[0])) {
  try {
    text = readFileSync(new URL(`../dist/static/${STATIC[argv[0]]}`, import.meta.url), 'utf8');
  } catch {
    // Not built with static outputs: the full path prints the same.
  }
}
if (text !== undefined) {
  // A closed stdout ends the run quietly with exit 0, as on the full path.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.stdout.write(text);
} else {
  // undici's HTTP parser is WebAssembly. V8 compiles it with Liftoff, then re-compiles it
  // with TurboFan on background threads, and process exit waits for those: about 100 ms
  // and 35 MiB per run for a parser that reads a few kilobytes. Liftoff code is plenty.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
  const { run } = await import('../dist/cli-entry.js');
  run(argv);
}

/**
 * Writes the man page: `node generate.cjs OUT ROOT VERSION` (scripts/build.mjs bundles this
 * file with esbuild and runs it once the CLI is built). The page's date is the day of
 * SOURCE_DATE_EPOCH when set (reproducible builds), else today (UTC).
 */
import { writeFileSync } from 'node:fs';
import { renderManPage } from './roff.js';
import { environmentVariables, exitCodes, manTree, programTree } from './sources.js';

async function generate(argv: string[]): Promise<void> {
  const [out, root, version] = argv;
  if (out === undefined || root === undefined || version === undefined) {
    throw new Error('usage: node generate.cjs OUT ROOT VERSION');
  }
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = (epoch !== undefined && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date())
    .toISOString()
    .slice(0, 10);
  const tree = manTree(await programTree());
  const page = {
    name: 'petstore',
    version,
    date,
    tree,
    variables: environmentVariables(),
    exitCodes: exitCodes(root),
  };
  writeFileSync(out, renderManPage(page));
}

generate(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(
    `cannot generate the man page: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});

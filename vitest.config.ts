import { readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // In-process runs (test/helpers/run-main.ts) see the version the build injects.
  define: { __PETSTORE_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // The standalone executable's own checks run when the suite is pointed at one
    // (PETSTORE_TEST_EXECUTABLE, see test/helpers/run-cli.ts).
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.PETSTORE_TEST_EXECUTABLE ? [] : ['test/e2e/executable.test.ts']),
    ],
    // Two cores: one worker each; spawned CLIs and servers share them.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

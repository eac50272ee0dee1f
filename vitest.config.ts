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
    // Limits for a hang, not for speed: CI's two cores are often busy with other work, and
    // a test that spawns several CLIs (0.2 s each alone) can then take tens of seconds. A
    // spawned run is killed as hung after 60 s (test/helpers/run-cli.ts RUN_TIMEOUT_MS), so
    // a test's own limit stays above that and reports the run's output, not a bare timeout.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests by cost, told apart by the file name (docs/architecture.md, "Tests"):
 *   unit         *.test.ts           in process, seconds;
 *   integration  *.int.test.ts       child processes, embedded Postgres, a whole simulator sync;
 *   browser      *.browser.test.ts   headless Chromium against the real server.
 * `npm test` runs all three; `npm run test:unit` (…:integration, …:browser) one of them.
 * test/groups.test.ts checks that every test file is in exactly one group.
 */
const INTEGRATION = ['test/**/*.int.test.ts'];
const BROWSER = ['test/**/*.browser.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The default output, then the ten slowest files (docs/architecture.md, "Tests").
    reporters: ['default', './test/helpers/slowest-files.ts'],
    // A developer's `.env` in the checkout never reaches a CLI the tests start (see src/env-file.ts).
    env: { FLEETSYNC_ENV_FILE: '/dev/null' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION, ...BROWSER],
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      { extends: true, test: { name: 'browser', include: BROWSER } },
    ],
  },
});

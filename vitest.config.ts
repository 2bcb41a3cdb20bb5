import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.ts';

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
    // expect.poll waits for what a page or a process will show; its default 1 s is less than a
    // page takes to draw 1,000 rows beside three other files on two cores (paging.browser).
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Four files at a time on this 2-core machine: most of a file's time is waiting (a simulator's
    // rate-limit window, a child process, Chromium), not computing. Longest first over all three
    // projects (test/helpers/sequencer.ts), so the slow files do not end up last.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    // The run's directory of shared synced databases (test/helpers/shared-sync.ts).
    globalSetup: ['./test/helpers/global-setup.ts'],
    // Each file's CPU seconds, for the slowest-files reporter (test/helpers/file-cpu.ts).
    setupFiles: ['./test/helpers/file-cpu.ts'],
    // The default output, then the ten slowest files (docs/architecture.md, "Tests").
    reporters: ['default', './test/helpers/slowest-files.ts'],
    // A developer's `.env` in the checkout never reaches a CLI the tests start (see src/env-file.ts).
    env: { FLEETSYNC_ENV_FILE: '/dev/null' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // The unit files share their workers' module cache instead of a fork each (~−55 CPU-s of
          // ~174 for the project; docs/architecture.md, "Tests"): none sets process.env, mocks a
          // module or fakes timers — a unit test must leave its process as it found it.
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION, ...BROWSER],
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      {
        extends: true,
        // one Chromium for all browser files, each in contexts of its own (chromium-server.ts)
        test: { name: 'browser', include: BROWSER, globalSetup: ['./test/helpers/chromium-server.ts'] },
      },
    ],
  },
});

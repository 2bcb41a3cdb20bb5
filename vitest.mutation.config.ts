import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant (stryker.config.mjs): the unit and integration tests,
 * not the browser ones (a mutant of src/ that only a page notices is rare, and Chromium per mutant
 * costs minutes). MUTATION_TESTS narrows them (a glob, e.g. 'test/api/**').
 */
export default defineConfig({
  test: {
    include: (process.env.MUTATION_TESTS ?? 'test/**/*.test.ts').split(','),
    exclude: [...configDefaults.exclude, 'test/**/*.browser.test.ts', 'test/test-groups.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { FLEETSYNC_ENV_FILE: '/dev/null' },
  },
});

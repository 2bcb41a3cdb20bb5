// @ts-check
/**
 * `npm run mutation`: Stryker breaks the modules that hold the rules, one change at a time, and
 * runs the tests that cover each change; a mutant that no test notices is a claim nobody checks.
 * Not part of `npm test` (it takes long). Narrow it with MUTATE, e.g.
 *   MUTATE='src/api/retry.ts' npm run mutation
 * The HTML report lands in reports/mutation/index.html.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: (process.env.MUTATE ?? 'src/api/**/*.ts,src/sync/**/*.ts,src/reports/**/*.ts')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  // Added to each mutant's expected test time: a mutant that loops (retry and pagination loops
  // under a fake clock) costs this long; with 60 s, src/api alone was estimated at over an hour.
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  // Anchored at the root: a bare 'reports' also matched src/reports and test/reports, which were
  // then left out of the sandbox and never mutated.
  ignorePatterns: ['/data', '/bench/results', '/.scratch', '/reports', '/docs'],
  thresholds: { high: 80, low: 60, break: null },
};

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A developer's `.env` in the checkout never reaches a CLI the tests start (see src/env-file.ts).
    env: { FLEETSYNC_ENV_FILE: '/dev/null' },
  },
});

/**
 * A setup file (vitest.config.ts): the CPU seconds each test file cost, its own process' and
 * those of the child processes it started and waited for (the CLI, Chromium, embedded Postgres),
 * kept in the file's task meta for the slowest-files reporter. On two cores shared by four files
 * at a time, a file's wall time says how long it waited beside the others; its CPU says what it
 * took from them.
 */
import { afterAll } from 'vitest';
import { cpuWithChildren } from './slowest-files.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** CPU seconds of the file: its worker process plus the children it waited for. */
    cpuSeconds?: number;
  }
}

// From before the test file is imported (a setup file runs first, once per test file), so its
// top-level work (a shared sync it waits for) counts too.
const start = cpuWithChildren();
// vitest reads a hook's first parameter as fixtures (an object pattern); the file is the second
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const end = cpuWithChildren();
  if (start !== null && end !== null) file.meta.cpuSeconds = end - start;
});

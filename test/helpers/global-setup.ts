/**
 * Once per `vitest run` (in vitest's main process, for each project): the directory where
 * shared-sync.ts keeps the synced databases of this run. Its name is the main process' pid, so
 * the three projects share one directory and two runs side by side never do; it is removed at
 * the end of the run.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    sharedSyncDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = join(tmpdir(), `fleetsync-shared-sync-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  project.provide('sharedSyncDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

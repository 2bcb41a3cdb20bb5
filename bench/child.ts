/**
 * Entry of a measurement that needs its own process (its own peak RSS, its own CPU profile):
 * `node bench/results/child/child.js <task> '<json args>'` (this file built on dist/, as bench/lib.ts
 * starts it; `node --import tsx bench/child.ts …` with BENCH_CHILD=tsx). Prints `RESULT <json>` as
 * its last stdout line; progress goes to stderr.
 */
import { applyServingAllocator } from '../src/allocator.ts';
import { applySyncHeap } from '../src/heap.ts';

type Task = (args: never) => Promise<unknown>;

// Each task's module is loaded only when it runs, so a child holds what it measures and nothing
// else: the sync child does not load the server, the exports or the seeding (about 50 MB of RSS).
const TASKS: Record<string, () => Promise<Task>> = {
  sync: async () => (await import('./sync.ts')).syncChild as Task,
  baseline: async () => (await import('./baseline.ts')).baselineChild as Task,
  ingest: async () => (await import('./ingest.ts')).ingestChild as Task,
  seed: async () => (await import('./reports.ts')).seedChild as Task,
  serve: async () => (await import('./reports.ts')).serveChild as Task,
  queries: async () => (await import('./reports.ts')).queriesChild as Task,
  export: async () => (await import('./exports.ts')).exportChild as Task,
  loadServe: async () => (await import('./load.ts')).loadServeChild as Task,
  pageServe: async () => (await import('./pages.ts')).pageServeChild as Task,
};

const SERVERS = new Set(['serve', 'loadServe', 'pageServe']);

const [task = '', raw = '{}'] = process.argv.slice(2);
// A server child starts V8 and DuckDB's allocator as `fleetsync serve` does (FLEETSYNC_SYNC_HEAP,
// src/heap.ts; src/allocator.ts: before any module loads DuckDB).
if (SERVERS.has(task)) {
  applySyncHeap('serve', process.env);
  applyServingAllocator('serve', process.env);
}
// The sync child starts DuckDB's allocator as `fleetsync sync` does (src/allocator.ts).
if (task === 'sync') applyServingAllocator('sync', process.env);
const load = TASKS[task];
if (!load) {
  process.stderr.write(`unknown bench task ${task}; one of ${Object.keys(TASKS).join(', ')}\n`);
  process.exit(2);
}
try {
  const result = await (await load())(JSON.parse(raw) as never);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (e) {
  process.stderr.write(
    `bench task ${task} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
}

/**
 * Entry of a measurement that needs its own process (its own peak RSS, its own CPU profile):
 * `node --import tsx bench/child.ts <task> '<json args>'`. Prints `RESULT <json>` as its last
 * stdout line; progress goes to stderr.
 */
import { baselineChild } from './baseline.ts';
import { exportChild } from './exports.ts';
import { ingestChild } from './ingest.ts';
import { loadServeChild } from './load.ts';
import { queriesChild, seedChild, serveChild } from './reports.ts';
import { syncChild } from './sync.ts';

type Task = (args: never) => Promise<unknown>;

const TASKS: Record<string, Task> = {
  sync: syncChild as Task,
  baseline: baselineChild as Task,
  ingest: ingestChild as Task,
  seed: seedChild as Task,
  serve: serveChild as Task,
  queries: queriesChild as Task,
  export: exportChild as Task,
  loadServe: loadServeChild as Task,
};

const [task = '', raw = '{}'] = process.argv.slice(2);
const fn = TASKS[task];
if (!fn) {
  process.stderr.write(`unknown bench task ${task}; one of ${Object.keys(TASKS).join(', ')}\n`);
  process.exit(2);
}
try {
  const result = await fn(JSON.parse(raw) as never);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (e) {
  process.stderr.write(
    `bench task ${task} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
}

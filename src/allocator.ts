/**
 * DuckDB's allocator in a process that serves the dashboard (`fleetsync serve`, and `fleetsync
 * demo`, which serves after its sync) or syncs (`fleetsync sync`; not yet `fleetsync worker`): freed
 * memory goes back to the system at once.
 *
 * libduckdb allocates through its own jemalloc, which keeps freed pages for about a second
 * (`dirty_decay_ms` and `muzzy_decay_ms` 1000) before it returns them, and returns them only
 * when it allocates again or its background thread gets the CPU. A dashboard call's first
 * answer at 5,000 vehicles frees hundreds of MB (hash tables, sorts, the page's temp table, the
 * pool's evicted blocks) while the next call allocates as much: that memory was counted twice in
 * the RSS. Measured at 5,000 vehicles × 2 years (issue 29, docs/performance-log.md "Session 13
 * (`srvmem`)"): jemalloc held 347 MB resident for 137 MB allocated at the serving peak (602 MB);
 * with the pages returned at once the peak is lower by about the difference. A sync frees and
 * allocates as fast (its pool full of the tables' blocks at 800 vehicles, evicted and read again
 * by every commit's deletes and merges): at its peak jemalloc held 329 MB resident for 135 MB
 * allocated; with the pages returned at once the 800-vehicle sync's peak was 610 MB instead of
 * 692–694 (docs/performance-log.md "Session 14 (`rss`)").
 *
 * jemalloc reads `DUCKDB_JE_MALLOC_CONF` once, when the library loads, so this runs at the
 * process's entry (src/cli.ts), before anything imports DuckDB. An operator's own
 * `DUCKDB_JE_MALLOC_CONF` is left as it is.
 */

/** jemalloc's options for a serving or syncing process: freed pages purged at once (no decay). */
export const SERVING_ALLOCATOR = 'dirty_decay_ms:0,muzzy_decay_ms:0';

/** The commands whose process serves the dashboard or syncs. */
const SERVING_PROCESSES = new Set(['serve', 'demo', 'sync']);

/**
 * At the entry of a process, before DuckDB is loaded: the serving allocator for `serve`, `demo`
 * and `sync` unless the environment already names jemalloc's options. `env` is the process's
 * environment (assigning to `process.env` sets the C environment the library reads). Returns
 * what was applied.
 */
export function applyServingAllocator(
  command: string | undefined,
  env: Record<string, string | undefined>,
): string | null {
  if (command === undefined || !SERVING_PROCESSES.has(command)) return null;
  if (env.DUCKDB_JE_MALLOC_CONF !== undefined) return null;
  env.DUCKDB_JE_MALLOC_CONF = SERVING_ALLOCATOR;
  return SERVING_ALLOCATOR;
}

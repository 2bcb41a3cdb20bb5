/**
 * The V8 heap of a process that syncs (`fleetsync sync`, `fleetsync worker`, and `fleetsync serve`,
 * whose scheduled syncs run in the process beside the dashboard).
 *
 * A sync allocates fast (parsed answers, rows, data chunks) and keeps little: ~35–50 MB live. V8
 * lets its heap grow to a multiple of the live set between full collections, so the process
 * peaked at 430–510 MB with 140–180 MB of that heap garbage. `small` (the default) keeps the heap
 * near the live set; `fast` keeps V8's defaults for a run bound by CPU (limits far above the
 * documented ones).
 *
 * `small` is not the same flag for every command:
 * - `sync` and `worker`: `--heap-growing-percent=10`, a full collection once the heap has grown
 *   10 % past what the last one kept. Session 17 (`v8flags`, docs/performance-log.md) measured it
 *   against `--optimize-for-size` (before): 800 vehicles × 90 days 8.35 → 5.90 ms of CPU a request,
 *   50 × 90 days 5.94 → 4.92, for ~36 MB more peak RSS. `--optimize-for-size` makes every full
 *   collection one that reduces memory (compacting, a ~1 MB young generation, unused maps
 *   dropped and their code compiled again): that, not the heap's growth, was most of its CPU.
 *   A worker host pays CPU for every request of every account it syncs (issue 29).
 * - `serve`: `--optimize-for-size`, as before. The dashboard's process is bound by its RSS under
 *   downloads and a sync (issue 29: ≤ 512 MB at 5,000 vehicles, 475–486 MB measured), not by
 *   its scheduled syncs' CPU: its heap was 168–178 MB with V8's defaults, 84 MB with this flag.
 *
 * V8 reads both flags at each collection, so setting them here works. Semi-space sizes have no
 * effect when set here (the heap is made before), and `--single-threaded-gc` or
 * `--no-concurrent-marking` set here crash V8: those would need the process's command line.
 */
import { setFlagsFromString } from 'node:v8';

export const SYNC_HEAPS = ['small', 'fast'] as const;
export type SyncHeap = (typeof SYNC_HEAPS)[number];

/** The commands whose process syncs. */
const SYNC_PROCESSES = new Set(['sync', 'worker', 'serve']);

/**
 * At the entry of a process, before any work: `small` for a sync's process unless
 * FLEETSYNC_SYNC_HEAP says `fast`. A value that is neither is left to the command's configuration
 * check, which names it (exit 2). Returns what was applied.
 */
export function applySyncHeap(
  command: string | undefined,
  env: Record<string, string | undefined>,
): SyncHeap | null {
  if (command === undefined || !SYNC_PROCESSES.has(command)) return null;
  const heap = env.FLEETSYNC_SYNC_HEAP || 'small';
  if (heap !== 'small') return heap === 'fast' ? 'fast' : null;
  setFlagsFromString(command === 'serve' ? '--optimize-for-size' : '--heap-growing-percent=10');
  return 'small';
}

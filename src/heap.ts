/**
 * The V8 heap of a process that syncs (`fleetsync sync`, `fleetsync worker`, and `fleetsync serve`,
 * whose scheduled syncs run in the process beside the dashboard).
 *
 * A sync allocates fast (parsed answers, rows, data chunks) and keeps little: ~35–50 MB live. V8
 * lets its heap grow to a multiple of the live set between full collections, so the process
 * peaked at 430–510 MB with 140–180 MB of that heap garbage. `small` (the default) starts V8 with
 * `--optimize-for-size`: the heap stays near the live set and the sync's peak RSS near 300 MB,
 * for about 1.5–2.2× the process CPU. At the API's real limits a sync waits for its rate
 * buckets far longer than it computes (200 vehicles × 90 days: ~25 s of CPU in an 8-minute
 * run), so its wall time does not change; `fast` keeps V8's defaults for a run bound by CPU
 * (limits far above the documented ones). Under `serve` the heap was 168–178 MB (139–152 used)
 * while a sync ran beside downloads and 84 MB with `small` (issue 29: serving RSS ≤ 512 MB;
 * docs/performance.md "Serving memory").
 *
 * What the flag does (V8 11.3): every full collection runs as one that reduces memory, so the heap
 * grows only 1.1× before the next one, pages are compacted, the young generation shrinks to ~1 MB
 * and unused maps die (the code specialised on them is compiled again). V8 reads it at each
 * collection, so setting it here works. At 800 vehicles those collections are most of its CPU:
 * `--heap-growing-percent=10` alone (the same growth, none of the rest) measured 30 % less CPU for
 * ~40 MB more peak RSS (docs/performance.md "Session 17 (`v8flags`)", the frontier). Semi-space
 * sizes have no effect when set here (the heap is made before), and `--single-threaded-gc` or
 * `--no-concurrent-marking` set here crash V8: those need the process's command line.
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
  setFlagsFromString('--optimize-for-size');
  return 'small';
}

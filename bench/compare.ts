/**
 * Benchmark 2, parent side: the baseline script (bench/baseline.ts) in a child process against a
 * fresh simulator with the same fleet and limits as the sync, and the ratios fleetsync / baseline
 * for wall time and rows stored per second. When the baseline runs on a subset (fewer vehicles),
 * its wall time is extrapolated linearly in requests and labelled so.
 */
import type { BaselineResult } from './baseline.ts';
import { fig, round, runChild, say, type Figure } from './lib.ts';
import type { SyncResult } from './sync.ts';
import { startWorld, type Limits } from './world.ts';

export async function measureBaseline(
  vehicles: number,
  days: number,
  limits: Limits,
): Promise<BaselineResult> {
  const world = await startWorld(vehicles, days, limits);
  try {
    say(
      `baseline: ${vehicles} vehicles × ${days} days, sequential, sleep ${limits.windowMs / 1000} ms/request`,
    );
    const r = await runChild<BaselineResult>('baseline', { ...world.args, vehicles, days });
    say(
      `baseline: ${r.requests} requests, ${r.rows} rows in ${round(r.wallMs / 1000, 1)} s ` +
        `(http ${round(r.httpMs / 1000, 1)} s, sleep ${round(r.sleepMs / 1000, 1)} s, inserts ${round(r.insertMs / 1000, 1)} s)`,
    );
    return r;
  } finally {
    await world.close();
  }
}

export function compareFigures(sync: SyncResult, base: BaselineResult): Figure[] {
  const B = '2 vs baseline';
  const subset = base.vehicles !== sync.vehicles || base.days !== sync.days;
  // Extrapolate the baseline to the sync's workload: requests and rows scale with vehicles.
  const k = subset ? (sync.vehicles * sync.days) / (base.vehicles * base.days) : 1;
  const baseWall = base.wallMs * k;
  const label = subset
    ? `extrapolated ×${round(k, 2)} from ${base.vehicles} veh × ${base.days} d`
    : 'measured';
  const syncRate = sync.rows / (sync.wallMs / 1000);
  const baseRate = base.rows / (base.wallMs / 1000);
  return [
    fig(B, 'baseline wall time', baseWall / 1000, 's', { note: label }),
    fig(B, 'baseline requests / rows', `${base.requests} / ${base.rows}`, '', {
      note: `${round(base.httpMs / 1000, 1)} s HTTP, ${round(base.sleepMs / 1000, 1)} s sleep, ${round(base.insertMs / 1000, 1)} s INSERT`,
    }),
    fig(B, 'baseline genuine 429s / retries', `${base.genuine429} / ${base.retries}`, ''),
    fig(B, 'wall time fleetsync / baseline', sync.wallMs / baseWall, '×', { note: 'lower is better' }),
    fig(B, 'rows/s fleetsync / baseline', syncRate / baseRate, '×', {
      note: `${Math.round(syncRate)} vs ${Math.round(baseRate)} rows/s`,
    }),
  ];
}

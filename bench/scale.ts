/**
 * The scale run (`npm run bench -- --scale`): full-history syncs of growing fleets from the
 * simulator with every limit raised ×100, so the run is bound by CPU rather than by the limits.
 * Each size reports the process time per request and the sync's peak RSS; from its plan, the
 * least time the real limits allow (60 s window, documented counts), which is what the same sync
 * takes against the real API while its CPU time stays below it (the extrapolated wall time).
 *
 * Bounded in time: before each size, its time is predicted from the last size's time per request
 * (requests grow with the fleet); a size that would not finish within what is left of the budget
 * (`--scale-budget-s`, default 1,200 s) is not run and is listed as skipped with its prediction,
 * and a size still running when the budget ends is stopped and listed.
 */
import { BUCKET_LIMITS, leastDurationMs } from '../src/api/client.ts';
import { ChildTimeout, fig, round, say, type Figure } from './lib.ts';
import { measureSync, type SyncResult } from './sync.ts';
import { scaledLimits } from './world.ts';

export interface ScaleArgs {
  vehicles: number[];
  days: number;
  budgetS: number;
}

export interface ScaleRun {
  vehicles: number;
  days: number;
  /** Null when skipped: the budget left was less than the predicted time. */
  result: SyncResult | null;
  predictedS: number | null;
  msPerRequest: number | null;
  /** Least time at the real limits for the planned requests: the extrapolated wall time. */
  realLeastS: number | null;
}

const REAL = { windowMs: 60_000, limits: BUCKET_LIMITS };
/** Limits raised so far that the run is bound by CPU (the simulator's and the sync's). */
const RAISED = scaledLimits(6_000, 100);

export async function measureScale(a: ScaleArgs): Promise<ScaleRun[]> {
  const t0 = Date.now();
  const runs: ScaleRun[] = [];
  let last: ScaleRun | null = null;
  for (const vehicles of a.vehicles) {
    const leftS = a.budgetS - (Date.now() - t0) / 1000;
    // Requests per vehicle and time per request from the last size (setup included).
    const predictedS =
      last?.result != null ? (last.result.wallMs / 1000 + 15) * (vehicles / last.vehicles) : null;
    if ((predictedS !== null && predictedS > leftS) || leftS <= 0) {
      say(
        `scale: ${vehicles} vehicles skipped: predicted ${round(predictedS ?? 0)} s, ${round(leftS)} s left`,
      );
      runs.push({ vehicles, days: a.days, result: null, predictedS, msPerRequest: null, realLeastS: null });
      continue;
    }
    // Bounded whatever the prediction said: past the budget left the size is stopped and listed.
    let result: SyncResult;
    try {
      result = await measureSync(vehicles, a.days, RAISED, { timeoutMs: leftS * 1000 });
    } catch (e) {
      if (!(e instanceof ChildTimeout)) throw e;
      say(`scale: ${vehicles} vehicles stopped at the budget (${round(leftS)} s)`);
      runs.push({
        vehicles,
        days: a.days,
        result: null,
        predictedS: null,
        msPerRequest: null,
        realLeastS: null,
      });
      break;
    }
    const run: ScaleRun = {
      vehicles,
      days: a.days,
      result,
      predictedS,
      msPerRequest: result.wallMs / Math.max(1, result.requests),
      realLeastS: leastDurationMs(result.planRequestsByBucket, REAL) / 1000,
    };
    runs.push(run);
    last = run;
  }
  return runs;
}

/** The figures, and an ASCII curve of time per request and peak RSS against the fleet size. */
export function scaleFigures(runs: readonly ScaleRun[]): Figure[] {
  const B = '9 scale';
  const out: Figure[] = [];
  for (const r of runs) {
    const name = `${r.vehicles} veh × ${r.days} d`;
    if (!r.result) {
      out.push(
        fig(B, `${name}: not measured`, '-', '', {
          note:
            r.predictedS === null
              ? 'stopped at the time budget'
              : `predicted ${round(r.predictedS)} s, over the time budget`,
        }),
      );
      continue;
    }
    const s = r.result;
    out.push(
      fig(B, `${name}: time per request`, r.msPerRequest!, 'ms/req', {
        note:
          `${s.requests} req in ${round(s.wallMs / 1000, 1)} s; CPU per request: sync ${round(s.cpuMs / s.requests, 2)} ms, ` +
          `simulator ${round((s.simCpuMs ?? 0) / s.requests, 2)} ms; ${s.outcome}`,
      }),
      fig(B, `${name}: sync peak RSS`, s.peakRssMb, 'MB', { target: '≤ 300', pass: s.peakRssMb <= 300 }),
      fig(B, `${name}: wall at the real limits (plan's least time)`, r.realLeastS!, 's', {
        note: `${s.requests} req at 1,000/min; the CPU-bound run took ${round(s.wallMs / 1000, 1)} s`,
      }),
    );
  }
  const done = runs.filter((r) => r.result);
  if (done.length > 1) {
    const first = done[0]!;
    const last = done[done.length - 1]!;
    out.push(
      fig(
        B,
        `time/request ${last.vehicles} vs ${first.vehicles} veh`,
        last.msPerRequest! / first.msPerRequest!,
        '×',
        {
          target: '≤ 1.25',
          pass: last.msPerRequest! / first.msPerRequest! <= 1.25,
        },
      ),
    );
  }
  return out;
}

/** A small text curve: one bar per size for time per request, with peak RSS beside it. */
export function scaleCurve(runs: readonly ScaleRun[]): string {
  const done = runs.filter((r) => r.result);
  const max = Math.max(...done.map((r) => r.msPerRequest!), 1e-9);
  return done
    .map(
      (r) =>
        `${String(r.vehicles).padStart(6)} veh  ${'#'.repeat(Math.max(1, Math.round((r.msPerRequest! / max) * 40))).padEnd(40)}  ` +
        `${r.msPerRequest!.toFixed(2)} ms/req  ${Math.round(r.result!.peakRssMb)} MB  real limits ${Math.round(r.realLeastS!)} s`,
    )
    .join('\n');
}

/**
 * Vehicle activity, the ground truth behind GET /vehicles/activity: a vehicle's engine is on for
 * the whole of each of its trips; the first part of a trip is idling (warm-up, queues at the
 * depot gate), the rest driving. The idle share of a trip (5–35 %) is fixed by its id, so the
 * answer for a day never depends on what else was asked. A trip across midnight counts in both
 * local days by the part of it inside each.
 */
import { localDayBounds } from '../../time.ts';
import type { Fleet, SimTrip, SimVehicle } from '../model.ts';
import { subSeed } from './prng.ts';
import { tripsOverlapping } from './truth.ts';

/** Seconds of idling at the start of a trip (whole seconds, at most the trip's duration). */
export function idleSecondsOf(t: SimTrip): number {
  const durationS = Math.floor((t.end_ms - t.start_ms) / 1000);
  const share = 0.05 + (subSeed(0x1d1e, t.trip_id) / 2 ** 32) * 0.3;
  return Math.min(durationS, Math.round(durationS * share));
}

export interface DayActivity {
  vehicle: SimVehicle;
  day: string;
  firstOnMs: number | null;
  lastOffMs: number | null;
  idleS: number;
  drivingS: number;
  driverIds: string[];
}

const overlapS = (a0: number, a1: number, b0: number, b1: number) =>
  Math.max(0, Math.min(a1, b1) - Math.max(a0, b0)) / 1000;

/**
 * One vehicle's activity on a local day, as known at `horizonMs` (data after it has not reached
 * the API yet: the part of a trip before it counts).
 */
export function dayActivity(
  fleet: Fleet,
  v: SimVehicle,
  day: string,
  horizonMs: number,
  b = localDayBounds(day, fleet.timezone),
): DayActivity {
  const end = Math.min(b.endMs, horizonMs);
  let idleS = 0;
  let drivingS = 0;
  let firstOnMs: number | null = null;
  let lastOffMs: number | null = null;
  const drivers = new Set<string>();
  // The trips ending after the day's start and starting before `end` (by binary search).
  for (const t of tripsOverlapping(fleet.tripsOf(v.vehicle_id), b.startMs, end)) {
    const idleEnd = t.start_ms + idleSecondsOf(t) * 1000;
    idleS += overlapS(t.start_ms, idleEnd, b.startMs, end);
    drivingS += overlapS(idleEnd, t.end_ms, b.startMs, end);
    const on = Math.max(t.start_ms, b.startMs);
    const off = Math.min(t.end_ms, end);
    if (firstOnMs === null || on < firstOnMs) firstOnMs = on;
    if (lastOffMs === null || off > lastOffMs) lastOffMs = off;
    if (t.driver_id) drivers.add(t.driver_id);
  }
  return {
    vehicle: v,
    day,
    firstOnMs,
    lastOffMs,
    idleS: Math.round(idleS),
    drivingS: Math.round(drivingS),
    driverIds: [...drivers].sort(),
  };
}
